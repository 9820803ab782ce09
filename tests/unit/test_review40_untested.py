"""Hostile review of specs without tests (issue 40, part 1), pure: which failures of a background check, named the
way Dafny 2.3 names a module's procedures (`_<height>_<Module>`), may be a method's own clauses or a helper its spec
reaches (then neither its well-formedness nor its background is proved)."""

from __future__ import annotations

from bot.dafny.parser import parse_file
from bot.symbolic.background import read_check
from bot.symbolic.rounds import MethodJob, _untied

SPEC = """module Lib {
  function F(x: int): int { F(x) + 1 }
}
module k_mod {
  function F(x: int): int { x }
}
module Out { module In {
  function G(x: int): int { x }
} }
module A {
  function Dbl(x: int): int { x }
  method M(a: seq<int>) returns (r: int) ensures r == a[0]
}
function Dbl(x: int): int { 2 * x }
method Top(x: int) returns (r: int) ensures r == Dbl(x)
"""


def _charged(method: str, reached: list[str], report: str) -> list[str]:
    f = parse_file(SPEC, "s.dfy")
    m = f.find(method)
    helpers = [f.find(n) for n in reached]
    assert m is not None and all(h is not None for h in helpers)
    done = read_check(report + "\ncheck-run: finished")
    return _untied(MethodJob(f, m, ()), [h for h in helpers if h is not None], done)


def test_a_failure_under_a_modules_name_is_charged_to_the_declaration_it_may_be() -> None:
    failed = "check _0_Lib.F: failed: line 2: cannot prove termination"
    assert _charged("Top", ["Lib.F"], failed) == ["Lib.F"]
    # the method's own clauses, in a module
    assert _charged("A.M", [], "check _0_A.M: failed: line 12: index out of range") == ["A.M"]
    # a module whose name begins with k, q or h reads back with `_k`, `_q`, `_h` as `'`, `?`, `#`
    assert _charged("Top", ["k_mod.F"], "check _0'_mod.F: failed: line 5: x") == ["k_mod.F"]
    # a nested module is named by its innermost name only: it may be the reached one
    assert _charged("Top", ["Out.In.G"], "check _1_In.G: not concluded") == ["In.G"]


def test_a_failure_that_is_not_one_of_the_methods_is_not_charged() -> None:
    # a false helper of the same name in another module than the one reached (the top level's)
    assert _charged("Top", ["Dbl"], "check _0_A.Dbl: failed: line 11: postcondition violation") == []
    # proved, or named as the declaration it is (read by the names already)
    assert _charged("Top", ["Lib.F"], "check _0_Lib.F: ok") == []
    assert _charged("Top", ["Dbl"], "check Dbl: failed: line 15: x") == []
