from __future__ import annotations

import io

from bot.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_terminal_bar_with_eta() -> None:
    out, clock = io.StringIO(), Clock()
    p = Progress(out, tty=True, clock=clock, width=10)
    p.start("cases")
    clock.t = 10.0
    p(25, 100)
    assert out.getvalue().endswith("\rcases    [##........] 25/100 programs, ETA 30s   ")
    p(100, 100)
    assert out.getvalue().endswith("100/100 programs   \n")


def test_plain_lines_every_ten_percent() -> None:
    out, clock = io.StringIO(), Clock()
    p = Progress(out, tty=False, clock=clock)
    p.start("mutants")
    for done in range(0, 101):
        clock.t = done / 10
        p(done, 100)
    lines = out.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1] == "mutants: 100/100 programs (100%)"
    assert lines[5].startswith("mutants: 50/100 programs (50%), ETA ")
    assert "\r" not in out.getvalue()
