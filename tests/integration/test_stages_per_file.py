"""The questions after a spec file's rounds (its suggestions, what its specs say on every input) follow that file's
rounds as soon as they are over, on an engine that takes runs side by side: they fill the verifier slots another
file's last rounds leave idle, and the scores are those of the stages after every file's rounds. A scripted engine:
no verifier."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from integration.test_rounds_side_by_side import OPTIONS, WAIT, answer, jobs

from bot.dafny.dialect import Dialect
from bot.symbolic.everywhere import PREFIX
from bot.symbolic.program import Program, Result
from bot.symbolic.results import EverywhereStatus
from bot.symbolic.suggest.search import score_suggest_everywhere


class Engine:
    def __init__(self, concurrent: bool, hold_other: bool = False) -> None:
        self.concurrent = concurrent
        self.jobs = 2
        self.lock = threading.Lock()
        self.runs: list[tuple[str, str]] = []  # per run: the file it is of, and what it asks (rounds or every input)
        self.hold_other = hold_other  # the other file's rounds wait until the spec's questions on every input are asked
        self.spec_everywhere = threading.Event()

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        of = "other" if all("Other()" in p.prelude for p in programs) else \
            "spec" if not any("Other()" in p.prelude for p in programs) else "both"
        what = "every input" if all(p.name.startswith(PREFIX) for p in programs) else "rounds"
        with self.lock:
            self.runs.append((of, what))
            if (of, what) == ("spec", "every input"):
                self.spec_everywhere.set()
        if self.hold_other and (of, what) == ("other", "rounds"):
            assert self.spec_everywhere.wait(WAIT), "the spec's questions on every input waited for the other's rounds"
        return {p: answer(p) for p in programs}


def test_a_file_s_questions_on_every_input_do_not_wait_for_another_file_s_rounds() -> None:
    engine = Engine(concurrent=True, hold_other=True)
    phases: list[str] = []
    scores = score_suggest_everywhere(jobs(), engine, Dialect.DAFNY2, OPTIONS, on_phase=phases.append)
    assert [s.everywhere is not None and s.everywhere.status is not EverywhereStatus.UNKNOWN for s in scores] == \
        [True, True], [s.everywhere for s in scores]
    # the spec's questions were asked before the other file's first round; the other's after its own rounds
    assert engine.runs.index(("spec", "every input")) < engine.runs.index(("other", "rounds"))
    assert engine.runs[-1] == ("other", "every input")
    assert phases.count("every input") == 1  # a stage is shown once, when the first file reaches it


def test_the_stages_per_file_give_the_scores_of_the_stages_after_every_file() -> None:
    in_step = Engine(concurrent=False)
    side = Engine(concurrent=True)
    a = score_suggest_everywhere(jobs(), in_step, Dialect.DAFNY2, OPTIONS)
    b = score_suggest_everywhere(jobs(), side, Dialect.DAFNY2, OPTIONS)
    assert a == b
    # in step, the questions on every input come once, for both files, after both files' rounds
    assert in_step.runs[-1] == ("both", "every input")
    assert ("both", "every input") not in side.runs
