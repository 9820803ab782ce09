"""bot/symbolic/stages.py: the questions after the rounds, at once on an engine that takes runs side by side, else
one after the other."""

from __future__ import annotations

import contextvars
import threading

import pytest

from bot.symbolic.stages import run_stages

WAIT = 30.0


class Concurrent:
    concurrent = True


def test_on_an_engine_that_takes_runs_side_by_side_the_stages_go_at_once() -> None:
    both = threading.Barrier(2, timeout=WAIT)  # each stage waits for the other to have begun: at once, or broken
    done: list[str] = []
    phases: list[str] = []
    run_stages(Concurrent(), [("suggestions", lambda: (both.wait(), done.append("a"))[1]),
                              ("every input", lambda: (both.wait(), done.append("b"))[1])], phases.append)
    assert sorted(done) == ["a", "b"]
    assert phases == ["suggestions, every input"]


def test_elsewhere_one_after_the_other_each_phase_before_its_stage() -> None:
    seen: list[str] = []
    run_stages(object(), [("suggestions", lambda: seen.append("suggest")),
                          ("every input", lambda: seen.append("everywhere"))], seen.append)
    assert seen == ["suggestions", "suggest", "every input", "everywhere"]
    one: list[str] = []
    run_stages(Concurrent(), [("every input", lambda: one.append("alone"))], one.append)
    assert one == ["every input", "alone"]  # a single stage needs no thread


def test_a_stage_keeps_the_caller_s_context_and_its_failure_is_the_run_s() -> None:
    tag = contextvars.ContextVar("tag", default="none")
    tag.set("caller")
    seen: list[str] = []
    run_stages(Concurrent(), [("a", lambda: seen.append(tag.get())), ("b", lambda: seen.append(tag.get()))])
    assert seen == ["caller", "caller"]

    def fails() -> None:
        raise RuntimeError("stage broke")

    with pytest.raises(RuntimeError, match="stage broke"):
        run_stages(Concurrent(), [("a", lambda: None), ("b", fails)])
