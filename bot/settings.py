"""How a run scores, as one object: what the CLI's flags and the Action's inputs both become.

`score_options()` is what the pipeline needs, `report()` what every report records (so a report says
how it was made, tolerance included). Pure code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.harness import HarnessOptions
from bot.options import AUDIT_TOLERANCE
from bot.pipeline import ScoreOptions


@dataclass(frozen=True)
class Settings:
    mutants: int = 5
    seed: int = 0
    time_limit: int = 20
    tolerance: float = 0.0
    pin: bool = True
    jobs: int | None = None  # None: one verifier process per available core
    server: bool = True  # Dafny 2.x: one kept-alive verifier per worker instead of a process per batch (same results)

    @staticmethod
    def of(values: Any, audit: bool = False) -> Settings:
        """From anything with the option fields (an argparse namespace, a Config); an empty tolerance is
        the command's default."""
        tolerance = values.tolerance
        if tolerance is None:
            tolerance = AUDIT_TOLERANCE if audit else 0.0
        return Settings(values.mutants, values.seed, values.time_limit, tolerance, values.pin, values.jobs,
                        values.server)

    def score_options(self) -> ScoreOptions:
        return ScoreOptions(self.mutants, self.seed, HarnessOptions(real_tolerance=self.tolerance), pin=self.pin)

    def report(self) -> dict[str, Any]:
        """The settings block of the reports (jobs and server change no result, so they are left out)."""
        return {"mutants": self.mutants, "seed": self.seed, "time_limit": self.time_limit,
                "tolerance": self.tolerance, "pin": self.pin}
