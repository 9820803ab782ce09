"""Progress on standard error: a bar with ETA on a terminal, plain lines in CI logs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """Callable as `progress(done, total)` (the engine's progress hook), once per phase."""

    def __init__(self, stream: TextIO, tty: bool, clock: Callable[[], float] = time.monotonic, width: int = 30):
        self.stream = stream
        self.tty = tty
        self.clock = clock
        self.width = width
        self.phase = ""
        self.started = clock()
        self.last_line = -1.0
        self.last_pct = -1

    def start(self, phase: str) -> None:
        if self.tty and self.phase:
            self.stream.write("\n")
        self.phase = phase
        self.started = self.clock()
        self.last_pct = -1

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        elapsed = now - self.started
        eta = "" if done == 0 or done >= total else f", ETA {_duration(elapsed / done * (total - done))}"
        pct = 100 * done // total if total else 100
        if self.tty:
            filled = self.width * done // total if total else self.width
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.phase:8} [{bar}] {done}/{total} programs{eta}   ")
            if done >= total:
                self.stream.write("\n")
                self.phase = ""
        elif done >= total or pct // 10 > self.last_pct // 10 or now - self.last_line >= 30:
            # plain lines: every 10% or 30 s, so CI logs stay short
            self.stream.write(f"{self.phase}: {done}/{total} programs ({pct}%){eta}\n")
            self.last_line = now
            self.last_pct = pct
        self.stream.flush()
