"""Progress on standard error: what a line says (pure), and how often it is written (a fake clock, a StringIO)."""

from __future__ import annotations

import io

from bot.progress import MethodTally, Snapshot, Tally, Ticker, audit_line, audit_progress, score_line, score_progress
from bot.progress.lines import eta, fit


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class TTYStringIO(io.StringIO):
    def isatty(self) -> bool:
        return True


METHODS = [
    MethodTally("a.dfy", cases=2, finished=2, rejecting=1, killed=3, survived=1),
    MethodTally("a.dfy", cases=4, finished=1, killed=2),
    MethodTally("b.dfy", cases=0),  # nothing to verify: done from the start
]


def test_tally_counts_files_and_methods_done() -> None:
    t = Tally.of(METHODS)
    assert (t.files, t.files_done, t.methods, t.methods_done) == (2, 1, 3, 2)
    assert (t.cases, t.finished, t.rejecting, t.wrong, t.killed, t.survived) == (6, 3, 1, 1, 5, 1)
    assert t.progress == (1 + 0.25 + 1) / 3
    assert Tally.of([]).methods == 0


def test_score_line_says_files_methods_cases_and_mutants() -> None:
    s = Snapshot(Tally.of(METHODS), "mutants", 3, (10, 25), 12.4)
    assert score_line(s) == ("score 12s: 2/3 methods, 1/2 files done; 3/6 cases done, 1 rejecting the test; "
                             "mutants 5 killed, 1 survived; round 3 (mutants) 10/25 programs")
    done = Snapshot(Tally.of(METHODS[:1]), "every input", 0, (4, 4), 75, final=True)
    assert score_line(done) == ("score done in 1m15s: 1/1 methods, 1/1 files done; 2/2 cases done, 1 rejecting the "
                                "test; mutants 3 killed, 1 survived")


def test_a_narrow_terminal_drops_whole_parts_from_the_end() -> None:
    line = "score 12s: 2/3 methods; 3/6 cases done; mutants 5 killed"
    assert fit(line, 80) == line
    assert fit(line, 38) == "score 12s: 2/3 methods; 3/6 cases done"
    assert fit(line, 37) == "score 12s: 2/3 methods"
    assert fit(line, 10) == "score 12s:"


def test_eta_is_overall_during_the_rounds_and_absent_when_nothing_says() -> None:
    t = Tally.of(METHODS)  # 0.75 of the work: a third as long again
    assert eta(Snapshot(t, "mutants", 3, (0, 100), 90.0)) == "ETA ~30s"
    assert eta(Snapshot(Tally.of([MethodTally("a.dfy", 3)]), "cases", 1, (50, 100), 90.0)) == ""
    # after the rounds nothing says how many programs are still to come
    assert eta(Snapshot(Tally.of(METHODS[:1]), "suggestions", 0, (10, 40), 30.0)) == ""
    assert eta(Snapshot(t, "mutants", 3, (0, 100), 90.0, final=True)) == ""


def test_audit_line_is_one_bar_over_tasks_with_the_verdicts_known() -> None:
    # 5 tasks: 3 scored methods, one a task, and 2 tasks with nothing to score (inconclusive from the start)
    tasks = [MethodTally(f"task_id_{k}.dfy", m.cases, m.finished, m.rejecting, m.killed, m.survived)
             for k, m in enumerate(METHODS)]
    s = Snapshot(Tally.of(tasks), "rejections", 2, (7, 9), 60.0)
    assert audit_line(s, 5, width=10) == (
        "audit [########..] 4/5 tasks settled, 1m00s, ETA ~20s; 1 wrong, 2 inconclusive so far; 3/6 cases done; "
        "mutants 5 killed, 1 survived; round 2 (rejections) 7/9 programs")
    # before the first round: nothing counted, no verdict claimed
    assert audit_line(Snapshot(), 5, width=10) == ("audit [..........] 0/5 tasks settled, 0s; 0/0 cases done; "
                                                  "mutants 0 killed, 0 survived")
    # a collection: a task is a spec file of methods, settled once all of them are done
    collection = audit_line(Snapshot(Tally.of(METHODS), "cases", 1, None, 1.0), 3, width=3)
    assert collection.startswith("audit [##.] 2/3 tasks settled, 1s, ETA ~0s; 1 wrong, 1 inconclusive so far; ")


def test_terminal_line_is_redrawn_in_place_and_cut_to_the_width() -> None:
    out, clock = TTYStringIO(), Clock()
    t = Ticker(out, tty=True, clock=clock, columns=21)
    t.show("a long line; of progress text")
    assert out.getvalue() == "\ra long line"
    clock.t = 0.1
    t.show("dropped: too soon")  # redraws at most every 0.2 s
    clock.t = 1.0
    t.show("short")
    assert out.getvalue().endswith("\rshort" + " " * 6)  # the longer line before is blanked out
    t.show("last", final=True)  # the last line always, at once
    assert out.getvalue().endswith("\rlast" + " " + "\n")
    assert "dropped" not in out.getvalue()


def test_plain_lines_at_most_every_ten_seconds_and_at_the_end() -> None:
    out, clock = io.StringIO(), Clock()
    live = score_progress(out, clock)
    live.round(METHODS)
    live.start("cases")
    for k in range(1, 3501):  # 35 s of updates, one every 10 ms: no flood
        clock.t = k / 100
        live.programs(k, 3500)
    live.end()
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and "\r" not in out.getvalue()
    assert [line.split(": ", 1)[0] for line in lines] == ["score 10s", "score 20s", "score 30s", "score done in 35s"]
    assert lines[0] == ("score 10s: 2/3 methods, 1/2 files done; 3/6 cases done, 1 rejecting the test; mutants 5 "
                        "killed, 1 survived; round 1 (cases) 1000/3500 programs")


def test_a_short_run_writes_one_line_and_nothing_scored_writes_none() -> None:
    out, clock = io.StringIO(), Clock()
    live = score_progress(out, clock)
    live.round(METHODS[:1])
    live.start("cases")
    live.programs(3, 3)
    clock.t = 4.0
    live.end()
    assert out.getvalue().count("\n") == 1 and out.getvalue().startswith("score done in 4s: 1/1 methods")
    quiet = io.StringIO()
    nothing = score_progress(quiet, Clock())
    nothing.round([])
    nothing.end()
    assert quiet.getvalue() == ""


def test_phases_number_the_rounds_and_name_what_follows() -> None:
    out, clock = TTYStringIO(), Clock()
    live = score_progress(out, clock, columns=200)
    live.round(METHODS)
    for k, phase in enumerate(("cases", "rejections", "mutants", "survivors", "last", "last", "suggestions")):
        clock.t = float(k)
        live.start(phase)
        clock.t += 0.5
        live.programs(1, 2)
    drawn = out.getvalue().split("\r")
    assert any("round 6 (last) 1/2 programs" in d for d in drawn)
    assert "; suggestions 1/2 programs" in drawn[-1] and "round 7" not in out.getvalue()


def test_a_round_after_a_phase_that_follows_the_rounds_keeps_its_number() -> None:
    # side by side, one file's questions after its rounds start before another file's next round
    out, clock = TTYStringIO(), Clock()
    live = score_progress(out, clock, columns=200)
    live.round(METHODS)
    for k, phase in enumerate(("cases", "rejections", "every input", "mutants")):
        clock.t = float(k)
        live.start(phase)
        clock.t += 0.5
        live.programs(1, 2)
    assert "round 3 (mutants) 1/2 programs" in out.getvalue().split("\r")[-1], out.getvalue()


def test_audit_progress_is_one_bar_that_never_restarts() -> None:
    out, clock = TTYStringIO(), Clock()
    live = audit_progress(out, tasks=4, clock=clock, columns=200)
    live.round([MethodTally("a.dfy", 2), MethodTally("b.dfy", 2)])
    settled = []
    for k, phase in enumerate(("cases", "rejections", "mutants")):
        clock.t = 10.0 * (k + 1)
        live.start(phase)
        live.programs(0, 4)
        clock.t += 5.0
        live.round([MethodTally("a.dfy", 2, min(2, k + 1)), MethodTally("b.dfy", 2, k)])
        settled.append(out.getvalue().rsplit("\r", 1)[1].split(" tasks settled")[0])
    live.end()
    assert settled == ["audit [##########..........] 2/4", "audit [###############.....] 3/4",
                       "audit [####################] 4/4"]
    assert out.getvalue().endswith("\n") and out.getvalue().count("\n") == 1
    assert "ETA ~" in out.getvalue()
