"""The audit: choose each task's method and cases, score them all with one engine, give verdicts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.audit.collection import collection_results
from bot.audit.dataset import TaskFiles, read_json
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.verdicts import verdict
from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.dialect import Dialect
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.types import RealT
from bot.progress.lines import MethodTally
from bot.symbolic.rounds import EngineLike, MethodJob, ScoreOptions
from bot.symbolic.suggest.search import Suggester, score_suggest_everywhere
from bot.testcases.cases import ReadResult
from bot.testcases.dfy_methods import function_target, read_dfy_tests
from bot.testcases.discover import merge
from bot.testcases.mbpp_json import read_mbpp_json, spec_method_for

TEST_SOURCES = ("dfy", "json", "both")


@dataclass(frozen=True)
class AuditOptions:
    tests: str = "dfy"  # which test sources: dfy | json | both
    weak_below: float = 0.8
    collection: bool = False  # a spec collection without the task layout (bot/audit/collection.py)
    score: ScoreOptions = field(default_factory=ScoreOptions)


@dataclass(frozen=True)
class _Prepared:
    task: TaskFiles
    job: MethodJob | None
    cause: str  # why there is no job


def _load(path: Path, root: Path) -> DafnyFile:
    rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return parse_file(path.read_text(encoding="utf-8"), rel)


def _choose(spec: DafnyFile, dfy: ReadResult | None, json_method: Decl | None) -> Decl | None:
    if dfy is not None:
        counts: dict[str, int] = {}
        for c in dfy.cases:
            counts[c.method] = counts.get(c.method, 0) + 1
        for p in dfy.problems:
            if p.method:
                counts.setdefault(p.method, 0)
        ranked = sorted(counts, key=lambda name: -counts[name])
        for name in ranked:
            d = spec.find(name)
            if d is not None and d.kind == "method":
                return d
        if json_method is None:  # no method is tested: a function its tests call directly
            for name in ranked:
                d = spec.find(name)
                target = function_target(d) if d is not None else None
                if target is not None:
                    return target
    return json_method


def prepare_task(
    task: TaskFiles, root: Path, tests: str, json_data: object | None, json_path: Path | None, json_text: str
) -> _Prepared:
    try:
        spec = _load(task.spec, root)
    except (OSError, UnicodeDecodeError) as e:
        return _Prepared(task, None, f"unreadable spec file: {e}")
    except DafnyParseError as e:
        return _Prepared(task, None, f"spec does not parse: {e}")
    dfy: ReadResult | None = None
    if tests in ("dfy", "both") and task.test is not None:
        try:
            test_file = spec if task.test == task.spec else _load(task.test, root)
            dfy = read_dfy_tests(test_file)
        except (OSError, UnicodeDecodeError, DafnyParseError) as e:
            dfy = None
            if tests == "dfy":
                return _Prepared(task, None, f"test file does not parse: {e}")
    json_method = None
    if tests in ("json", "both") and json_data is not None:
        json_method = spec_method_for(spec, json_data, task.task_id)
    method = _choose(spec, dfy, json_method)
    if method is None:
        where = {"dfy": "in the test file", "json": "in the test JSON", "both": "in the test file or JSON"}[tests]
        return _Prepared(task, None, f"no method under test found {where}")
    reads: list[ReadResult] = []
    if dfy is not None and task.test is not None:
        test_file = spec if task.test == task.spec else _load(task.test, root)
        reads.append(read_dfy_tests(test_file, method))
    if tests in ("json", "both") and json_data is not None and json_path is not None:
        rel = str(json_path.relative_to(root)) if json_path.is_relative_to(root) else str(json_path)
        reads.append(read_mbpp_json(json_data, rel, task.task_id, method, json_text))
    read = merge(reads)
    job = MethodJob(spec, method, read.cases, read.problems, spec.path, include_root=root, spec_path=task.spec)
    return _Prepared(task, job, "")


def run_audit(
    tasks: Sequence[TaskFiles],
    root: Path,
    engine: EngineLike,
    dialect: Dialect,
    options: AuditOptions,
    labels: dict[str, tuple[Label, tuple[str, ...]]],
    json_path: Path | None = None,
    on_phase: Callable[[str], None] | None = None,
    more: Suggester | None = None,
    on_round: Callable[[list[MethodTally]], None] | None = None,
) -> list[TaskResult]:
    if options.collection:
        return collection_results(tasks, root, engine, dialect, options.score, options.weak_below, labels,
                                  on_phase, more)
    json_data = read_json(json_path) if json_path is not None and options.tests != "dfy" else None
    json_text = json_path.read_text(encoding="utf-8") if json_data is not None and json_path is not None else ""
    prepared = [prepare_task(t, root, options.tests, json_data, json_path, json_text) for t in tasks]
    jobs = [p.job for p in prepared if p.job is not None]
    # with what each spec says on every input
    scores = iter(score_suggest_everywhere(jobs, engine, dialect, options.score, on_phase, more=more,
                                           on_round=on_round))
    tolerance = options.score.harness.real_tolerance
    results = []
    for p in prepared:
        label, tags = labels.get(p.task.task_id, (Label.UNLABELED, ()))
        rel = str(p.task.spec.relative_to(root)) if p.task.spec.is_relative_to(root) else str(p.task.spec)
        if p.job is None:
            results.append(TaskResult(p.task.task_id, rel, "", label, tags, Verdict.INCONCLUSIVE, p.cause, None,
                                      tolerance, False))
            continue
        score = next(scores)
        v, cause = verdict(score, options.weak_below)
        real = any(isinstance(r.type, RealT) for r in p.job.method.returns)
        results.append(TaskResult(p.task.task_id, rel, p.job.method.qualified, label, tags, v, cause, score,
                                  tolerance, real and tolerance > 0))
    return results
