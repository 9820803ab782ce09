"""SIGTERM handled as Ctrl-C is: `kill`, `timeout` and a container's stop send it, and Python's default for it ends the
process at once, with no `finally` and no exit handler run, so the verifier's server folders stayed behind (measured:
two `specscore-server-*` folders after `timeout 15 python3 -m bot audit ...`), and a process that is PID 1 in a
container (the Action's: a cancelled job sends it SIGINT, then SIGTERM 7.5 s later) ignores it until it is killed.
With `sigterm_as_interrupt`, the first SIGTERM raises `Terminated`, a KeyboardInterrupt, in the main thread: the
runs going on stop as for Ctrl-C (bot/symbolic/together.py), the verifier's processes are stopped and their folders
removed at exit, and the front end says so in one line.
A second SIGTERM meanwhile is let go, so that it cannot cut that cleanup short (SIGKILL still ends the process); so are
both signals once the process entry points call `exiting` (the exit handlers stop the verifier's processes).

A handler that does nothing, rather than SIG_IGN: an ignored signal stays ignored in every process started after it
(a server started then could not be stopped by SIGTERM), a caught one is reset by `exec`."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM."""


def _let_go(signum: int, frame: FrameType | None) -> None:
    """A stop that comes while the process already stops (see the module's docstring)."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, _let_go)  # one is enough: a second must not interrupt the cleanup
    raise Terminated


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()  # the only one Python lets set a handler


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises Terminated in the main thread; the handler before it is put back after,
    unless one came (then later ones are let go until the process ends). Elsewhere than in the main thread nothing
    changes."""
    if not _main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is _on_sigterm:
            signal.signal(signal.SIGTERM, before)


def exiting() -> None:
    """From here on, Ctrl-C and SIGTERM are let go: the process is about to exit, and its exit handlers stop the
    verifier's processes and remove their folders (an interrupt there would leave them, and could end the process
    with exit code 0). For the process entry points only, once their work is over."""
    if _main_thread():
        signal.signal(signal.SIGINT, _let_go)
        signal.signal(signal.SIGTERM, _let_go)


def stopped_by(e: KeyboardInterrupt) -> tuple[str, int]:
    """How an interrupt is reported: its word and the exit code."""
    return ("terminated", EXIT_TERMINATED) if isinstance(e, Terminated) else ("interrupted", EXIT_INTERRUPTED)


def as_a_process(work: Callable[[], int], say: Callable[[str], None]) -> int:
    """A process entry point's run of `work` (which loads the tool itself, so that a stop while it loads is one too):
    SIGTERM a stop from the first step, a stop that comes before `work`'s own handling said with `say(word)`, and
    every stop let go once it is over (`exiting`). The exit code."""
    with sigterm_as_interrupt():
        try:
            return work()
        except KeyboardInterrupt as e:
            word, code = stopped_by(e)
            say(word)
            return code
        finally:
            exiting()  # the exit handlers stop the verifier's processes: nothing cuts them short
