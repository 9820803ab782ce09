from __future__ import annotations

import sys

from bot.signals import exiting, sigterm_as_interrupt, stopped_by

with sigterm_as_interrupt():  # while the tool loads too
    try:
        from bot.cli import main

        code = main()
    except KeyboardInterrupt as e:  # before main's own handling of a stop
        word, code = stopped_by(e)
        print(word, file=sys.stderr)
    finally:
        exiting()  # the exit handlers stop the verifier's processes: nothing cuts them short
sys.exit(code)
