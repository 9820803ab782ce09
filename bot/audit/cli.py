"""`python -m bot audit DATASET_ROOT`: glue between the command line, the dataset and the engine."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from bot.audit.dataset import DatasetError, find_json_tests, find_labels, find_tasks, read_json
from bot.audit.labels import LabelFileError, read_labels
from bot.audit.model import Label, Verdict
from bot.audit.report import report_md, results_csv, results_json
from bot.audit.run import TEST_SOURCES, AuditOptions, run_audit
from bot.harness import HarnessOptions
from bot.pipeline import ScoreOptions
from bot.progress import Progress


class AuditUsageError(Exception):
    """Bad arguments or an unreadable dataset (exit code 2)."""


def add_audit_parser(sub: Any, add_run_options: Any) -> None:
    p = sub.add_parser("audit", help="score a labelled spec dataset (MBPP-DFY layout) and report disagreements")
    p.add_argument("root", metavar="DATASET_ROOT")
    p.add_argument("--tests", choices=TEST_SOURCES, default="dfy", help="test sources: dfy files, JSON, or both")
    p.add_argument("--labels", default=None, help="tagged review JSON (default: a *tagged*.json in the dataset; "
                   "'none' for no labels)")
    p.add_argument("--json", dest="json_tests", default=None,
                   help="MBPP-style test JSON (default: found in the dataset)")
    p.add_argument("--out", default="audit-out", help="output folder (default: audit-out)")
    p.add_argument("--weak-below", type=float, default=0.8, help="completeness below this is weak (default 0.8)")
    p.add_argument("--only", default=None, help="comma-separated task ids to audit")
    p.add_argument("--shard", default=None, metavar="K/N",
                   help="audit only shard K of N (tasks in id order, every N-th from the K-th); merge shards by "
                        "running once more without --shard over their combined caches")
    add_run_options(p, tolerance=1e-3)


def _shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise AuditUsageError(f"--shard {text}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return int(k), int(n)


def _out_folder(text: str) -> Path:
    """`--out DIR`, created now (before any verifying), so an unwritable place fails at once; raises
    AuditUsageError."""
    out = Path(text)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise AuditUsageError(f"--out {text}: cannot create the output folder: {e.strerror or e}") from e
    if not os.access(out, os.W_OK):
        raise AuditUsageError(f"--out {text}: the output folder is not writable")
    return out


def cmd_audit(args: argparse.Namespace, make_engine: Any, dialect_for: Any) -> int:
    root = Path(args.root)
    try:
        tasks = find_tasks(root)
    except DatasetError as e:
        raise AuditUsageError(str(e)) from e
    if args.only:
        wanted = {t.strip() for t in args.only.split(",") if t.strip()}
        unknown = sorted(wanted - {t.task_id for t in tasks})
        if unknown:
            raise AuditUsageError(f"--only: no such task in {root}: {', '.join(unknown)}")
        tasks = [t for t in tasks if t.task_id in wanted]
    if args.shard:
        tasks = [t for i, t in enumerate(tasks) if i % _shard(args.shard)[1] == _shard(args.shard)[0] - 1]
    labels: dict[str, tuple[Label, tuple[str, ...]]] = {}
    labels_path = None if args.labels == "none" else Path(args.labels) if args.labels else find_labels(root)
    if labels_path is not None:
        try:
            labels = read_labels(read_json(labels_path), str(labels_path))
        except (DatasetError, LabelFileError) as e:
            raise AuditUsageError(str(e)) from e
    json_path = Path(args.json_tests) if args.json_tests else find_json_tests(root)
    if args.tests != "dfy" and json_path is None:
        raise AuditUsageError(f"--tests {args.tests}: no MBPP-style test JSON found in {root} (give --json FILE)")

    out = _out_folder(args.out)
    progress = Progress(sys.stderr, sys.stderr.isatty())
    engine, info = make_engine(args, progress)
    options = AuditOptions(
        tests=args.tests,
        weak_below=args.weak_below,
        score=ScoreOptions(args.mutants, args.seed, HarnessOptions(real_tolerance=args.tolerance), pin=args.pin),
    )
    started = time.monotonic()
    print(f"audit: {len(tasks)} tasks from {root} (tests: {args.tests}; labels: "
          f"{labels_path if labels_path else 'none'})", file=sys.stderr)
    results = run_audit(tasks, root, engine, dialect_for(info), options, labels,
                        json_path if args.tests != "dfy" else None, on_phase=progress.start)
    settings = {
        "seed": args.seed, "mutants": args.mutants, "time_limit": args.time_limit, "weak_below": args.weak_below,
        "tolerance": args.tolerance, "pin": args.pin, "tests": args.tests, "verifier": info.version,
    }
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(results_json(results, settings), encoding="utf-8")
        (out / "results.csv").write_text(results_csv(results), encoding="utf-8")
        (out / "report.md").write_text(report_md(results, settings), encoding="utf-8")
    except OSError as e:
        raise AuditUsageError(f"--out {args.out}: cannot write the report: {e}") from e
    evaluated = sum(r.verdict is not Verdict.INCONCLUSIVE for r in results)
    counts = {v.value: sum(r.verdict is v for r in results) for v in Verdict}
    print(f"audit: evaluated {evaluated}/{len(results)} tasks ({', '.join(f'{n} {k}' for k, n in counts.items())}) "
          f"in {time.monotonic() - started:.1f} s; wrote {out}/report.md, results.json, results.csv", file=sys.stderr)
    return 0
