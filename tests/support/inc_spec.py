"""The strong spec of `Inc` that the scripted-engine tests of the rounds score: it accepts x + 1 and rejects every
other output (the scripted answers of tests/integration/test_rounds.py say why), and the answers and cases those
tests share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.rounds import MethodJob
from bot.testcases.cases import TestCase

Answer = Callable[[Program], Result]

INC_SPEC = """
method Inc(x: int) returns (r: int)
  requires x >= 0
  ensures r > x
  ensures r == x + 1
{
  r := x + 1;
}
"""


def is_rejection(p: Program) -> bool:
    return "ensures !(" in p.method or "ensures (" in p.method and "==> !(" in p.method


def vacuity(p: Program) -> bool:
    return "assert false;" in p.method


def goal_line(p: Program) -> int:
    """The line of the program's opening brace, where a failed postcondition is reported."""
    lines = p.text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line == "{" and i > len(p.prelude.splitlines()))


def refuted_goal(p: Program) -> Result:
    return Result(Outcome.REFUTED, f"line {goal_line(p)}: postcondition violation")


def job(*cases: TestCase) -> MethodJob:
    file = parse_file(INC_SPEC, "inc.dfy")
    method = file.find("Inc")
    assert method is not None
    return MethodJob(file, method, cases)


def case(name: str, x: int, r: int) -> TestCase:
    return TestCase(name, "Inc", (IntV(x),), (IntV(r),), source="t.dfy", line=1)


def inc_answer(seconds: float, pin: Outcome = Outcome.REFUTED) -> Answer:
    """Inc's programs as the verifier answers them for r == x + 1, each taking `seconds`; exact pin checks `pin`."""
    def answer(p: Program) -> Result:
        if p.want_model:  # an exact pin check
            return replace(refuted_goal(p) if pin is Outcome.REFUTED else Result(pin), seconds=seconds)
        if vacuity(p):
            return replace(refuted_goal(p), seconds=seconds)
        right = "returns" not in p.method or "r := 6;" in p.method or "r := 10;" in p.method
        proved = is_rejection(p) != right
        return replace(Result(Outcome.VERIFIED) if proved else refuted_goal(p), seconds=seconds)
    return answer
