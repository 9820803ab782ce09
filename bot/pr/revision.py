"""Scoring the affected spec files of one revision (a checkout of head, or a worktree of base)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bot.dafny.dialect import Dialect
from bot.dafny.parser import DafnyParseError, parse_file
from bot.outfiles import inside
from bot.pipeline import EngineLike, MethodJob, ScoreOptions, method_jobs, score_methods
from bot.scoring import MethodScore, method_score
from bot.tests_io.discover import cases_for_spec
from bot.tests_io.model import ReadResult


def _relative(text: str, root: Path) -> str:
    # case problems name files by their path in this checkout: show them by their repository path
    return text.replace(str(root) + "/", "")


Expected = Mapping[str, Collection[str]]  # spec path -> qualified names of methods scored at base


def jobs_for(
    root: Path, specs: Sequence[str], expected: Expected | None = None
) -> tuple[list[MethodJob], list[MethodScore], list[str]]:
    """Jobs for every tested method of the given spec files (repository paths), placeholders, and
    input errors.

    `expected` names the methods scored at the other revision: each one still declared here gets a
    job even when its tests are gone or unreadable, and each one in a file that cannot be read or
    parsed gets a placeholder score saying why. Neither may show as "removed" (see bot/pr/gate.py).
    """
    expected = expected or {}
    jobs: list[MethodJob] = []
    placeholders: list[MethodScore] = []
    errors: list[str] = []
    for rel in specs:
        path = root / rel
        if not path.is_file():
            continue  # absent at this revision: its methods are new or removed
        if not inside(root, path):
            why = f"{rel}: refused: the spec file leads outside the checkout (a symlink?)"
            errors.append(why)
            placeholders += _unscored(rel, expected.get(rel, ()), why)
            continue
        try:
            file = parse_file(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError) as e:
            errors.append(f"{rel}: cannot read: {e}")
            placeholders += _unscored(rel, expected.get(rel, ()), f"the spec file cannot be read: {e}")
            continue
        except DafnyParseError as e:
            message = _relative(str(e), root)
            errors.append(message)
            placeholders += _unscored(rel, expected.get(rel, ()), f"the spec file does not parse: {message}")
            continue
        read = cases_for_spec(file, root=root)
        problems = tuple(replace(p, source=_relative(p.source, root)) for p in read.problems)
        # a test file refused for leading outside the checkout fails the run: it is never silent
        errors += [f"{p.source}: {p.reason}" for p in problems if p.reason.startswith("refused:")]
        read = ReadResult(read.cases, problems)
        tested = {c.method for c in read.cases} | {p.method for p in read.problems if p.method}
        still = {name for name in expected.get(rel, ()) if file.find(name) is not None}
        # includes are followed inside this revision's checkout only
        jobs += method_jobs(file, read, sorted(tested | still), display_path=rel, include_root=root)
    return jobs, placeholders, errors


def _unscored(rel: str, names: Collection[str], why: str) -> list[MethodScore]:
    return [method_score(rel, name, 0, (), (), why) for name in sorted(names)]


def tested_methods(jobs: Sequence[MethodJob]) -> dict[str, set[str]]:
    """The methods of some jobs, by spec path (what the other revision is expected to score too)."""
    out: dict[str, set[str]] = {}
    for job in jobs:
        out.setdefault(job.display_path, set()).add(job.method.qualified)
    return out


def score_revision(
    root: Path,
    specs: Sequence[str],
    engine: EngineLike,
    dialect: Dialect,
    options: ScoreOptions,
    expected: Expected | None = None,
) -> tuple[list[MethodScore], list[str]]:
    jobs, placeholders, errors = jobs_for(root, specs, expected)
    return score_methods(jobs, engine, dialect, options) + placeholders, errors
