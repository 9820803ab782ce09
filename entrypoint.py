"""The Action's entry point."""

from __future__ import annotations

import os
import sys

from bot.github.early import start_verifier_early

if __name__ == "__main__":
    start_verifier_early(os.environ)  # before the rest of the tool loads (bot/github/early.py)

from bot.github.action import main  # noqa: E402  (after the verifier's start)

if __name__ == "__main__":
    sys.exit(main())
