"""Verified suggestions with the real verifier: one weak spec per template gets its clause, offered only with
what was proved; a spec no candidate can fix gets none; the running example gets the converse, pinned up to
order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA, ROOT

pytestmark = pytest.mark.dafny


def score(tmp_path: Path, spec: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir",
                 str(tmp_path / "cache"), *args]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.fixture(scope="module")
def weak(dafny_command: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    report = score(tmp_path_factory.mktemp("suggest"), DATA / "suggest" / "weak.dfy")
    return {m["method"]: m for m in report["methods"]}


@pytest.mark.parametrize(("method", "clause", "template"), [
    ("HasZero", "ensures (exists i :: 0 <= i < |s| && s[i] == 0) ==> r", "converse"),
    ("Doubled", "ensures |r| == |s|", "length"),
    ("Sum", "ensures r == a + b", "tight-bound"),
    ("Second", "ensures r == b", "equals-input"),
    ("Unique", "ensures forall i, j :: 0 <= i < j < |r| ==> r[i] != r[j]", "distinct"),
])  # fmt: skip
def test_each_template_fixes_its_weak_spec(weak: dict[str, dict[str, Any]], method: str, clause: str,
                                           template: str) -> None:
    m = weak[method]
    assert m["completeness"] is not None and (m["completeness"] < 1.0 or m["not_pinned"]), m
    best = m["suggestions"][0]
    assert (best["clause"], best["template"]) == (clause, template), m["suggestions"]
    # what was proved: every case accepted, every wrong output the spec accepted rejected, every mutant killed
    assert best["cases"] == len(m["cases"]) and best["rejected"] >= 1 and best["killed"] == best["mutants"]
    assert best["pinned"] + best["pinned_up_to_order"] == best["pin_checked"] == len(m["cases"])


def test_iff_is_offered_beside_the_converse(weak: dict[str, dict[str, Any]]) -> None:
    clauses = [s["clause"] for s in weak["HasZero"]["suggestions"]]
    assert "ensures r <==> (exists i :: 0 <= i < |s| && s[i] == 0)" in clauses


def test_a_spec_no_candidate_fixes_gets_no_suggestion(weak: dict[str, dict[str, Any]]) -> None:
    twice = weak["Twice"]
    assert twice["completeness"] < 1.0 and twice["suggestions"] == []  # never an unproved one


def test_the_running_example_gets_the_converse_pinned_up_to_order(tmp_path: Path) -> None:
    m = score(tmp_path, ROOT / "examples" / "shared_elements.dfy")["methods"][0]
    best = m["suggestions"][0]
    assert best["clause"] == "ensures forall x :: InArray(a, x) && InArray(b, x) ==> x in result"
    assert best["pinned_up_to_order"] == best["pin_checked"] == 3 and best["rejected"] == 9


def test_suggest_false_searches_nothing(tmp_path: Path, dafny_command: str) -> None:
    m = score(tmp_path, DATA / "suggest" / "weak.dfy", "--method", "Sum", "--no-suggest")["methods"][0]
    assert m["suggestions"] == [] and m["completeness"] < 1.0
