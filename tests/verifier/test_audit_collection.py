"""`audit` on a spec collection without the task layout (README "The `audit` command"): every method that states
something of its outputs is scored, with the tests beside it or on every input alone, with the real verifier."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bot.cli import main

SPECS = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
{
  if x < 0 { r := -x; } else { r := x; }
}

method Max(a: int, b: int) returns (m: int)
  ensures m >= a && m >= b
  ensures m == a || m == b
{
  if a > b { m := a; } else { m := b; }
}
"""


@pytest.mark.dafny
def test_a_folder_of_specs_without_tests_is_audited_on_every_input(dafny_command: str, tmp_path: Path) -> None:
    root = tmp_path / "specs"
    (root / "sub").mkdir(parents=True)
    (root / "abs.dfy").write_text(SPECS)
    (root / "abs.tests.toml").write_text('method = "Max"\n[[case]]\nargs = ["1", "2"]\nexpected = "2"\n')
    (root / "sub" / "lemma.dfy").write_text("lemma L()\n  ensures true\n{}\n")
    (root / "sub" / "bad.dfy").write_text("method Bad( {\n")
    out = tmp_path / "out"
    assert main(["audit", str(root), "--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--no-suggest"]) == 0
    tasks = {t["task_id"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert sorted(tasks) == ["abs.dfy:Abs", "abs.dfy:Max", "sub/bad.dfy", "sub/lemma.dfy"]
    weak, full = tasks["abs.dfy:Abs"], tasks["abs.dfy:Max"]
    assert weak["everywhere"]["status"] == "not-determined" and weak["everywhere"]["inputs"].startswith("x = -")
    assert (weak["verdict"], weak["cause"]) == ("inconclusive", "no test cases found")
    assert (full["verdict"], full["everywhere"]["status"]) == ("strong", "determined")  # tested beside, too
    assert "never closed" in tasks["sub/bad.dfy"]["cause"] and tasks["sub/lemma.dfy"]["method"] == ""
    rows = {r["task_id"]: r for r in csv.DictReader((out / "results.csv").read_text().splitlines())}
    assert rows["abs.dfy:Abs"]["everywhere"] == "not-determined"
    md = (out / "report.md").read_text()
    assert "Of 2 specs: 1 determined, 0 determined-up-to-order, 0 determined-as-set, 1 not-determined" in md
    assert "- task abs.dfy:Abs (<code>Abs</code>): not determined on every input: for x = -" in md


def test_an_empty_folder_says_what_was_looked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path), "--out", str(tmp_path / "out"), "--no-cache"]) == 2
    assert "nor any .dfy file" in capsys.readouterr().err


def test_a_spec_collection_has_no_json_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.dfy").write_text(SPECS)
    assert main(["audit", str(tmp_path), "--out", str(tmp_path / "out"), "--no-cache", "--tests", "json"]) == 2
    assert "a spec collection is read with --tests dfy" in capsys.readouterr().err
