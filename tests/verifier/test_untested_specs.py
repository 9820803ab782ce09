"""Specs without tests (README "Beyond the tests: every input"): `score` reports every method that states something
of its outputs, on every input, with the real verifier. The thresholds on the tests judge only tested methods; a file
without any test fails them unless `--require-determined` judges it on every input instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.symbolic.gate import NO_TESTS

ABS = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
{
  if x < 0 { r := -x; } else { r := x; }
}
"""
MAX = """method Max(a: int, b: int) returns (m: int)
  ensures m >= a && m >= b
  ensures m == a || m == b
{
  if a > b { m := a; } else { m := b; }
}
"""
# a helper whose false `ensures` is never checked: on it every spec would be "determined"
TRUSTED = """function {:verify false} Twice(x: int): int
  ensures Twice(x) == x + 1
{
  2 * x
}

method Double(x: int) returns (r: int)
  ensures r == Twice(x)
{
  r := 2 * x;
}
"""
LEMMA_ONLY = "lemma Zero(x: int)\n  ensures x * 0 == 0\n{}\n"


def _score(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[int, dict[str, dict[str, object]], str]:
    spec = tmp_path / name
    spec.write_text(text)
    out = tmp_path / f"{name}.json"
    code = main(["score", str(spec), "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--output",
                 str(out), *flags])
    return code, {m["method"]: m for m in json.loads(out.read_text())["methods"]}, str(spec)


@pytest.mark.dafny
def test_a_spec_collection_without_tests_is_scored_on_every_input(dafny_command: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, methods, path = _score(tmp_path, "specs.dfy", ABS + MAX)
    assert sorted(methods) == ["Abs", "Max"]
    assert code == 1 and f"gate: {path}: {NO_TESTS}" in capsys.readouterr().err
    weak, full = methods["Abs"]["everywhere"], methods["Max"]["everywhere"]
    assert isinstance(weak, dict) and isinstance(full, dict)
    assert weak["status"] == "not-determined" and str(weak["inputs"]).startswith("x = -"), weak
    assert len(set(weak["outputs"])) == 2  # type: ignore[arg-type]
    assert full["status"] == "determined" and methods["Max"]["cases"] == []
    assert methods["Abs"]["background"] == {"status": "verified", "message": ""}
    # judged on every input: the weak spec fails, named with its witness; the other is not named
    code, _, _ = _score(tmp_path, "specs.dfy", ABS + MAX, "--require-determined")
    err = capsys.readouterr().err
    assert code == 1 and "Abs: not determined on every input: for x = -" in err and "Max" not in err, err
    code, _, _ = _score(tmp_path, "max.dfy", MAX, "--require-determined")
    assert code == 0, capsys.readouterr().err


@pytest.mark.dafny
def test_a_spec_without_tests_says_not_determined_in_sarif_and_text(dafny_command: str, tmp_path: Path) -> None:
    spec = tmp_path / "abs.dfy"
    spec.write_text(ABS)
    sarif, text = tmp_path / "r.sarif", tmp_path / "r.txt"
    common = [str(spec), "--cache-dir", str(tmp_path / "cache"), "--report-only"]
    assert main(["score", *common, "--format", "sarif", "--output", str(sarif)]) == 0
    assert main(["score", *common, "--output", str(text)]) == 0
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["spec/not-determined"]  # and no "not scored" warning
    said = text.read_text()
    assert "no test cases: scored on every input only" in said
    assert "not determined on every input: for x = -" in said


@pytest.mark.dafny
def test_an_unchecked_helper_leaves_every_input_unknown(dafny_command: str, tmp_path: Path) -> None:
    code, methods, _ = _score(tmp_path, "double.dfy", TRUSTED, "--require-determined")
    e = methods["Double"]["everywhere"]
    assert isinstance(e, dict) and e["status"] == "unknown" and "trusted axioms" in str(e["reason"]), e
    assert code == 1
    # a method whose own checking is switched off claims nothing either
    code, methods, _ = _score(tmp_path, "off.dfy", MAX.replace("method Max", "method {:verify false} Max"),
                              "--require-determined")
    e = methods["Max"]["everywhere"]
    assert isinstance(e, dict) and e["status"] == "unknown", e
    assert code == 1


@pytest.mark.dafny
def test_untested_methods_beside_tested_ones_are_reported_not_gated(dafny_command: str, tmp_path: Path) -> None:
    toml = 'method = "Max"\n[[case]]\nargs = ["1", "2"]\nexpected = "2"\n'
    (tmp_path / "specs.tests.toml").write_text(toml)
    code, methods, _ = _score(tmp_path, "specs.dfy", ABS + MAX, "--no-suggest")
    assert code == 0  # Max meets the thresholds; Abs has no test, so no threshold on tests judges it
    assert methods["Max"]["correctness"] == 1.0
    e = methods["Abs"]["everywhere"]
    assert isinstance(e, dict) and e["status"] == "not-determined" and methods["Abs"]["cases"] == []


def test_a_file_with_nothing_to_score_on_any_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "lemma.dfy"
    spec.write_text(LEMMA_ONLY)
    assert main(["score", str(spec), "--no-cache", "--require-determined"]) == 1
    assert "no method to judge" in capsys.readouterr().err


XOR = """method Xor(a: seq<bv32>, b: seq<bv32>) returns (r: seq<bv32>)
  requires |a| == |b|
  ensures |r| == |a|
  ensures forall i :: 0 <= i < |r| ==> r[i] == a[i] ^ b[i]
"""


@pytest.mark.dafny
def test_a_sequence_output_fixed_element_by_element_is_determined(dafny_command: str, tmp_path: Path) -> None:
    """`o1 == o2` of two sequences is not proved here (measured), the same stated element by element is."""
    code, methods, _ = _score(tmp_path, "xor.dfy", XOR, "--require-determined")
    e = methods["Xor"]["everywhere"]
    assert isinstance(e, dict) and e["status"] == "determined", e
    assert code == 0
