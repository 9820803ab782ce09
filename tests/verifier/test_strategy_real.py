"""The lean strategy with the real verifier: a case pinned up to order asks no program for the mutants whose
elements differ, and every mutant gets the verdict it gets with one program per question."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic import rounds
from bot.symbolic.allowance import Allowance
from bot.symbolic.program import Goal, Outcome, Program, ProgramKind, Result
from bot.verifier import engine
from support.paths import DATA

pytestmark = pytest.mark.dafny
PERM = DATA / "pins" / "perm.dfy"


def scored(tmp_path: Path, spec: Path, strategy: str,
           monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[Program]]:
    """`score` of `spec` with the strategy (no suggestions): its first method's report, and every program the
    engine was asked."""
    asked: list[Program] = []
    run = engine.Engine.run

    def recording(self: engine.Engine, programs: Sequence[Program],
                  allowance: Allowance | None = None) -> dict[Program, Result]:
        asked.extend(programs)
        return run(self, programs, allowance)

    out = tmp_path / f"{spec.stem}-{strategy}.json"
    with monkeypatch.context() as patched:
        patched.setattr(engine.Engine, "run", recording)
        assert main(["score", str(spec), "--format", "json", "--output", str(out), "--no-suggest", "--strategy",
                     strategy, "--cache-dir", str(tmp_path / f"cache-{spec.stem}-{strategy}"), "--report-only"]) == 0
    method: dict[str, Any] = json.loads(out.read_text())["methods"][0]
    return method, asked


def rejections(asked: list[Program]) -> list[Program]:
    return [p for p in asked if p.kind is ProgramKind.MUTANT and p.goal is Goal.REJECT]


def test_a_case_pinned_up_to_order_asks_no_program_for_mutants_that_change_its_elements(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lean, asked = scored(tmp_path, PERM, "lean", monkeypatch)
    (case,) = lean["cases"]
    assert case["determinacy"] == "pinned-up-to-order"
    by_order = [m for m in case["mutants"] if m["killed_by"] == "pin-up-to-order"]
    assert by_order, case["mutants"]
    # one program per mutant that keeps the elements (a swap), none for the others
    kept = [m for m in case["mutants"] if m["killed_by"] != "pin-up-to-order"]
    assert len(rejections(asked)) == len(kept) < len(case["mutants"])
    assert not [p for p in asked if p.goal is Goal.PIN_SET]  # implied by the order-free pin: not asked
    each, asked_each = scored(tmp_path, PERM, "each", monkeypatch)
    # the same verdict for every mutant, the same pin; only the proof that kills differs
    assert [(m["value"], m["status"]) for m in each["cases"][0]["mutants"]] == \
        [(m["value"], m["status"]) for m in case["mutants"]]
    assert each["cases"][0]["determinacy"] == "pinned-up-to-order" and each["completeness"] == lean["completeness"]
    assert len([p for p in asked_each if p.kind is ProgramKind.MUTANT]) > len(rejections(asked))


def test_a_case_accepted_clause_by_clause_is_pinned_up_to_order_by_its_leading_clauses(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole acceptance times out at its short first limit (forced here: every other program is the real
    verifier's); the clauses are proved one by one, and the real verifier proves the order-free pin from every
    clause but the last. The case then reads as with the whole's pin checks."""
    run = engine.Engine.run

    def first_limit_times_out(self: engine.Engine, programs: Sequence[Program],
                              allowance: Allowance | None = None) -> dict[Program, Result]:
        short = [p for p in programs if p.time_limit == rounds.FIRST_ACCEPT_SECONDS]
        results = run(self, [p for p in programs if p not in short], allowance)
        return results | {p: Result(Outcome.TIMEOUT, "timed out") for p in short}

    monkeypatch.setattr(rounds, "EAGER_PIN_BELOW", 10)  # every case is large: its acceptance gets the first limit
    spec = DATA / "strategy" / "parts.dfy"
    each, _ = scored(tmp_path, spec, "each", monkeypatch)
    monkeypatch.setattr(engine.Engine, "run", first_limit_times_out)
    lean, asked = scored(tmp_path, spec, "lean", monkeypatch)
    (case,) = lean["cases"]
    assert case["status"] == "verified" and "accepted clause by clause" in case["note"], case
    parts = [p for p in asked if p.kind is ProgramKind.PIN]
    assert {p.goal for p in parts} == {Goal.PIN, Goal.PIN_MULTISET}  # the parts only: the whole is never asked
    assert all("|r| == |a|" not in p.method.split("{", 1)[1] for p in parts)
    assert case["determinacy"] == each["cases"][0]["determinacy"] == "pinned-up-to-order"
    assert any(m["killed_by"] == "pin-up-to-order" for m in case["mutants"])
    assert [(m["value"], m["status"]) for m in case["mutants"]] == \
        [(m["value"], m["status"]) for m in each["cases"][0]["mutants"]]


def test_a_conjoined_rejection_that_fails_falls_back_to_the_same_kills(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = DATA.parent.parent / "examples" / "shared_elements.dfy"  # weak: some mutants survive
    lean, asked = scored(tmp_path, example, "lean", monkeypatch)
    each, _ = scored(tmp_path, example, "each", monkeypatch)
    conjoined = [p for p in rejections(asked) if "SpecScore_k" in p.method]
    assert len(conjoined) == 3  # one per case, each failing: a survivor is among its mutants
    assert [[(m["value"], m["status"]) for m in c["mutants"]] for c in lean["cases"]] == \
        [[(m["value"], m["status"]) for m in c["mutants"]] for c in each["cases"]]
    assert any(m["status"] == "survived" for c in lean["cases"] for m in c["mutants"])
    assert lean["completeness"] == each["completeness"]


# --- hostile review -----------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["lean", "each"])
def test_the_mutants_of_a_checked_output_are_rejected_beside_an_unchecked_sequence_with_a_witness(
    dafny_command: str, tmp_path: Path, strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hostile review: the rejection programs asserted the unchecked output's witness (`|s| == 3 && s[0] == ...`)
    # as a hint, where `s` is arbitrary: every one failed on that hint, so no mutant of `k` was ever killed
    m, _ = scored(tmp_path, DATA / "strategy" / "unchecked_seq.dfy", strategy, monkeypatch)
    (case,) = m["cases"]
    assert case["status"] == "verified" and "not checked by the test" in case["note"]
    assert case["mutants"] and all(x["status"] == "killed" for x in case["mutants"]), case["mutants"]


def test_one_program_rejects_every_mutant_also_where_the_hints_index_past_a_shorter_one(
    dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hostile review: the conjoined rejection asserted each branch's claim with its mentions (`r[2] == a[2] + 1 ||
    # !(...)`) in the method's body, where Dafny checks them well-formed: `r[2]` of a shorter mutant is an index
    # out of range, so the program failed and every mutant was asked again one by one
    spec = DATA / "strategy" / "mentions.dfy"
    lean, asked = scored(tmp_path, spec, "lean", monkeypatch)
    (case,) = lean["cases"]
    assert case["determinacy"] == "not-pinned" and len(case["mutants"]) == 5
    assert all(m["status"] == "killed" and m["killed_by"] == "rejection" for m in case["mutants"])
    assert any(len(m["value"].split(",")) < 3 for m in case["mutants"])  # a shorter mutant is among them
    together = rejections(asked)
    assert len(together) == 1, [p.method for p in together]  # the one program for them all: proved
    each, _ = scored(tmp_path, spec, "each", monkeypatch)
    assert [(m["value"], m["status"]) for m in each["cases"][0]["mutants"]] == \
        [(m["value"], m["status"]) for m in case["mutants"]]
