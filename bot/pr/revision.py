"""Scoring the affected spec files of one revision (a checkout of head, or a worktree of base)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bot.dafny.dialect import Dialect
from bot.dafny.parser import DafnyParseError, parse_file
from bot.pipeline import EngineLike, MethodJob, ScoreOptions, method_jobs, score_methods
from bot.scoring import MethodScore
from bot.tests_io.discover import cases_for_spec
from bot.tests_io.model import ReadResult


def _relative(text: str, root: Path) -> str:
    # case problems name files by their path in this checkout: show them by their repository path
    return text.replace(str(root) + "/", "")


def jobs_for(root: Path, specs: Sequence[str]) -> tuple[list[MethodJob], list[str]]:
    """Jobs for every tested method of the given spec files (repository paths), and input errors."""
    jobs: list[MethodJob] = []
    errors: list[str] = []
    for rel in specs:
        path = root / rel
        if not path.is_file():
            continue  # absent at this revision: its methods are new or removed
        try:
            file = parse_file(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError) as e:
            errors.append(f"{rel}: cannot read: {e}")
            continue
        except DafnyParseError as e:
            errors.append(_relative(str(e), root))
            continue
        read = cases_for_spec(file)
        problems = tuple(replace(p, source=_relative(p.source, root)) for p in read.problems)
        jobs += method_jobs(file, ReadResult(read.cases, problems), display_path=rel)
    return jobs, errors


def score_revision(
    root: Path, specs: Sequence[str], engine: EngineLike, dialect: Dialect, options: ScoreOptions
) -> tuple[list[MethodScore], list[str]]:
    jobs, errors = jobs_for(root, specs)
    return score_methods(jobs, engine, dialect, options), errors
