"""Checks that use the test file's own functions, predicates and constants (tests/data/declared), scored with the
real verifier: each read in place is proved or refuted as the test computes it, and a declaration the reader does not
take (a contract, recursion) leaves its check unreadable, named, whatever that declaration claims."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA

pytestmark = pytest.mark.dafny
SPEC = DATA / "declared" / "Sq.dfy"


@pytest.fixture(scope="module")
def report(dafny_command: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("declared")
    out = tmp / "report.json"
    main(["score", str(SPEC), "--format", "json", "--output", str(out), "--cache-dir", str(tmp / "cache"),
          "--report-only"])
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def method(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [m for m in report["methods"] if m["method"] == name]
    return found


def test_constants_and_test_functions_are_read_and_proved(report: dict[str, Any]) -> None:
    square = method(report, "Square")
    by_line = {c["line"]: c for c in square["cases"]}
    assert {line: c["status"] for line, c in by_line.items()} == {13: "verified", 15: "verified", 17: "refuted",
                                                                  33: "verified", 35: "refuted"}
    # `Square(K)` and `r == NINE`: the test file's constants as values, so the case has mutants and a pin
    assert (by_line[13]["inputs"], by_line[13]["expected"], by_line[13]["determinacy"]) == ("x = 3", "y = 9", "pinned")
    # `IsSq(4, s)`: proved for the one output the spec admits, as the test file's bodies compute it
    assert by_line[15]["determinacy"] == "determined"
    assert "the test file's `IsSq`, `Sq` read in place, as their definitions say" in by_line[15]["note"]
    # `IsSq(6, u + 1)`: 36 + 1 is no square of 6, and the spec admits 36 only
    assert by_line[17]["expected"].startswith("(var n: int, m: int := 6, y + 1;")


def test_a_declaration_not_read_leaves_its_check_unreadable_whatever_it_claims(report: dict[str, Any]) -> None:
    problems = method(report, "Square")["problems"]
    assert any(p.endswith(":19: the property `Lies(y)` uses the test file's declarations, and is not read: `Lies` has "
                          "a contract (`ensures`): only a plain body is read") for p in problems), problems
    assert any("`Count` is recursive (Count -> Count)" in p and ":21:" in p for p in problems), problems
    assert len(problems) == 2


def test_a_weak_spec_admits_an_output_with_the_tests_property(report: dict[str, Any]) -> None:
    weak = method(report, "Weak")
    for case in weak["cases"]:  # `IsSq(5, w)` and `w == Sq(5)`
        assert case["status"] == "verified" and case["determinacy"] != "determined"
        assert "acceptance asked with y = 25" in case["note"]
    assert [c["line"] for c in weak["cases"]] == [27, 37]


def test_an_equality_with_a_call_of_a_test_file_function_is_proved_as_its_property(report: dict[str, Any]) -> None:
    """`expect a == Sq(3);` and `expect Sq(3) == b;` (b = Square(2) = 4): read as properties with `Sq` in place, the
    first proved for the one output the spec admits, the second refuted (no mutants: the note says so)."""
    by_line = {c["line"]: c for c in method(report, "Square")["cases"]}
    assert by_line[33]["expected"] == "(y == (var n: int := 3; n * n))" and by_line[33]["determinacy"] == "determined"
    assert by_line[35]["expected"] == "((var n: int := 3; n * n) == y)"
    for line in (33, 35):
        assert "no mutants of `y`" in by_line[line]["note"] and "`Sq` read in place" in by_line[line]["note"]
