"""The functions a clause's names mean, by where the clause is (DafnyFile.seen_from): the ground evaluator and the
hints call functions by name, and a same-named function of another module is not the one Dafny resolves."""

from __future__ import annotations

from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.symbolic.harness.evaluate import evaluate

SOURCE = """
function Mag(x: int): int { 0 }
module A {
  module B {
    function Mag(x: int): int { if x < 0 then -x else x }
    method Abs(x: int) returns (r: int) ensures r == Mag(x)
  }
  function Mag(x: int): int { 7 }
}
class C {
  static function Twice(x: int): int { 2 * x }
  static method M(x: int) returns (r: int) ensures r == Twice(Mag(x))
}
"""
FILE = parse_file(SOURCE, "f.dfy")


def _mag(container: str) -> int:
    value = evaluate(FILE.seen_from(container), "Mag(-3)", {})
    assert isinstance(value, IntV)
    return value.v


def test_each_scope_calls_its_own_function() -> None:
    abs_ = FILE.find("Abs")
    assert abs_ is not None and abs_.container == "module A.module B"
    assert _mag("module A.module B") == 3  # B's own: a module sees nothing of the modules around it
    assert _mag("module A") == 7
    assert _mag("") == 0
    # a class's member sees the class's functions and its module's
    value = evaluate(FILE.seen_from("class C"), "Twice(Mag(-3))", {})
    assert value == IntV(0)
    # the methods and everything else stay: only functions and predicates are resolved by name
    assert FILE.seen_from("module A").find("Abs") is not None
