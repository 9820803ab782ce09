"""The Action's entry point."""

from __future__ import annotations

import os
import sys

from bot.signals import exiting, sigterm_as_interrupt, stopped_by

if __name__ == "__main__":
    # from the first step: a cancelled job's stop while the servers start, or the tool loads, is a stop too
    with sigterm_as_interrupt():
        try:
            from bot.github.early import start_verifier_early

            start_verifier_early(os.environ)  # before the rest of the tool loads (bot/github/early.py)
            from bot.github.action import main

            code = main()
        except KeyboardInterrupt as e:  # before main's own handling of a stop
            word, code = stopped_by(e)
            print(f"::error::dafny-spec-score was {word} before it started", flush=True)
        finally:
            exiting()  # the exit handlers stop the verifier's processes: nothing cuts them short
    sys.exit(code)
