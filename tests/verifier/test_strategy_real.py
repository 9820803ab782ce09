"""The lean strategy with the real verifier: a case pinned up to order asks no program for the mutants whose
elements differ, and every mutant gets the verdict it gets with one program per question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic.program import Goal, ProgramKind
from bot.verifier import engine
from support.paths import DATA

pytestmark = pytest.mark.dafny
PERM = DATA / "pins" / "perm.dfy"


def scored(tmp_path: Path, strategy: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[Any]]:
    asked: list[Any] = []
    run = engine.Engine.run

    def recording(self: engine.Engine, programs: Any) -> Any:
        asked.extend(programs)
        return run(self, programs)

    monkeypatch.setattr(engine.Engine, "run", recording)
    out = tmp_path / f"{strategy}.json"
    assert main(["score", str(PERM), "--format", "json", "--output", str(out), "--no-suggest", "--strategy", strategy,
                 "--cache-dir", str(tmp_path / f"cache-{strategy}")]) == 0
    monkeypatch.setattr(engine.Engine, "run", run)
    return json.loads(out.read_text())["methods"][0], asked


def test_a_case_pinned_up_to_order_asks_no_program_for_mutants_that_change_its_elements(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lean, asked = scored(tmp_path, "lean", monkeypatch)
    (case,) = lean["cases"]
    assert case["determinacy"] == "pinned-up-to-order"
    by_order = [m for m in case["mutants"] if m["killed_by"] == "pin-up-to-order"]
    assert by_order, case["mutants"]
    rejections = [p for p in asked if p.kind is ProgramKind.MUTANT and p.goal is Goal.REJECT]
    # one program per mutant that keeps the elements (a swap), none for the others
    kept = [m for m in case["mutants"] if m["killed_by"] != "pin-up-to-order"]
    assert len(rejections) == len(kept) < len(case["mutants"])
    assert not [p for p in asked if p.goal is Goal.PIN_SET]  # implied by the order-free pin: not asked
    each, asked_each = scored(tmp_path, "each", monkeypatch)
    # the same verdict for every mutant, the same pin; only the proof that kills differs
    assert [(m["value"], m["status"]) for m in each["cases"][0]["mutants"]] == \
        [(m["value"], m["status"]) for m in case["mutants"]]
    assert each["cases"][0]["determinacy"] == "pinned-up-to-order" and each["completeness"] == lean["completeness"]
    assert len([p for p in asked_each if p.kind is ProgramKind.MUTANT]) > len(rejections)


def test_a_conjoined_rejection_that_fails_falls_back_to_the_same_kills(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = DATA.parent.parent / "examples" / "shared_elements.dfy"  # weak: some mutants survive

    def run(strategy: str) -> tuple[dict[str, Any], list[Any]]:
        asked: list[Any] = []
        original = engine.Engine.run

        def recording(self: engine.Engine, programs: Any) -> Any:
            asked.extend(programs)
            return original(self, programs)

        monkeypatch.setattr(engine.Engine, "run", recording)
        out = tmp_path / f"{strategy}.json"
        assert main(["score", str(example), "--format", "json", "--output", str(out), "--no-suggest",
                     "--strategy", strategy, "--cache-dir", str(tmp_path / f"cache-{strategy}")]) == 0
        monkeypatch.setattr(engine.Engine, "run", original)
        return json.loads(out.read_text())["methods"][0], asked

    lean, asked = run("lean")
    each, _ = run("each")
    conjoined = [p for p in asked
                 if p.kind is ProgramKind.MUTANT and p.goal is Goal.REJECT and "SpecScore_k" in p.method]
    assert len(conjoined) == 3  # one per case, each failing: a survivor is among its mutants
    assert [[(m["value"], m["status"]) for m in c["mutants"]] for c in lean["cases"]] == \
        [[(m["value"], m["status"]) for m in c["mutants"]] for c in each["cases"]]
    assert any(m["status"] == "survived" for c in lean["cases"] for m in c["mutants"])
    assert lean["completeness"] == each["completeness"]


# --- hostile review -----------------------------------------------------------------------------------

def _scored(tmp_path: Path, spec: Path, strategy: str) -> dict[str, Any]:
    out = tmp_path / f"{spec.stem}-{strategy}.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--no-suggest", "--strategy", strategy,
                 "--cache-dir", str(tmp_path / f"cache-{spec.stem}-{strategy}")]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report["methods"][0]


@pytest.mark.parametrize("strategy", ["lean", "each"])
def test_the_mutants_of_a_checked_output_are_rejected_beside_an_unchecked_sequence_with_a_witness(
    dafny_command: str, tmp_path: Path, strategy: str
) -> None:
    # hostile review: the rejection programs asserted the unchecked output's witness (`|s| == 3 && s[0] == ...`)
    # as a hint, where `s` is arbitrary: every one failed on that hint, so no mutant of `k` was ever killed
    m = _scored(tmp_path, DATA / "strategy" / "unchecked_seq.dfy", strategy)
    (case,) = m["cases"]
    assert case["status"] == "verified" and "not checked by the test" in case["note"]
    assert case["mutants"] and all(x["status"] == "killed" for x in case["mutants"]), case["mutants"]


def test_one_program_rejects_every_mutant_also_where_the_hints_index_past_a_shorter_one(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hostile review: the conjoined rejection asserted each branch's claim with its mentions (`r[2] == a[2] + 1 ||
    # !(...)`) in the method's body, where Dafny checks them well-formed: `r[2]` of a shorter mutant is an index
    # out of range, so the program failed and every mutant was asked again one by one
    asked: list[Any] = []
    run = engine.Engine.run

    def recording(self: engine.Engine, programs: Any) -> Any:
        asked.extend(programs)
        return run(self, programs)

    monkeypatch.setattr(engine.Engine, "run", recording)
    spec = DATA / "strategy" / "mentions.dfy"
    lean = _scored(tmp_path, spec, "lean")
    monkeypatch.setattr(engine.Engine, "run", run)
    (case,) = lean["cases"]
    assert case["determinacy"] == "not-pinned" and len(case["mutants"]) == 5
    assert all(m["status"] == "killed" and m["killed_by"] == "rejection" for m in case["mutants"])
    assert any(len(m["value"].split(",")) < 3 for m in case["mutants"])  # a shorter mutant is among them
    rejections = [p for p in asked if p.kind is ProgramKind.MUTANT and p.goal is Goal.REJECT]
    assert len(rejections) == 1, [p.method for p in rejections]  # the one program for them all: proved
    each = _scored(tmp_path, spec, "each")
    assert [(m["value"], m["status"]) for m in each["cases"][0]["mutants"]] == \
        [(m["value"], m["status"]) for m in case["mutants"]]
