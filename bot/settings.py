"""How a run scores, as one object: what the CLI's flags and the Action's inputs both become.

Each front end builds a `SettingsOverlay` of the values it was given, once, and lays it over the mode's defaults
(`Settings.defaults(audit).overlay(given)`). `score_options()` is what the rounds need, `report()` what every
report records (so a report says how it was made, tolerance included). Pure code.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields, replace
from typing import Any

from bot.options import AUDIT_TOLERANCE
from bot.symbolic.harness.programs import HarnessOptions
from bot.symbolic.rounds import FIRST_ACCEPT_SECONDS, METHOD_BUDGET_LIMITS, ScoreOptions, Strategy


@dataclass(frozen=True)
class SettingsOverlay:
    """Option values a front end was given; None: not given, the default stands."""

    mutants: int | None = None
    seed: int | None = None
    time_limit: int | None = None
    tolerance: float | None = None
    pin: bool | None = None
    jobs: int | None = None
    server: bool | None = None
    suggest: bool | None = None

    @staticmethod
    def of_command_line(args: argparse.Namespace) -> SettingsOverlay:
        """What the command line states (its parser gives every option field, None where not given)."""
        return SettingsOverlay(mutants=args.mutants, seed=args.seed, time_limit=args.time_limit,
                               tolerance=args.tolerance, pin=args.pin, jobs=args.jobs, server=args.server,
                               suggest=args.suggest)


@dataclass(frozen=True)
class Settings:
    mutants: int = 5
    seed: int = 0
    time_limit: int = 20
    tolerance: float = 0.0
    pin: bool = True
    jobs: int | None = None  # None: one verifier process per available core
    server: bool = True  # Dafny 2.x: one kept-alive verifier per worker instead of a process per batch (same results)
    suggest: bool = True  # verified strengthening suggestions for weak specs

    @staticmethod
    def defaults(audit: bool = False) -> Settings:
        """The defaults of a mode: an audit compares reals within AUDIT_TOLERANCE, a score exactly."""
        return Settings(tolerance=AUDIT_TOLERANCE if audit else 0.0)

    def overlay(self, given: SettingsOverlay) -> Settings:
        """These settings with every value `given` states in place of its own."""
        stated = {f.name: getattr(given, f.name) for f in fields(given) if getattr(given, f.name) is not None}
        return replace(self, **stated)

    def score_options(self, strategy: Strategy = Strategy.LEAN) -> ScoreOptions:
        # a first limit at or over the full one would only ask the same question twice
        first = FIRST_ACCEPT_SECONDS if self.time_limit > FIRST_ACCEPT_SECONDS else None
        return ScoreOptions(self.mutants, self.seed, HarnessOptions(real_tolerance=self.tolerance), pin=self.pin,
                            suggest=self.suggest, strategy=strategy, first_limit=first,
                            budget=METHOD_BUDGET_LIMITS * self.time_limit)

    def report(self) -> dict[str, Any]:
        """The settings block of the reports (jobs and server change no result, so they are left out)."""
        return {"mutants": self.mutants, "seed": self.seed, "time_limit": self.time_limit,
                "tolerance": self.tolerance, "pin": self.pin, "suggest": self.suggest}
