"""Hostile review of the test readers: a check of an output that the reader passed over (a block's condition, a
method given the output, an alias, a check under `if`) made a case every admitted output fails read as verified
and pinned. Each is now unreadable; a block that only prints, or a method that checks nothing, is still passed."""

from __future__ import annotations

import pytest

from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.testcases.dfy_methods import read_dfy_tests

SPEC = "method Five(x: int) returns (r: int) ensures r == 5 { r := 5; }\n"

# each test fails whatever Five returns that the spec admits (5): it must not be read as a check of 5 alone
HIDDEN_CHECKS = {
    "if": "var r := Five(1);\n  expect r == 5;\n  if r == 5 { expect false; }",
    "if-else": "var r := Five(1);\n  expect r == 5;\n  if r != 5 { print r; } else { expect false; }",
    "while": "var r := Five(1);\n  expect r == 5;\n  while r == 5 { expect false; }",
    "match": "var r := Five(1);\n  expect r == 5;\n  match r { case 5 => expect false; case _ => }",
    "method": "var r := Five(1);\n  expect r == 5;\n  Check(r);\n}\nmethod Check(v: int) {\n  expect v == 3;",
    "property+alias": "var r := Five(1);\n  expect r >= 0;\n  var s := r;\n  expect s == 3;",
    "property+if": "var r := Five(1);\n  expect r >= 0;\n  if r > 0 { expect r == 3; }",
    "property+stored": "var r := Five(1);\n  expect r >= 0;\n  var b := r == 3;\n  expect b;",
    "property+method": "var r := Five(1);\n  expect r >= 0;\n  Check(r);\n}\nmethod Check(v: int) {\n  expect v == 3;",
    "property+match": "var r := Five(1);\n  expect r >= 0;\n  match r { case 5 => expect false; case _ => }",
    "assert-by": "var r := Five(1);\n  expect r == 5;\n  assert true by { assert r == 3; }",
    "assert-by-own": "var r := Five(1);\n  assert r == 5 by { assert r == 3; }",
    "property+assert-by": "var r := Five(1);\n  expect r >= 0;\n  assert true by { assert r == 3; }",
}


@pytest.mark.parametrize("name", sorted(HIDDEN_CHECKS))
def test_a_check_the_reader_does_not_follow_makes_the_case_unreadable(name: str) -> None:
    test = "method TestFive() {\n  " + HIDDEN_CHECKS[name] + "\n}\n"
    read = read_dfy_tests(parse_file(SPEC + test, "t.dfy"))
    assert read.cases == () and len(read.problems) == 1, (read.cases, read.problems)


def test_a_block_that_only_prints_and_a_method_that_checks_nothing_are_passed_over() -> None:
    test = ("method TestFive() {\n  var r := Five(1);\n  if r > 100 { print r; }\n  Show(r);\n  expect r == 5;\n}\n"
            "method Show(v: int) { print v; }\n")
    read = read_dfy_tests(parse_file(SPEC + test, "t.dfy"))
    assert [c.expected for c in read.cases] == [(IntV(5),)] and read.problems == ()


# --- the gate: a method renamed (or moved) with a weaker spec ------------------------------------------------------

def test_a_method_renamed_with_a_weaker_spec_does_not_pass_as_a_new_one() -> None:
    # before: base's `Cube` (pinned, every mutant killed) was "removed" and said nothing, and `Cube2`, the same method
    # renamed with a spec whose cases are not pinned and whose mutants survive, passed the default gate as new; the
    # same change without the rename fails (pins lost)
    from bot.symbolic.compare import Change, compare
    from bot.symbolic.gate import GONE, pr_gate
    from bot.symbolic.results import (
        CaseResult,
        CaseStatus,
        Determinacy,
        Gate,
        MutantResult,
        MutantStatus,
        method_score,
    )

    def case(determinacy: Determinacy, mutant: MutantStatus) -> CaseResult:
        return CaseResult("CubeTest#1", 3, "n = 2", "r = 8", "", "t.dfy", CaseStatus.VERIFIED, "",
                          (MutantResult("0", "mutant", mutant),), determinacy=determinacy,
                          witness="r = 9" if determinacy is Determinacy.NOT_PINNED else "", witness_source="solver")

    base = method_score("specs/cube.dfy", "Cube", 1, (case(Determinacy.PINNED, MutantStatus.KILLED),), ())
    renamed = method_score("specs/cube.dfy", "Cube2", 1, (case(Determinacy.NOT_PINNED, MutantStatus.SURVIVED),), ())
    deltas = compare([renamed], [base])
    assert [d.change for d in deltas] == [Change.REMOVED, Change.NEW]
    verdict = pr_gate(deltas, Gate(), gated={("specs/cube.dfy", "Cube2")})
    assert verdict.failures == (f"specs/cube.dfy: Cube: {GONE}",)
    # a method that was never decided at base takes nothing with it
    undecided = method_score("specs/cube.dfy", "Cube", 1, (), ("no case",))
    assert pr_gate(compare([renamed], [undecided]), Gate()).passed
