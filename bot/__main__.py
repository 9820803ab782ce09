from __future__ import annotations

import sys

from bot.signals import as_a_process


def _cli() -> int:
    from bot.cli import main  # loaded under the handler: a stop while the tool loads is one too

    return main()


sys.exit(as_a_process(_cli, lambda word: print(word, file=sys.stderr)))
