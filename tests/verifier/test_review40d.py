"""Findings of the second hostile review of the every-input questions, each a failing test first: a method of a
refining module scored on its own clauses alone (false survivors and a false witness), a spec change of types a
spec file declares, and a module's own opened imports lost in its harnesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic.results import Relation
from support.paths import DATA
from support.spec_change import compare_versions

pytestmark = pytest.mark.dafny
HERE = DATA / "review40d"


def _score(tmp_path: Path, name: str) -> dict[str, dict[str, Any]]:
    out = tmp_path / "report.json"
    argv = ["score", str(HERE / name), "--format", "json", "--output", str(out), "--no-suggest", "--report-only",
            "--cache-dir", str(tmp_path / "cache")]
    assert main(argv) == 0
    return {m["method"]: m for m in json.loads(out.read_text(encoding="utf-8"))["methods"]}


def test_a_method_of_a_refining_module_gets_no_verdict(dafny_command: str, tmp_path: Path) -> None:
    """`B.M` inherits `ensures r == x + 1` from `A`: a harness restating B's own clauses (none) had every mutant
    survive and the spec "not determined"; neither is true."""
    m = _score(tmp_path, "refines.dfy")["B.M"]
    assert [c["status"] for c in m["cases"]] == ["unsupported"], m["cases"]
    assert "refines another: the clauses it inherits are not read" in m["cases"][0]["message"]
    assert m["mutant_counts"] == {"killed": 0, "survived": 0, "unknown": 0} and not m["surviving_mutants"]
    assert m["everywhere"]["status"] == "unknown" and "refines another" in m["everywhere"]["reason"]


def test_a_modules_own_opened_imports_reach_its_harnesses(dafny_command: str, tmp_path: Path) -> None:
    """M opens Lib; Dafny 2.3's `import opened M` does not carry that import, so `F` was unresolved in every
    harness (the case an error); and the top level's `F` is another function, which no hint may take."""
    methods = _score(tmp_path, "opened.dfy")
    assert [c["status"] for c in methods["M.Inc"]["cases"]] == ["verified"], methods["M.Inc"]["cases"]
    assert methods["M.Inc"]["mutant_counts"]["survived"] == 0
    assert methods["M.Inc"]["everywhere"]["status"] == "determined"
    assert methods["M.Loose"]["everywhere"]["status"] == "not-determined"


def test_types_a_spec_file_declares_are_said_not_compared(dafny_command: str, tmp_path: Path) -> None:
    """Each version's datatype is a type of its own module: the question's top-level signature named neither, and
    the reason was the verifier's `Undeclared top-level type` said as if of the spec."""
    c = compare_versions(HERE / "color_base.dfy", HERE / "color_head.dfy", tmp_path)
    assert c.relation is Relation.UNKNOWN
    assert c.reason == ("`c` is of a type the spec file declares (`Color`): comparing two versions' own types is "
                        "not supported yet"), c


def test_a_spec_change_of_a_refining_modules_method_relates_nothing(dafny_command: str, tmp_path: Path) -> None:
    """Head weakens A's inherited clause: B.M was "equivalent" (its own clauses, none, are the same)."""
    head = tmp_path / "refines_head.dfy"
    head.write_text((HERE / "refines.dfy").read_text().replace("ensures r == x + 1", "ensures r >= x + 1"))
    (tmp_path / "c").mkdir()
    c = compare_versions(HERE / "refines.dfy", head, tmp_path / "c", method="B.M",
                         tests=HERE / "refines.tests.toml")
    assert c.relation is Relation.UNKNOWN and "refines another" in c.reason, c
