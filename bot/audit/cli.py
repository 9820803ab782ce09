"""`python -m bot audit DATASET_ROOT`: the audit's flags (from the table of options) and its command."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import runner
from bot.audit import request
from bot.audit.changes import changes_summary, should_fail
from bot.audit.model import Verdict
from bot.audit.request import AuditRequest, AuditUsageError
from bot.options import FailOn, Use, add_arguments
from bot.progress import audit_progress
from bot.runner import Verifier
from bot.settings import Settings, SettingsOverlay
from bot.symbolic.rounds import Strategy

__all__ = ["AuditUsageError", "add_audit_parser", "cmd_audit"]


def add_audit_parser(sub: Any, add_local_options: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("audit", help="score a labelled spec dataset (MBPP-DFY layout) and report disagreements")
    p.add_argument("root", metavar="DATASET_ROOT")
    add_arguments(p, Use.AUDIT)
    add_local_options(p)


def _out_folder(out: Path) -> Path:
    """The output folder, created now (before any verifying), so an unwritable place fails at once."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise AuditUsageError(f"--out {out}: cannot create the output folder: {e.strerror or e}") from e
    if not os.access(out, os.W_OK):
        raise AuditUsageError(f"--out {out}: the output folder is not writable")
    return out


def _warn(message: str) -> None:
    print(f"audit: warning: {message}", file=sys.stderr)


def cmd_audit(args: argparse.Namespace, open_verifier: Callable[[argparse.Namespace, Any], Verifier]) -> int:
    given = Settings.defaults(audit=True).overlay(SettingsOverlay.of_command_line(args))
    req = replace(AuditRequest.of(args, Path(args.root), given), strategy=Strategy(args.strategy))
    inputs = request.prepare(req)
    out = _out_folder(req.out)
    if req.fail_on is not FailOn.NEVER and inputs.baseline is None:
        print(f"audit: --fail-on {req.fail_on.value} compares with a baseline, and no --baseline was given: "
              "this run cannot fail on changes", file=sys.stderr)
    progress = audit_progress(sys.stderr, len(inputs.tasks))
    verifier = open_verifier(args, progress.programs)
    started = time.monotonic()
    what = f"{len(inputs.tasks)} spec files (no task layout: each method a task)" if inputs.collection else \
        f"{len(inputs.tasks)} tasks"
    print(f"audit: {what} from {req.root} (tests: {req.tests}; labels: "
          f"{inputs.labels_path if inputs.labels_path else 'none'})", file=sys.stderr)
    more = runner.external_suggester(args.suggester, _warn) if args.suggester else None
    results, settings = request.run(req, inputs, verifier, on_phase=progress.start, more=more, on_round=progress.round)
    progress.end()
    changes = request.changes_since(req, inputs, results, settings)
    try:
        request.write_reports(out, results, settings, root=req.root, changes=changes)
    except OSError as e:
        raise AuditUsageError(f"--out {out}: cannot write the report: {e}") from e
    evaluated = sum(r.verdict is not Verdict.INCONCLUSIVE for r in results)
    counts = {v.value: sum(r.verdict is v for r in results) for v in Verdict}
    print(f"audit: evaluated {evaluated}/{len(results)} tasks ({', '.join(f'{n} {k}' for k, n in counts.items())}) "
          f"in {time.monotonic() - started:.1f} s; wrote {', '.join(request.REPORT_FILES)} in {out}", file=sys.stderr)
    if changes is None:
        return 0
    print(f"audit: since the baseline {req.baseline_shown}: {changes_summary(changes)}; wrote changes.json in {out}",
          file=sys.stderr)
    reason = should_fail(changes, req.fail_on)
    if reason:
        print(f"audit: failing: {reason}", file=sys.stderr)
        return 1
    return 0
