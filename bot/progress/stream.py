"""Progress on standard error: one live line on a terminal, a plain line every few seconds elsewhere (CI logs,
pipes). Never on standard output: the reports there are the same bytes with or without it."""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TextIO

from bot.progress.lines import ROUND_PHASES, MethodTally, Snapshot, Tally, audit_line, fit, score_line

Clock = Callable[[], float]

TTY_REDRAW = 0.2  # seconds between redraws of the live line (the verifier reports every batch)
SCORE_EVERY = 10.0  # seconds between plain lines of `score` and the Action
AUDIT_EVERY = 30.0  # seconds between plain lines of the audit (hours long: a short log)


def _columns(stream: TextIO) -> int:
    """The terminal's width: $COLUMNS, else that of the terminal `stream` writes to (standard output may be a
    file), else 80."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, io.UnsupportedOperation):
        return 80


class Ticker:
    """Writes lines to `stream`: on a terminal (`tty`), each over the last (carriage return, cut to `columns`);
    elsewhere, a line at most every `every` seconds, and the last line always."""

    def __init__(self, stream: TextIO, tty: bool, clock: Clock = time.monotonic, every: float = SCORE_EVERY,
                 columns: int = 0) -> None:
        self.stream = stream
        self.tty = tty
        self.clock = clock
        self.every = every
        self.columns = columns if columns > 0 else _columns(stream) if tty else 0
        self.last = clock()  # a plain line only once `every` seconds have passed since the start
        self.shown = 0  # length of the live line on the terminal (0: none)

    def show(self, text: str, final: bool = False) -> None:
        now = self.clock()
        if self.tty:
            if not final and self.shown and now - self.last < TTY_REDRAW:
                return
            if self.columns > 1:
                text = fit(text, self.columns - 1)
            self.stream.write("\r" + text + " " * max(0, self.shown - len(text)) + ("\n" if final else ""))
            self.shown = 0 if final else len(text)
        elif final or now - self.last >= self.every:
            self.stream.write(text + "\n")
        else:
            return
        self.last = now
        self.stream.flush()

    def close(self) -> None:
        """Ends the live line, when one is shown, so what follows starts on its own line."""
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = 0


class Live:
    """The run's progress, fed by its hooks: `programs` (the verifier's, per batch), `start` (each phase) and
    `round` (after each scoring round, and before the first); `end` writes the last line. The hooks come from the
    threads of runs side by side (bot/symbolic/together.py): each holds the lock, so that none loses another's
    update and the lines do not interleave."""

    def __init__(self, ticker: Ticker, draw: Callable[[Snapshot], str]) -> None:
        self.ticker = ticker
        self.draw = draw
        self.started = ticker.clock()
        self.snapshot = Snapshot()
        self.rounds = 0  # round phases started so far
        self.lock = threading.Lock()

    def _show(self, final: bool = False) -> None:
        self.snapshot = replace(self.snapshot, elapsed=self.ticker.clock() - self.started, final=final)
        self.ticker.show(self.draw(self.snapshot), final)

    def start(self, phase: str) -> None:
        with self.lock:
            # the rounds' count goes on past a phase after them: side by side, one file's questions after its rounds
            # may start before another file's next round (bot/symbolic/suggest/search.py, score_suggest_everywhere)
            self.rounds += phase in ROUND_PHASES
            number = self.rounds if phase in ROUND_PHASES else 0
            self.snapshot = replace(self.snapshot, phase=phase, round=number, programs=None)
            self._show()

    def programs(self, done: int, total: int) -> None:
        with self.lock:
            self.snapshot = replace(self.snapshot, programs=(done, total))
            self._show()

    def round(self, methods: Sequence[MethodTally]) -> None:
        with self.lock:
            self.snapshot = replace(self.snapshot, tally=Tally.of(methods))
            self._show()

    def end(self) -> None:
        """The last line, with the final counts; none when nothing was scored (the run says why)."""
        with self.lock:
            if self.snapshot.tally is None or not self.snapshot.tally.methods:
                self.ticker.close()
                return
            self._show(final=True)


def score_progress(stream: TextIO, clock: Clock = time.monotonic, columns: int = 0) -> Live:
    """`score` and the Action's pr mode; `columns`: the terminal's width (0: asked of the terminal)."""
    return Live(Ticker(stream, stream.isatty(), clock, SCORE_EVERY, columns), score_line)


def audit_progress(stream: TextIO, tasks: int, clock: Clock = time.monotonic, columns: int = 0) -> Live:
    """The audit: one bar over its `tasks`."""
    return Live(Ticker(stream, stream.isatty(), clock, AUDIT_EVERY, columns), lambda s: audit_line(s, tasks))
