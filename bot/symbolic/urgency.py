"""Which waiting batch takes the next free verifier slot: the stages after the rounds (bot/symbolic/stages.py) go side
by side, and the first of them to reach the engine took both slots while the one with the most round trips still to
make waited (a pull request's suggestion, rescored in two rounds and waiting 0.7 s behind one-round questions on
every input). A call's urgency is its stage's place in the list, lower first; everything else is 0. It orders who
waits, never what is asked: each program's answer is its own."""

from __future__ import annotations

import contextvars

URGENCY: contextvars.ContextVar[int] = contextvars.ContextVar("URGENCY", default=0)
