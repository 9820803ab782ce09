"""Outcomes of verifier runs and the programs they are about.

Pure data. "The tool could not decide" (TIMEOUT, ERROR) is kept apart from "the spec failed" (REFUTED).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from enum import Enum

MODEL_KEY_MARKER = b"want_model\0"
# A background check's result (Program.checks): one line per reported procedure, then whether the run finished
CHECK_LINE = re.compile(r"^check (?P<name>\S+): (?P<how>ok|not concluded|failed: (?P<why>.*))$")
RUN_FINISHED = "check-run: finished"
CHECKS_KEY_MARKER = b"checks\0"


class Outcome(Enum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    TIMEOUT = "timeout"
    ERROR = "error"

    @property
    def conclusive(self) -> bool:
        return self in (Outcome.VERIFIED, Outcome.REFUTED)


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    message: str = ""  # the verifier's words (errors, resolution messages), noise filtered out
    seconds: float = 0.0
    # The counterexample models of the failures (REFUTED only), for programs that asked (`want_model`):
    # the verifier's raw text, one model per failed assertion in the order of `message`'s errors; read
    # values out of it with bot.symbolic.counterexamples. Empty when not asked for or not available.
    model: str = field(default="", repr=False)


class ProgramKind(Enum):
    PRECONDITION = "precondition"  # do the inputs satisfy `requires`?
    VACUITY = "vacuity"  # are the assumptions contradictory? (`assert false` must fail)
    CORRECTNESS = "correctness"  # does the spec accept the expected output?
    MUTANT = "mutant"  # does the spec accept a wrong output?
    PIN = "pin"  # does the spec admit only the expected output? (a candidate other output, to confirm)
    DETERMINACY = "determinacy"  # does the spec determine its outputs on every input? (bot/symbolic/everywhere.py)
    SPEC_CHANGE = "spec-change"  # does one version's postcondition imply the other's? (bot/symbolic/spec_change.py)


class Goal(Enum):
    """What a program asks the verifier to prove about the spec and the concrete values."""

    ACCEPT = "accept"  # the clauses hold
    REJECT = "reject"  # their conjunction fails: `ensures !(E1 && ... && En)`
    REJECT_CLAUSE = "reject-clause"  # one clause fails: names the clause that rejects an output
    # one clause holds: when the whole postcondition times out, its clauses one by one (all proved: accepted)
    ACCEPT_CLAUSE = "accept-clause"
    ACCEPT_WITHIN = "accept-within"  # some real output within the tolerance is accepted
    REJECT_WITHIN = "reject-within"  # no real output within the tolerance is accepted
    PIN = "pin"  # every output the spec accepts is the expected one
    PIN_MULTISET = "pin-multiset"  # every output the spec accepts has the expected elements (any order)
    PIN_SET = "pin-set"  # every output the spec accepts has the expected set of elements (any multiplicity)


@dataclass(frozen=True)
class Program:
    """One harness method to verify, with the declarations it needs.

    `prelude` is shared by every program made from one spec file, so the engine can verify many
    programs as methods of one file; `method` is the harness method's full text and `name` its name.
    `want_model`: also return the counterexample models of its failures (`Result.model`).
    `time_limit`: seconds for this program when lower than the engine's (None: the engine's); for programs
    whose answer only adds a detail to a report (which clause, another accepted output), never a verdict.
    `checks`: declarations of the prelude to verify besides the method (the background check,
    bot/symbolic/background.py):
    the result stands for all of them and names each failing declaration (`name: message` lines).
    """

    prelude: str
    name: str
    method: str
    want_model: bool = False
    time_limit: int | None = None
    checks: tuple[str, ...] = ()
    kind: ProgramKind | None = None  # what it asks (a harness program; None: the background check)
    goal: Goal | None = None

    def text(self) -> str:
        return self.prelude.rstrip() + "\n\n" + self.method.strip() + "\n"

    def key(self, verifier_id: str) -> str:
        """Cache key: what was verified, by which verifier, with which flags."""
        h = hashlib.sha256()
        for part in (verifier_id, self.text()):
            h.update(part.encode())
            h.update(b"\0")
        if self.want_model:
            # only then: a program that wants no model keeps the key it always had
            h.update(MODEL_KEY_MARKER)
        if self.checks:
            h.update(CHECKS_KEY_MARKER)
            h.update("\0".join(self.checks).encode())
        return h.hexdigest()
