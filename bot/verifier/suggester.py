"""Running an external suggester: a command the user of this tool names (`--suggester`, never a pull request's
file or config) that proposes clauses for a weak method.

The command is run with one more argument, the path of a JSON file describing the method
(bot/symbolic/suggest/search.py, `describe`), in the verifier's environment (no token), with a time limit, and
prints candidate clauses on standard output, one per line, each as `ensures EXPRESSION`. Other lines are ignored.
Its candidates are checked exactly as the templates' are: nothing it says is offered unproved.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path

from bot.verifier.process import run_process

SUGGESTER_SECONDS = 60.0
MAX_CLAUSES = 20  # read from one answer; the candidates' own limit applies after


def ask_suggester(command: str, description: Mapping[str, object], limit: float = SUGGESTER_SECONDS) -> tuple[
        list[str], str]:
    """(the clauses the command proposed, a problem to report or "")."""
    argv = shlex.split(command)
    if not argv:
        return [], "--suggester: an empty command"
    with tempfile.TemporaryDirectory(prefix="specscore-suggest-") as folder:
        path = Path(folder) / "method.json"
        path.write_text(json.dumps(description, indent=2, sort_keys=True), encoding="utf-8")
        run = run_process([*argv, str(path)], folder, limit)
    if run.start_error:
        return [], f"--suggester {command}: could not be started: {run.start_error}"
    if run.killed:
        return [], f"--suggester {command}: gave no answer within {limit:.0f} s"
    clauses = [line.strip().removeprefix("ensures").strip().removesuffix(";").strip()
               for line in run.output.splitlines() if line.strip().startswith("ensures ")]
    problem = "" if run.returncode == 0 else f"--suggester {command}: exited with {run.returncode}"
    return clauses[:MAX_CLAUSES], problem
