"""The audit of a spec collection without the task layout: every method of every `.dfy` file that states something
of its outputs is scored, with the tests found beside it (test methods in the file, `X.tests.toml`, ...) or on
every input alone when it has none (README "The `audit` command")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from bot.audit.dataset import TaskFiles
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.verdicts import verdict
from bot.dafny.dialect import Dialect
from bot.runner import build_jobs
from bot.symbolic.rounds import EngineLike, ScoreOptions
from bot.symbolic.suggest.search import Suggester, score_suggest_everywhere


def collection_results(
    files: Sequence[TaskFiles],
    root: Path,
    engine: EngineLike,
    dialect: Dialect,
    score: ScoreOptions,
    weak_below: float,
    labels: dict[str, tuple[Label, tuple[str, ...]]],
    on_phase: Callable[[str], None] | None = None,
    more: Suggester | None = None,
) -> list[TaskResult]:
    """One result per scored method (its id `FILE:METHOD`), and one per file that gave none (why, as its cause)."""
    built = build_jobs(root, [f.task_id for f in files], untested=True)
    scores = score_suggest_everywhere(built.jobs, engine, dialect, score, on_phase, more=more)
    results = []
    for job, s in zip(built.jobs, scores, strict=True):
        task_id = f"{job.display_path}:{job.method.qualified}"
        label, tags = labels.get(task_id, (Label.UNLABELED, ()))
        v, cause = verdict(s, weak_below)
        results.append(TaskResult(task_id, job.display_path, job.method.qualified, label, tags, v, cause, s,
                                  score.harness.real_tolerance, False))
    given = {job.display_path for job in built.jobs}
    for f in files:
        if f.task_id in given:
            continue
        why = next((e.split("\n")[0] for e in built.errors if e.startswith(f"{f.task_id}:")),
                   "no method states something of its outputs, and no test names one")
        label, tags = labels.get(f.task_id, (Label.UNLABELED, ()))
        results.append(TaskResult(f.task_id, f.task_id, "", label, tags, Verdict.INCONCLUSIVE,
                                  why.removeprefix(f"{f.task_id}: "), None, score.harness.real_tolerance, False))
    return results
