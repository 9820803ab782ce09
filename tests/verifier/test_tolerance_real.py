"""Every check of a test is read whole, with the real verifier: a tolerance with more said of its output, tolerances
per output, a test-file `abs` or `assertEquals` read by its body, `!(r != E)` read as the equality it is."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA

pytestmark = pytest.mark.dafny

HERE = DATA / "score" / "tolerance_whole"


def score(tmp_path: Path, spec: Path) -> dict[str, Any]:
    out = tmp_path / "report.json"
    argv = ["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path / "cache"),
            "--no-suggest"]
    # 1: a method with nothing decided (Small, whose one case is not read) meets no threshold; the report is written
    assert main(argv) in (0, 1)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def method(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [m for m in report["methods"] if m["method"] == name]
    return found


def verifies(dafny: str, tmp_path: Path, text: str) -> bool:
    path = tmp_path / "facts.dfy"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run([dafny, "/compile:0", "/nologo", "/timeLimit:60", str(path)], capture_output=True,
                          text=True, timeout=300, check=False)
    return proc.returncode == 0 and " 0 errors" in proc.stdout


def _lemma(name: str, source: Path) -> str:
    text = source.read_text(encoding="utf-8")
    start = text.index(f"lemma {name}")
    return text[start : text.index("\n}", start) + 2]


ABS = "function abs(x: real): real { if x < 0.0 then -x else x }\n"


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory, dafny_command: str) -> dict[str, Any]:
    return score(tmp_path_factory.mktemp("checks"), HERE / "checks.dfy")


def test_what_the_specs_admit_passes_or_fails_the_checks(dafny_command: str, tmp_path: Path) -> None:
    """Dafny proves it: Near's only output (1.05) fails the first three tests of NearTest; TwoExact's outputs pass
    TwoExactTest (1.3 within 0.5 of 1.0, 1.0004 within 0.001 of 1.0); and the claim the old reading made of Near
    (that 1.05 passes `abs(r - 1.0) < 0.1 && r < 1.02`) does not verify."""
    assert verifies(dafny_command, tmp_path, ABS + _lemma("Facts", HERE / "checks.dfy"))
    wrong = ABS + "lemma Passes() ensures abs(1.05 - 1.0) < 0.1 && 1.05 < 1.02 {}\n"
    assert not verifies(dafny_command, tmp_path, wrong)


def test_a_tolerance_with_more_said_of_its_output_is_not_verified_pinned(checks: dict[str, Any]) -> None:
    """The spec's only output fails each of NearTest's first three tests (a second conjunct, a later check, a second
    tolerance): none of them may be "verified, pinned". Each is unreadable, with the line and the reason; the
    tolerance alone (the fourth) is read and verified."""
    near = method(checks, "Near")
    assert [(c["name"], c["status"]) for c in near["cases"]] == [("NearTest#4", "verified")]
    problems = near["problems"]
    assert len(problems) == 3, problems
    assert "states more of `r` than its tolerance" in problems[0]
    assert "`expect r < 1.02` also names `r`" in problems[1]
    assert "`expect abs(r - 1.1) < 0.01` also names `r`" in problems[2]


def test_two_outputs_each_within_its_own_tolerance(checks: dict[str, Any]) -> None:
    """`a` within 0.5, `b` within 0.001 (`<=`): the correct spec is verified (not refuted by 0.001 applied to `a`),
    every mutant lies beyond its own output's tolerance and is killed (none inside `a`'s 0.5 is called wrong), and
    the pin holds: every output the spec admits passes the test."""
    for name in ("Two", "TwoExact"):
        m = method(checks, name)
        assert [c["status"] for c in m["cases"]] == ["verified"], m["cases"]
        assert m["cases"][0]["determinacy"] == "pinned"
        assert m["surviving_mutants"] == [] and m["completeness"] == 1.0, m
        note = m["cases"][0]["note"]
        assert "`a` compared within the test's own tolerance 0.5" in note
        assert "`b` compared within the test's own tolerance 0.001 (|b - expected| <= 0.001)" in note


def test_an_assert_equals_helper_that_checks_less_is_no_equality(checks: dict[str, Any]) -> None:
    """`assertEquals(a, b) { expect a <= b; }`: read as `r == 3.0` it refuted a spec whose every output passes the
    test (`r <= 2.0`); its body is no equality, so the case is not read, and nothing is refuted."""
    small = method(checks, "Small")
    assert small["cases"] == []
    (problem,) = small["problems"]
    assert "calls `assertEquals`, whose body is no check the reader knows" in problem


def test_a_further_check_of_an_exact_output_is_not_dropped(checks: dict[str, Any]) -> None:
    """`expect r == 5; expect r > 9;`: no output passes the test, so `Const` (whose only output is 5) is not
    "verified, pinned" by it, as it was when the second check was dropped: the case is not read, with the reason."""
    const = method(checks, "Const")
    assert const["cases"] == []
    (problem,) = const["problems"]
    assert "`expect r > 9` is a further check of `r`, given the value `5`" in problem


def test_not_unequal_is_the_equality_with_mutants(checks: dict[str, Any]) -> None:
    """`expect !(r != 4);` and `expect 6 == s;` are `r == 4` and `s == 6`: expected values with mutants, so the gate
    measures completeness and pins on them (a property expectation has no mutants)."""
    inc = method(checks, "Inc")
    assert [(c["expected"], c["status"], c["determinacy"]) for c in inc["cases"]] == [
        ("r = 4", "verified", "pinned"), ("r = 6", "verified", "pinned")]
    assert inc["completeness"] == 1.0 and inc["mutant_counts"]["killed"] == 10


def test_a_test_file_abs_that_is_no_absolute_value_is_read_as_written(dafny_command: str, tmp_path: Path) -> None:
    """`function abs(x: real): real { x }`: `abs(r - 1.0) < 0.1` is `r - 1.0 < 0.1`, which the spec's output 0.5
    passes (Dafny proves it), so the case is verified as the property it is; read as a tolerance around 1.0 it was
    refuted."""
    assert verifies(dafny_command, tmp_path, "function abs(x: real): real { x }\n"
                    + _lemma("HalfPasses", HERE / "fake_abs.dfy"))
    half = method(score(tmp_path, HERE / "fake_abs.dfy"), "Half")
    ((case,),) = [half["cases"]]
    assert case["status"] == "verified" and case["expected"] == "abs(r - 1.0) < 0.1", case
    assert "property" in case["note"]
