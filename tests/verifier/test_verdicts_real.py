"""Proof-backed verdicts with the real verifier: a case is refuted (and a mutant killed) only when the
rejection is proved; what the verifier cannot decide is unknown, with its reason.

Every file under tests/data/verdicts pairs right expected values with wrong ones: the right ones must
be proved accepted, the wrong ones proved rejected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA

pytestmark = pytest.mark.dafny
VERDICTS = DATA / "verdicts"


def score(tmp_path: Path, name: str, *args: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    argv = ["score", str(VERDICTS / name), "--format", "json", "--output", str(out),
            "--cache-dir", str(tmp_path / "cache"), *args, "--no-suggest"]
    # verdicts are asserted here; the suggestion search (tests/verifier/test_suggest_real.py) is not
    assert main([*argv, "--report-only"]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def cases(report: dict[str, Any], method: str) -> list[dict[str, Any]]:
    found = [m for m in report["methods"] if m["method"] == method]
    assert len(found) == 1
    return list(found[0]["cases"])


def statuses(report: dict[str, Any], method: str) -> list[str]:
    return [c["status"] for c in cases(report, method)]


def test_set_cardinality_both_ways(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "cardinality.dfy")
    for method in ("CountIdentical", "CountUpper"):
        assert statuses(report, method) == ["verified", "refuted"], cases(report, method)
    refuted = cases(report, "CountIdentical")[1]
    assert refuted["clause"].startswith("ensures count == |set i")  # the clause proved to reject it


def test_prime_and_composite_beyond_the_instance_cap(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "prime.dfy")
    # 1003 = 17 * 59 is not prime, 1009 is; the wrong answers are proved rejected
    assert statuses(report, "IsPrime") == ["verified", "verified", "refuted", "refuted"]


def test_recursive_sum_from_a_start_above_zero(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "sum_from.dfy")
    assert statuses(report, "SumRange") == ["verified", "refuted"], cases(report, "SumRange")


def test_existential_witness_beyond_the_cap(dafny_command: str, tmp_path: Path) -> None:
    # the verdicts only: the mutants and the pin check of this spec cost most of a minute and are not asserted
    report = score(tmp_path, "exists_far.dfy", "--mutants", "0", "--no-pin")
    assert statuses(report, "ContainsValue") == ["verified", "refuted"], cases(report, "ContainsValue")


def test_undecidable_is_unknown_not_refuted(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "undecidable.dfy")
    hidden = cases(report, "Hidden")
    assert [(c["status"], c["reason"]) for c in hidden] == [("unknown", "stuck")]
    assert "Secret" in hidden[0]["clause"]
    # accepted through the first disjunct; whether a wrong output equals Secret(x) is unknowable
    (accepted,) = cases(report, "HiddenOr")
    assert accepted["status"] == "verified"
    assert accepted["mutants"] and {m["status"] for m in accepted["mutants"]} == {"unknown"}
    method = next(m for m in report["methods"] if m["method"] == "HiddenOr")
    assert method["completeness"] is None and method["mutant_counts"]["killed"] == 0


def test_reals_exact_first_then_within_tolerance(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "reals.dfy", "--tolerance", "1e-3")
    found = cases(report, "Average")
    assert [c["status"] for c in found] == ["verified", "verified", "refuted"], found
    assert found[0]["note"] == ""  # 1.5 is accepted exactly
    assert "tolerance" in found[1]["note"]  # 1.667 for 1.6665
    # within the tolerance the exact 1.6665 is the expected output, not another one the spec accepts
    assert found[1]["determinacy"] == "pinned", found[1]


def test_requires_hard_to_prove_is_not_violated(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "hard_requires.dfy")
    assert statuses(report, "Pick") == ["verified", "precondition-violated"], cases(report, "Pick")


def test_a_requires_that_rejects_a_test_is_named_and_fails_the_gate(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "requires_rejects.dfy")
    found = cases(report, "Half")
    assert [c["status"] for c in found] == ["verified", "precondition-violated"], found
    assert found[1]["clause"] == "requires x % 2 == 0", found[1]  # the clause proved to reject, not the first
    text = tmp_path / "out.txt"
    argv = ["score", str(VERDICTS / "requires_rejects.dfy"), "--output", str(text),
            "--cache-dir", str(tmp_path / "cache")]
    assert main([*argv, "--report-only"]) == 0
    shown = text.read_text()
    assert "the precondition rejects 1 of its 2 test case(s) (proved; `requires x % 2 == 0`)" in shown, shown
    # as a gate: a proved disagreement between the requires and a test fails it, like a refuted case
    assert main([*argv, "--min-correctness", "1.0"]) == 1


def test_a_test_that_checks_one_of_two_outputs(dafny_command: str, tmp_path: Path) -> None:
    found = cases(score(tmp_path, "partial.dfy"), "Find")
    assert [(c["status"], c["expected"]) for c in found] == [
        ("verified", "found = true"), ("verified", "i = 1"), ("refuted", "found = true"), ("refuted", "i = 1")], found
    assert "`i` is not checked by the test" in found[0]["note"] and "with i = 0" in found[0]["note"]
    assert found[2]["clause"] == "ensures found ==> 0 <= i < |a| && a[i] == x"  # proved for every `i`
    # the checked output alone is mutated and pinned
    assert [m["value"] for m in found[0]["mutants"]] == ["false"] and found[0]["determinacy"] == "pinned"
    assert all(m["status"] == "killed" for m in found[1]["mutants"]) and found[1]["mutants"]


def test_property_expectations_accepted_refuted_and_determined(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "properties.dfy")
    sq = cases(report, "Sq")
    assert [(c["expected"], c["status"], c["determinacy"]) for c in sq] == [
        ("y > 0", "verified", "determined"), ("y < 0", "refuted", None)], sq
    assert "a property expectation, not a value" in sq[0]["note"] and sq[0]["mutants"] == []
    evens = cases(report, "Evens")
    assert [(c["expected"], c["status"]) for c in evens] == [
        ("(r[0] % 2 == 0) && (|r| == 2)", "verified"), ("|r| == 4", "refuted"), ("6 in r", "verified")], evens
    # every output the spec admits has even elements and length 2; not every one contains 6
    assert evens[0]["determinacy"] == "determined" and evens[2]["determinacy"] != "determined"


def test_outputs_a_spec_says_are_fresh_are_not_taken_as_allocated(dafny_command: str, tmp_path: Path) -> None:
    """An unassigned array out-parameter is taken to be allocated already: `fresh(b)` would be false of it, and a
    rejection (or a pin check) would be proved from that. Such outputs get any array instead."""
    (tmp_path / "fresh.dfy").write_text("""method Make(n: nat) returns (ok: bool, b: array<int>)
  ensures fresh(b) && b.Length == n
  ensures ok
method Make2(n: nat) returns (b: array<int>)
  ensures fresh(b) && b.Length == n
method T() {
  var ok, b := Make(3); expect ok;
  var c := Make2(3); expect c.Length == 3;
  var d := Make2(2); expect d[..] == [1, 2];
}
""")
    out = tmp_path / "out.json"
    assert main(["score", str(tmp_path / "fresh.dfy"), "--format", "json", "--output", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "--report-only"]) == 0
    report = json.loads(out.read_text())
    statuses = [(c["status"], c["determinacy"]) for m in report["methods"] for c in m["cases"]]
    assert ("refuted", None) not in statuses and ("verified", "pinned") not in statuses, statuses
    assert statuses[-1] == ("verified", "not-pinned")  # the contents are free: another array is accepted
