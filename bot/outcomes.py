"""Outcomes of verifier runs and the programs they are about.

Pure data. "The tool could not decide" (TIMEOUT, ERROR) is kept apart from "the spec failed" (REFUTED).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import Enum


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


@dataclass(frozen=True)
class Program:
    """One harness method to verify, with the declarations it needs.

    `prelude` is shared by every program made from one spec file, so the engine can verify many
    programs as methods of one file; `method` is the harness method's full text and `name` its name.
    """

    prelude: str
    name: str
    method: str

    def text(self) -> str:
        return self.prelude.rstrip() + "\n\n" + self.method.strip() + "\n"

    def key(self, verifier_id: str) -> str:
        """Cache key: what was verified, by which verifier, with which flags."""
        h = hashlib.sha256()
        for part in (verifier_id, self.text()):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()
