"""What one program proved: the verifier's outcome read against the program's own lines.

Pure code. A program proves its goal only when the verifier says `verified`. Any other outcome proves
nothing about the spec; what it is kept for is the reason: a failure on a line the tool wrote (a hint,
an input assumption) is the tool's fault, a failure on the goal is the spec's clause getting stuck.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from bot.symbolic.harness.programs import Planned
from bot.symbolic.program import Outcome, Result
from bot.symbolic.results import SPEC_ERROR


class Proof(Enum):
    PROVED = "proved"  # the goal holds under the inputs (and every hint was proved too)
    NOT_PROVED = "not-proved"  # the verifier failed on the goal: no proof either way
    HINT_FAULT = "hint-fault"  # a line the tool wrote failed: the program says nothing about the spec
    TIMEOUT = "timeout"
    ERROR = "error"  # resolution error or verifier crash: the program was not checked


@dataclass(frozen=True)
class Judged:
    proof: Proof
    message: str = ""  # the verifier's words, with generated line numbers replaced by clause text
    limits: tuple[str, ...] = ()  # bounds the hint generators hit
    hint_unresolved: bool = False  # ERROR: a line the tool wrote as a hint did not resolve (asked again without)

    @property
    def proved(self) -> bool:
        return self.proof is Proof.PROVED


_ERROR_LINE = re.compile(r"^line (\d+): ", re.MULTILINE)
_POSITION = re.compile(r"^\S*?\(\d+,\d+\): ", re.MULTILINE)
_LINE_REF = re.compile(r"(related location: )?\bline (\d+)(: )?")


def failure_lines(message: str) -> list[int]:
    """Lines of the program (as in Program.text()) where the verifier reported an error."""
    return [int(m.group(1)) for m in _ERROR_LINE.finditer(message)]


def clean_message(message: str) -> str:
    """Drop positions in the generated file: they depend on how programs were batched."""
    return _POSITION.sub("", message).strip()


def explain(message: str, planned: Planned) -> str:
    """Replace line numbers of the generated program by the clause (or hint) they point at.

    A user never sees the harness, so "line 13" means nothing; "ensures |r| == |s|" does.
    """
    lines = planned.program.text().splitlines()

    def sub(m: re.Match[str]) -> str:
        n = int(m.group(2))
        text = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        if text.startswith("forall") and " ensures " in text:  # a case-split hint restating a clause
            text = "ensures " + text.split(" ensures ", 1)[1].rstrip("{ ")
        if n in planned.hint_lines:
            text = "hint " + text
        elif not text.startswith(("ensures", "requires", "modifies", "assert ")) or "assert false" in text:
            return ""
        return f"`{' '.join(text.rstrip(';').split())}`" + (": " if m.group(3) else "")

    return " ".join(_LINE_REF.sub(sub, clean_message(message)).split()).replace("()", "").strip()


_RESOLUTION = re.compile(r"^batch\.dfy\((\d+),-?\d+\): Error(?: [A-Z]+\d+)?: (.*)$", re.MULTILINE)


def generated_lines(message: str, planned: Planned) -> str:
    """A resolution error inside the generated method is the tool's defect: quote the line it wrote.

    The engine bisects a failing batch down to the one program, so the position is the program's own.
    """
    lines = planned.program.text().splitlines()
    first = len(lines) - planned.program.method.strip().count("\n")  # the method's first line
    quoted = []
    for m in _RESOLUTION.finditer(message):
        n = int(m.group(1))
        if first <= n <= len(lines):
            quoted.append(f"{m.group(2)} (in the generated line `{lines[n - 1].strip()}`)")
        elif 0 < n < first and lines[n - 1].strip():
            # the prelude keeps the spec file's line numbers (bot/symbolic/harness/programs.py make_prelude): the
            # user's own line, said as such
            quoted.append(f"{SPEC_ERROR}line {n}: {m.group(2)} (`{' '.join(lines[n - 1].split())}`)")
    return "\n".join(quoted)



def judge(result: Result, planned: Planned) -> Judged:
    message = explain(result.message, planned)
    if result.outcome is Outcome.VERIFIED:
        return Judged(Proof.PROVED, "", planned.limits)
    if result.outcome is Outcome.ERROR:
        on_hints = any(int(m.group(1)) in planned.hint_lines for m in _RESOLUTION.finditer(result.message))
        return Judged(Proof.ERROR, generated_lines(result.message, planned) or message, planned.limits, on_hints)
    if result.outcome is Outcome.TIMEOUT:
        return Judged(Proof.TIMEOUT, message, planned.limits)
    if any(n not in planned.goal_lines for n in failure_lines(result.message)):
        # a hint, an input assumption or an assignment failed: the tool's fault, never the spec's
        return Judged(Proof.HINT_FAULT, message, planned.limits)
    return Judged(Proof.NOT_PROVED, message, planned.limits)
