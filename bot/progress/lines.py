"""What a progress line says: the counts the scoring rounds know, and their text. Pure: no clock, no stream."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# the scoring rounds' phases (bot/symbolic/rounds.py, score_methods); any other phase runs after them
ROUND_PHASES = ("cases", "rejections", "mutants", "survivors", "last")


@dataclass(frozen=True)
class MethodTally:
    """One scored method as the rounds know it after a round: its cases, those finished (the case's verdict and its
    mutants' are final), and of those the ones that reject the test (refuted, or inputs its `requires` is proved
    to reject) and the mutants killed and survived."""

    file: str
    cases: int
    finished: int = 0
    rejecting: int = 0
    killed: int = 0
    survived: int = 0

    @property
    def done(self) -> bool:
        return self.finished >= self.cases


@dataclass(frozen=True)
class Tally:
    """The methods' tallies summed: a file is done when all its methods are."""

    files: int = 0
    files_done: int = 0
    methods: int = 0
    methods_done: int = 0
    cases: int = 0
    finished: int = 0
    rejecting: int = 0  # cases finished that reject the test
    wrong: int = 0  # methods with such a case: proved wrong, whatever their other cases say
    killed: int = 0
    survived: int = 0
    progress: float = 0.0  # the share of the methods' cases finished, each method weighing the same (0 to 1)

    @staticmethod
    def of(methods: Sequence[MethodTally]) -> Tally:
        files: dict[str, bool] = {}
        for m in methods:
            files[m.file] = files.get(m.file, True) and m.done
        share = sum(1.0 if m.done else m.finished / m.cases for m in methods)
        return Tally(
            files=len(files),
            files_done=sum(files.values()),
            methods=len(methods),
            methods_done=sum(m.done for m in methods),
            cases=sum(m.cases for m in methods),
            finished=sum(m.finished for m in methods),
            rejecting=sum(m.rejecting for m in methods),
            wrong=sum(m.rejecting > 0 for m in methods),
            killed=sum(m.killed for m in methods),
            survived=sum(m.survived for m in methods),
            progress=share / len(methods) if methods else 1.0,
        )


@dataclass(frozen=True)
class Snapshot:
    """Everything a line is drawn from: the tally after the last round, the phase running (its number among the
    rounds, 0 for a phase after them) and its programs verified so far, and the time since the start."""

    tally: Tally | None = None  # None before the first round: nothing is counted yet
    phase: str = ""
    round: int = 0
    programs: tuple[int, int] | None = None  # (done, total) of the verifier's current run
    elapsed: float = 0.0
    final: bool = False


def duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}h{s // 60 % 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def _phase(s: Snapshot) -> str:
    if not s.phase or s.final:
        return ""
    name = f"round {s.round} ({s.phase})" if s.round else s.phase
    return f"{name} {s.programs[0]}/{s.programs[1]} programs" if s.programs else name


def _mutants(t: Tally) -> str:
    return f"mutants {t.killed} killed, {t.survived} survived"


def score_line(s: Snapshot) -> str:
    """`score` and the Action's pr mode: the time, files and methods done, cases done, mutants killed and survived,
    and the programs of the phase running (last: a narrow terminal drops it first, see `fit`)."""
    t = s.tally or Tally()
    rejecting = f", {t.rejecting} rejecting the test" if t.rejecting else ""
    head = f"score done in {duration(s.elapsed)}" if s.final else f"score {duration(s.elapsed)}"
    parts = [f"{head}: {t.methods_done}/{t.methods} methods, {t.files_done}/{t.files} files done",
             f"{t.finished}/{t.cases} cases done{rejecting}", _mutants(t), _phase(s)]
    return "; ".join(p for p in parts if p)


def eta(s: Snapshot) -> str:
    """The time left during the rounds, from the share of the work done: the share of the cases done, every task
    weighing the same. "" when nothing says: before any case is done, and after the rounds (the suggestions and
    the proofs over every input ask as many programs as they find to ask)."""
    share = s.tally.progress if s.tally is not None else 0.0
    if s.final or share <= 0.0 or share >= 1.0:
        return ""
    return f"ETA ~{duration(s.elapsed * (1 - share) / share)}"


def bar(done: int, total: int, width: int) -> str:
    filled = width * done // total if total else width
    return "[" + "#" * filled + "." * (width - filled) + "]"


def audit_line(s: Snapshot, tasks: int, width: int = 20) -> str:
    """The audit: one bar over its `tasks` (settled: every case done, or nothing to score), with the overall ETA and
    the verdicts known so far. A task with a case that rejects the test is proved wrong; the others' verdicts need
    their whole score, so they come at the end."""
    t = s.tally or Tally()
    # a task is a spec file (one method each, or a collection's file of methods); one without a method to score
    # (unreadable, nothing tested) is inconclusive from the start
    unscored = max(0, tasks - t.files) if s.tally is not None else 0
    settled = min(tasks, unscored + t.files_done)
    known = [f"{n} {word}" for n, word in ((t.wrong, "wrong"), (unscored, "inconclusive")) if n]
    time = ", ".join(p for p in (f"done in {duration(s.elapsed)}" if s.final else duration(s.elapsed), eta(s)) if p)
    parts = [f"audit {bar(settled, tasks, width)} {settled}/{tasks} tasks settled, {time}",
             f"{', '.join(known)} so far" if known and not s.final else "",
             f"{t.finished}/{t.cases} cases done", _mutants(t), _phase(s)]
    return "; ".join(p for p in parts if p)


def fit(text: str, width: int) -> str:
    """`text` within `width` characters for a terminal line (a wrapped one is not overwritten): whole `; ` parts
    dropped from the end, the first cut if it alone is too long."""
    parts = text.split("; ")
    while len(parts) > 1 and len("; ".join(parts)) > width:
        parts.pop()
    return "; ".join(parts)[:width]
