"""A proof hint the tool wrote that does not resolve is dropped: the case is asked again without hints, and never
turns into an error (a scripted engine: the decision logic alone). And ground facts are written so that they resolve:
an empty value with its type (checked with the real Dafny 2.3)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.types import IntT, SeqT
from bot.dafny.values import IntV, SeqV
from bot.symbolic.harness.evaluate import ground_facts
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.symbolic.results import CaseStatus
from bot.symbolic.rounds import HINTS_DROPPED, MethodJob, ScoreOptions, Strategy, score_methods
from bot.testcases.cases import TestCase

SPEC = """
method CountPos(s: seq<int>) returns (r: int)
  ensures r == |set i | 0 <= i < |s| && s[i] > 0|
"""


class ScriptedEngine:
    def __init__(self) -> None:
        self.rounds: list[list[Program]] = []

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        self.rounds.append([p for p in programs if not p.checks])  # the harness programs these tests count
        # the background check (the spec's own well-formedness) verifies here: only the harness is scripted
        return {p: Result(Outcome.VERIFIED, RUN_FINISHED) if p.checks else self.answer(p) for p in programs}

    @staticmethod
    def answer(p: Program) -> Result:
        lines = p.text().splitlines()
        hint = next((n for n, text in enumerate(lines, 1) if text.startswith("  assert (set ")), None)
        if hint is not None:  # a hint Dafny does not resolve, as an untyped `[]` was
            return Result(Outcome.ERROR, f"batch.dfy({hint},10): Error: the type of this expression is underspecified")
        goal = next(n for n, text in enumerate(lines, 1) if text == "{" and n > len(p.prelude.splitlines()))
        if "assert false;" in p.method:
            return Result(Outcome.REFUTED, f"line {goal + 2}: assertion violation")
        rejection = "ensures !(" in p.method
        return Result(Outcome.REFUTED, f"line {goal}: postcondition violation") if rejection else Result(
            Outcome.VERIFIED)


def test_a_hint_that_does_not_resolve_is_dropped_and_the_case_asked_again() -> None:
    file = parse_file(SPEC, "spec.dfy")
    method = file.find("CountPos")
    assert method is not None
    case = TestCase("c1", "CountPos", (SeqV((IntV(3), IntV(-1))),), (IntV(1),), source="t.dfy", line=1)
    engine = ScriptedEngine()
    scores = score_methods([MethodJob(file, method, (case,))], engine, Dialect.DAFNY2,
                           ScoreOptions(mutants=0, pin=False, strategy=Strategy.EACH))
    (result,) = scores[0].cases
    assert result.status is CaseStatus.VERIFIED, result
    assert HINTS_DROPPED in result.note
    # the first round had the hint; every program asked after it has none
    assert any("assert (set " in p.method for p in engine.rounds[0])
    assert all("assert (set " not in p.method for r in engine.rounds[1:] for p in r) and len(engine.rounds) > 1


TYPED = """
function Cnt(s: seq<int>): int { |set i | 0 <= i < |s| && s[i] > 0| }
method M(xs: seq<seq<int>>) returns (r: int)
  ensures r == Cnt(xs[0])
  ensures forall t: seq<int> :: t in xs ==> |set i | 0 <= i < |t| && t[i] > 0| >= 0
  ensures forall t :: t in xs ==> |set i | 0 <= i < |t| && t[i] > 0| >= 0
"""


@pytest.mark.dafny
def test_typed_ground_facts_resolve_in_dafny_2_3(dafny_command: str, tmp_path: Path) -> None:
    """An empty value in a fact is written with its declared type (`|[]|` does not resolve); with no declared type
    (the last clause's `t`) no fact is made of it. Checked with the real Dafny 2.3."""
    file = parse_file(TYPED, "spec.dfy")
    method = file.find("M")
    assert method is not None
    env = {"xs": SeqV((SeqV(()), SeqV((IntV(1),)))), "r": IntV(0)}
    facts = ground_facts(file, method.clause_texts("ensures"), env, env,
                         {"xs": SeqT(SeqT(IntT())), "r": IntT()}).statements
    assert not any("|[]|" in f or "[][" in f for f in facts)
    assert any("(var SpecScore_empty: seq<int> := []; SpecScore_empty)" in f for f in facts)
    program = TYPED.split("method M")[0] + "method Check(xs: seq<seq<int>>)\n  requires xs == [[], [1]]\n{\n" + \
        "\n".join(facts) + "\n}\n"
    path = tmp_path / "facts.dfy"
    path.write_text(program, encoding="utf-8")
    done = subprocess.run([dafny_command, "/compile:0", "/nologo", str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and "0 errors" in done.stdout, (program, done.stdout)
