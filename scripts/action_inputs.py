"""Rewrite action.yml's `inputs:` and `runs.env` sections from the table of options (bot/options.py).

Run after adding or changing an option: `python3 scripts/action_inputs.py` (tests/unit/test_action_yml.py fails
while action.yml is out of date).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.github.action_yml import rewrite  # noqa: E402

ACTION = Path(__file__).resolve().parent.parent / "action.yml"


def main() -> int:
    old = ACTION.read_text(encoding="utf-8")
    new = rewrite(old)
    if new != old:
        ACTION.write_text(new, encoding="utf-8")
        print(f"rewrote {ACTION}")
    else:
        print(f"{ACTION} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
