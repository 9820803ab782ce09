"""The Action's entry point."""

from __future__ import annotations

import sys

from bot.github.action import main

if __name__ == "__main__":
    sys.exit(main())
