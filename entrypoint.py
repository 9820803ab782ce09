"""The Action's entry point."""

from __future__ import annotations

import os
import sys

from bot.signals import as_a_process


def _action() -> int:
    # a cancelled job's stop while the servers start, or the tool loads, is a stop too (bot/signals.py)
    from bot.github.early import start_verifier_early

    start_verifier_early(os.environ)  # before the rest of the tool loads (bot/github/early.py)
    from bot.github.action import main

    return main()


if __name__ == "__main__":
    sys.exit(as_a_process(_action, lambda word: print(f"::error::dafny-spec-score was {word} before it started",
                                                      flush=True)))
