"""SIGTERM handled as Ctrl-C (bot/signals.py): raised as Terminated in the main thread, once, then let go."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from bot.signals import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    as_a_process,
    exiting,
    sigterm_as_interrupt,
    stopped_by,
)


def test_a_sigterm_in_the_block_is_raised_once_then_ignored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(Terminated), sigterm_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs at the main thread's next bytecode
            for _ in range(1000):
                pass
        # the cleanup after it must not be cut short by a second one; caught, not SIG_IGN (which every process
        # started later would inherit)
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_IGN, signal.SIG_DFL, before)
        os.kill(os.getpid(), signal.SIGTERM)  # let go: this test goes on
        for _ in range(1000):
            pass
    finally:
        signal.signal(signal.SIGTERM, before)


def test_without_a_sigterm_the_handler_before_is_put_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with sigterm_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_outside_the_main_thread_nothing_changes() -> None:
    seen: list[object] = []

    def other() -> None:
        with sigterm_as_interrupt():
            seen.append(signal.getsignal(signal.SIGTERM))

    before = signal.getsignal(signal.SIGTERM)
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen == [before]


def test_how_an_interrupt_is_reported() -> None:
    assert stopped_by(Terminated()) == ("terminated", EXIT_TERMINATED) == ("terminated", 143)
    assert stopped_by(KeyboardInterrupt()) == ("interrupted", EXIT_INTERRUPTED) == ("interrupted", 130)


def test_once_exiting_neither_ctrl_c_nor_sigterm_stops_the_exit() -> None:
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        exiting()
        for sent in (signal.SIGINT, signal.SIGTERM):
            os.kill(os.getpid(), sent)  # neither raises nor ends this process
            for _ in range(1000):
                pass
            assert signal.getsignal(sent) not in (signal.SIG_IGN, signal.SIG_DFL)
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])


def test_an_entry_point_says_a_stop_before_its_work_handles_it_and_lets_the_exit_go() -> None:
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    said: list[str] = []

    def work() -> int:
        raise Terminated

    try:
        assert as_a_process(work, said.append) == EXIT_TERMINATED and said == ["terminated"]
        assert as_a_process(lambda: 3, said.append) == 3 and said == ["terminated"]
        assert signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.SIG_DFL, saved[0])
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])
