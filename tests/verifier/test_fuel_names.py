"""`{:fuel}` lines name what the harness can resolve: a recursive function that is a member of a class is named
`C.f` (Dafny 2.3 does not resolve its bare name there, and every program of the case was an error)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.dafny.parser import parse_file
from bot.dafny.values import CharV, SeqV
from bot.symbolic.harness.hints import fuel_attributes

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "fuel_names"

NESTED = """
module M {
  class C { static function F(n: nat): nat { if n == 0 then 0 else F(n - 1) } }
}
method Top(n: nat) returns (r: nat) ensures r == M.C.F(n)
"""


def test_a_class_members_fuel_is_named_through_its_class() -> None:
    file = parse_file((DATA / "spec.dfy").read_text(encoding="utf-8"), "spec.dfy")
    method = file.find("CountUpper")
    assert method is not None
    assert fuel_attributes(file, method, [SeqV(tuple(CharV(c) for c in "ABcD"))], 40) == "{:fuel Counter.Upper, 6} "


def test_a_function_of_another_module_gets_no_fuel_rather_than_a_name_that_does_not_resolve() -> None:
    file = parse_file(NESTED, "nested.dfy")
    method = file.find("Top")
    assert method is not None
    assert fuel_attributes(file, method, [], 40) == ""


@pytest.mark.dafny
def test_a_spec_over_a_class_members_recursive_function_is_decided(dafny_command: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "score", str(DATA / "spec.dfy"), "--tests", str(DATA / "test.dfy"),
         "--format", "json", "--report-only", "--mutants", "2", "--no-suggest", "--dafny", dafny_command,
         "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    (method,) = json.loads(done.stdout)["methods"]
    assert [c["status"] for c in method["cases"]] == ["verified"], method["cases"]
    assert method["mutant_counts"]["killed"] == 2, method
