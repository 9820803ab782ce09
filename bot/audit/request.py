"""One audit as the CLI's `audit` command and the Action's `mode: audit` both run it.

`AuditRequest.of` reads the audit's options (the same fields in an argparse namespace and in a Config),
`prepare` finds the tasks, labels and test JSON and reads the baseline (raising AuditUsageError with what
to fix), `run` scores, `changes_since` compares with the baseline, and `write_reports` writes report.md,
results.json, results.csv, report.html and mutation-report.json (and changes.json with a baseline).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.audit.changes import (
    MAX_BASELINE_BYTES,
    BaselineError,
    Changes,
    changes_json,
    changes_md,
    compare,
    parse_baseline,
)
from bot.audit.dataset import (
    DatasetError,
    TaskFiles,
    find_json_tests,
    find_labels,
    find_spec_files,
    find_tasks,
    read_json,
)
from bot.audit.html_report import report_html
from bot.audit.labels import LabelFileError, read_labels
from bot.audit.model import Label, TaskResult
from bot.audit.mutation_report import render_mutation_report
from bot.audit.report import report_md, results_csv, results_json
from bot.audit.run import AuditOptions, run_audit
from bot.options import FailOn
from bot.progress.lines import MethodTally
from bot.runner import Verifier
from bot.settings import Settings
from bot.symbolic.rounds import Strategy
from bot.symbolic.suggest.search import Suggester
from bot.testcases.textfiles import read_regular

REPORT_FILES = ("report.md", "results.json", "results.csv", "report.html", "mutation-report.json")


class AuditUsageError(Exception):
    """Bad options or an unreadable dataset (exit code 2)."""


@dataclass(frozen=True)
class AuditRequest:
    root: Path
    tests: str  # dfy | json | both
    label_file: str  # "" finds one in the dataset, "none" for no labels
    json_file: str  # "" finds one in the dataset
    out: Path
    weak_below: float
    only: tuple[str, ...]
    shard: tuple[int, int] | None
    settings: Settings
    baseline: str = ""  # a previous run's results.json (under `base`); "" for none
    baseline_shown: str = ""  # the baseline as the options name it (what the reports show)
    fail_on: FailOn = FailOn.NEVER
    strategy: Strategy = Strategy.LEAN  # how many programs the rounds ask (the command line's --strategy)

    @staticmethod
    def of(values: Any, root: Path, settings: Settings, base: Path = Path(".")) -> AuditRequest:
        """From the audit's option fields (argparse namespace or Config) and the settings the front end built;
        relative paths are under `base`."""

        def under(text: str) -> str:
            return text if not text or text == "none" else str(base / text)

        return AuditRequest(root, values.audit_tests, under(values.audit_label_file), under(values.audit_json),
                            base / values.audit_out, values.weak_below, tuple(values.audit_only),
                            values.audit_shard, settings, under(values.audit_baseline),
                            values.audit_baseline, values.audit_fail_on)


@dataclass(frozen=True)
class AuditInputs:
    tasks: list[TaskFiles]
    labels: dict[str, tuple[Label, tuple[str, ...]]]
    labels_path: Path | None
    json_path: Path | None
    baseline: Mapping[str, Any] | None = None  # the baseline's results.json, checked
    collection: bool = False  # no task layout: one "task" per .dfy file, its methods scored apart


def prepare(req: AuditRequest) -> AuditInputs:
    collection = False
    try:
        tasks = find_tasks(req.root)
    except DatasetError as e:
        # no task layout: a spec collection (any .dfy files), each method scored with the tests beside it or on
        # every input alone
        try:
            tasks, collection = find_spec_files(req.root) if req.root.is_dir() else [], True
        except DatasetError as too_many:
            raise AuditUsageError(str(too_many)) from too_many
        if not tasks:
            raise AuditUsageError(f"{e}; nor any .dfy file") from e
        if req.tests != "dfy":
            raise AuditUsageError(f"--tests {req.tests}: {req.root} has no task files (task_id_N.dfy) for an "
                                  "MBPP-style JSON to name; a spec collection is read with --tests dfy") from e
    if req.only:
        unknown = sorted(set(req.only) - {t.task_id for t in tasks})
        if unknown:
            raise AuditUsageError(f"--only: no such task in {req.root}: {', '.join(unknown)}")
        tasks = [t for t in tasks if t.task_id in set(req.only)]
    if req.shard is not None:
        k, n = req.shard
        tasks = [t for i, t in enumerate(tasks) if i % n == k - 1]
    labels: dict[str, tuple[Label, tuple[str, ...]]] = {}
    labels_path = find_labels(req.root) if not req.label_file else None if req.label_file == "none" else Path(
        req.label_file)
    if labels_path is not None:
        try:
            labels = read_labels(read_json(labels_path), str(labels_path))
        except (DatasetError, LabelFileError) as e:
            raise AuditUsageError(str(e)) from e
    json_path = Path(req.json_file) if req.json_file else find_json_tests(req.root)
    if req.tests != "dfy" and json_path is None:
        raise AuditUsageError(f"--tests {req.tests}: no MBPP-style test JSON found in {req.root} (give --json FILE)")
    if req.tests != "dfy" and json_path is not None:
        try:
            read_json(json_path)  # unreadable: said now, before anything is verified
        except DatasetError as e:
            raise AuditUsageError(str(e)) from e
    baseline = read_baseline(Path(req.baseline), req.settings.seed) if req.baseline else None
    return AuditInputs(tasks, labels, labels_path, json_path if req.tests != "dfy" else None, baseline, collection)


def read_baseline(path: Path, seed: int) -> dict[str, Any]:
    """The baseline's results.json, checked (`parse_baseline`); raises AuditUsageError naming the file."""
    try:
        if path.stat().st_size > MAX_BASELINE_BYTES:
            raise BaselineError(f"larger than {MAX_BASELINE_BYTES} bytes: not a results.json of the audit")
        return parse_baseline(read_regular(path), seed)
    except BaselineError as e:
        raise AuditUsageError(f"baseline {path}: {e}") from e
    except OSError as e:
        raise AuditUsageError(f"baseline {path}: cannot read it: {e.strerror or e}") from e


def changes_since(req: AuditRequest, inputs: AuditInputs, results: list[TaskResult],
                  settings: Mapping[str, object]) -> Changes | None:
    """What changed since the baseline (None without one): both sides as results.json has them."""
    if inputs.baseline is None:
        return None
    try:
        return compare(inputs.baseline, json.loads(results_json(results, settings)), req.baseline_shown)
    except BaselineError as e:  # parse_baseline checked schema and seed already: a defect if it happens
        raise AuditUsageError(f"baseline {req.baseline}: {e}") from e


def run(req: AuditRequest, inputs: AuditInputs, verifier: Verifier,
        on_phase: Callable[[str], None] | None = None,
        more: Suggester | None = None,
        on_round: Callable[[list[MethodTally]], None] | None = None) -> tuple[list[TaskResult], dict[str, object]]:
    """The task results and the settings block every report carries; `more`: an external suggester's
    candidates for weak specs (the command line's `--suggester`)."""
    options = AuditOptions(tests=req.tests, weak_below=req.weak_below, score=req.settings.score_options(req.strategy),
                           collection=inputs.collection)
    results = run_audit(inputs.tasks, req.root, verifier.engine, verifier.dialect, options, inputs.labels,
                        inputs.json_path, on_phase=on_phase, more=more, on_round=on_round)
    settings: dict[str, object] = {**req.settings.report(), "weak_below": req.weak_below, "tests": req.tests,
                                   "verifier": verifier.info.version}
    return results, settings


def report_markdown(results: list[TaskResult], settings: Mapping[str, object], changes: Changes | None) -> str:
    """report.md: the report, with the changes since the baseline (when there is one) as its first section,
    right after the title and settings lines."""
    text = report_md(results, settings)
    if changes is None:
        return text
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    return "\n".join([*lines[:first], *changes_md(changes), *lines[first:]])


def report_texts(results: list[TaskResult], settings: dict[str, object], *, root: Path,
                 changes: Changes | None = None) -> dict[str, str]:
    """Each report file's name and text: REPORT_FILES, and changes.json when there are `changes`.
    `root`: the dataset root, where the spec sources mutation-report.json carries are read."""
    texts = {"report.md": report_markdown(results, settings, changes), "results.json": results_json(results, settings),
             "results.csv": results_csv(results), "report.html": report_html(results, settings),
             "mutation-report.json": render_mutation_report(results, spec_sources(root, results), settings)}
    if changes is not None:
        texts["changes.json"] = changes_json(changes)
    return texts


def write_reports(out: Path, results: list[TaskResult], settings: dict[str, object],
                  write: Callable[[Path, str], None] | None = None, *, root: Path,
                  changes: Changes | None = None) -> None:
    """The report files (`report_texts`); raises OSError. `write` replaces plain writing (the Action's confined
    one)."""
    texts = report_texts(results, settings, root=root, changes=changes)
    out.mkdir(parents=True, exist_ok=True)
    for name in texts:
        if write is not None:
            write(out / name, texts[name])
        else:
            (out / name).write_text(texts[name], encoding="utf-8")


def spec_sources(root: Path, results: list[TaskResult]) -> dict[str, str]:
    """Each spec file's and test file's text (TaskResult.file and CaseResult.source are relative to `root`); ""
    for one that cannot be read or that leads outside `root`."""
    out: dict[str, str] = {}
    inside = root.resolve()
    for path in [p for r in results for p in (r.file, *(c.source for c in (r.score.cases if r.score else ())))]:
        if path in out or not path:
            continue
        try:
            full = (root / path).resolve()
            out[path] = full.read_text(encoding="utf-8") if full.is_relative_to(inside) else ""
        except (OSError, UnicodeDecodeError, ValueError):
            out[path] = ""
    return out
