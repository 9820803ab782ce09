"""Command line: `python -m bot score ...` (and `audit`). Glue: builds real objects, maps errors to exit codes."""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bot import __version__
from bot.audit.cli import AuditUsageError, add_audit_parser, cmd_audit
from bot.cache import ResultCache
from bot.config import MAX_TIME_LIMIT, default_cache_dir, default_jobs, default_z3
from bot.dafny.decls import DafnyFile
from bot.dafny.dialect import Dialect
from bot.dafny.parser import DafnyParseError, parse_file
from bot.engine import Engine
from bot.harness import HarnessOptions
from bot.outcomes import Result
from bot.pipeline import MethodJob, ScoreOptions, method_jobs, score_methods
from bot.report.json_report import render_json
from bot.report.markdown import render_markdown
from bot.report.text import render_text
from bot.scoring import Gate, MethodScore, gate_failures
from bot.tests_io.discover import cases_for_spec
from bot.tests_io.model import CaseProblem, ReadResult
from bot.tests_io.textfiles import read_regular_text
from bot.verifier import VerifierInfo, VerifierNotFound, detect, make_backend

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2


NOTHING_TO_SCORE = (
    "nothing to score: no test cases found for any method "
    "(see README: test methods in the file, PATH.tests.toml beside it, or --tests)"
)


CACHE_UNUSABLE = "warning: the result cache {directory} cannot be used ({reason}); scoring without a cache"
UNEXPECTED = "unexpected {kind}: {message} (a defect of dafny-spec-score: please report it with the command line)"


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2 with the message."""


def _positive(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return v


def _time_limit(text: str) -> int:
    v = int(text)
    if not 1 <= v <= MAX_TIME_LIMIT:  # the engine needs a second at least, as the Action's config does
        raise argparse.ArgumentTypeError(f"must be a whole number of seconds from 1 to {MAX_TIME_LIMIT}")
    return v


def _tolerance(text: str) -> float:
    try:
        v = float(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError("must be a number >= 0, e.g. 1e-3") from e
    if not (math.isfinite(v) and v >= 0.0):  # nan would silently make every real output unknown
        raise argparse.ArgumentTypeError("must be a finite number >= 0, e.g. 1e-3")
    return v


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError("must be a number from 0 to 1") from e
    if not 0.0 <= v <= 1.0:  # also rejects nan
        raise argparse.ArgumentTypeError("must be a number from 0 to 1")
    return v


def gate_of(args: argparse.Namespace) -> Gate | None:
    """The gate the options ask for; None when none was asked (the exit code then ignores scores)."""
    if args.min_correctness is None and args.min_completeness is None and not args.fail_on_unknown:
        return None
    return Gate(args.min_correctness or 0.0, args.min_completeness or 0.0, args.fail_on_unknown)


def add_run_options(p: argparse.ArgumentParser, tolerance: float = 0.0) -> None:
    p.add_argument("--mutants", type=_positive, default=5, help="mutants per test case (default 5)")
    p.add_argument("--seed", type=int, default=0, help="mutation seed (default 0)")
    p.add_argument("--jobs", type=_positive, default=0, help="parallel verifier processes (default: cores)")
    p.add_argument("--time-limit", type=_time_limit, default=20, help="seconds per program (default 20)")
    p.add_argument("--tolerance", type=_tolerance, default=tolerance,
                   help=f"relative tolerance for real outputs (default {tolerance:g})")
    p.add_argument("--cache-dir", default=None, help="result cache (default: ~/.cache/dafny-spec-score)")
    p.add_argument("--no-cache", action="store_true", help="verify everything again")
    p.add_argument("--dafny", default="dafny", help="verifier command (default: dafny on PATH)")
    p.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True,
                   help="prove per accepted case whether the spec admits only the expected output, and find "
                        "another output it accepts when not (default: on)")
    p.add_argument("--z3", default=None, help="z3 binary for Dafny 2.x (/z3exe); default: $DAFNY_SPEC_SCORE_Z3")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot", description="Score Dafny specifications against tests."
    )
    parser.add_argument("--version", action="version", version=f"dafny-spec-score {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score the tested methods of Dafny files")
    score.add_argument("paths", nargs="+", metavar="PATH.dfy")
    score.add_argument(
        "--tests", default=None, help="test file (.dfy, .toml or MBPP .json); default: discovered"
    )
    score.add_argument("--method", default=None, help="score only this method")
    score.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    score.add_argument("--output", default=None, help="write the report here instead of standard output")
    gate = score.add_argument_group("gate (exit code 1 when a scored method misses it)")
    gate.add_argument("--min-correctness", type=_fraction, default=None, help="lowest correctness allowed")
    gate.add_argument("--min-completeness", type=_fraction, default=None, help="lowest completeness allowed")
    gate.add_argument("--fail-on-unknown", action="store_true",
                      help="also fail when a case or mutant is unknown (neither accepted nor rejected by proof)")
    add_run_options(score)
    add_audit_parser(sub, add_run_options)
    return parser


def make_engine(
    args: argparse.Namespace, progress: Callable[[int, int], None] | None = None
) -> tuple[Engine, VerifierInfo]:
    try:
        info = detect(args.dafny)
    except VerifierNotFound as e:
        raise UsageError(str(e)) from e
    cache = None if args.no_cache else usable_cache(Path(args.cache_dir or default_cache_dir(os.environ)))
    jobs = args.jobs or default_jobs()
    z3 = args.z3 or default_z3(os.environ)
    backend = make_backend(info, z3_path=z3)
    engine = Engine(backend, jobs=jobs, time_limit=args.time_limit, cache=cache, progress=progress)
    return engine, info


class _BestEffortCache(ResultCache):
    """A cache whose first failed write (disk full, folder removed) warns and ends caching, not the run."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        self.broken = False

    def put(self, key: str, result: Result) -> None:
        if self.broken:
            return
        try:
            super().put(key, result)
        except OSError as e:
            self.broken = True
            print(CACHE_UNUSABLE.format(directory=self.directory, reason=e), file=sys.stderr)


def usable_cache(directory: Path) -> ResultCache | None:
    """The result cache in `directory`, or None (with a warning) when it cannot be written: a regular file,
    a read-only or unwritable place. Scoring without a cache is slower, never wrong."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        print(CACHE_UNUSABLE.format(directory=directory, reason=e.strerror or e), file=sys.stderr)
        return None
    return _BestEffortCache(directory)


def dialect_for(info: VerifierInfo) -> Dialect:
    return Dialect.DAFNY2 if info.major < 4 else Dialect.DAFNY4


def load_dafny(path: str) -> DafnyFile:
    try:
        source = read_regular_text(path)  # a FIFO or a device is refused, never read
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot read: {e}") from e
    try:
        return parse_file(source, path)
    except DafnyParseError as e:
        raise UsageError(f"{e}\n  fix the Dafny syntax there, or pass another file") from e


def jobs_for_file(file: DafnyFile, read: ReadResult, method: str | None) -> list[MethodJob]:
    if method is not None and file.find(method) is None:
        raise UsageError(f"{file.path}: no method named `{method}`")
    # includes are followed to files under the current folder only (as in the Action's workspace)
    return method_jobs(file, read, None if method is None else [method], include_root=Path.cwd())


def settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "mutants": args.mutants,
        "seed": args.seed,
        "time_limit": args.time_limit,
        "tolerance": args.tolerance,
        "pin": args.pin,
    }


def render(scores: list[MethodScore], fmt: str, info: VerifierInfo, args: argparse.Namespace) -> str:
    if fmt == "json":
        return render_json(scores, info.version, settings(args))
    if fmt == "markdown":
        return render_markdown(scores, info.version)
    return render_text(scores, info.version)


def output_file(path: str) -> Path:
    """`--output PATH`, its folder created now (before any verifying); raises UsageError."""
    out = Path(path)
    if out.is_dir():
        raise UsageError(f"--output {path}: a folder; give the report's file name")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--output {path}: cannot create its folder: {e}") from e
    return out


def cmd_score(args: argparse.Namespace) -> int:
    if args.tests is not None and Path(args.tests).exists() and not Path(args.tests).is_file():
        raise UsageError(f"{args.tests}: not a regular file (a folder, FIFO or device); give the test file itself")
    if args.tests is not None and not Path(args.tests).is_file():
        raise UsageError(f"{args.tests}: no such test file (give a .dfy, .toml or MBPP .json file)")
    output = output_file(args.output) if args.output else None
    files: list[DafnyFile] = []
    bad_inputs: list[str] = []
    for p in args.paths:
        # one unreadable file must not cost the scores of the others
        try:
            files.append(load_dafny(p))
        except (UsageError, AuditUsageError) as e:
            bad_inputs.append(str(e))
    if not files:
        raise UsageError("\n".join(bad_inputs))
    jobs: list[MethodJob] = []
    problems: list[CaseProblem] = []
    for f in files:
        read = cases_for_spec(f, args.tests)
        file_jobs = jobs_for_file(f, read, args.method)
        if not file_jobs:
            problems += list(read.problems)
        jobs += file_jobs
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not jobs:
        print(NOTHING_TO_SCORE, file=sys.stderr)
    engine, info = make_engine(args)
    options = ScoreOptions(args.mutants, args.seed, HarnessOptions(real_tolerance=args.tolerance), pin=args.pin)
    scores = score_methods(jobs, engine, dialect_for(info), options)
    out = render(scores, args.format, info, args)
    if output is not None:
        try:
            output.write_text(out, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--output {args.output}: cannot write the report: {e}") from e
    else:
        sys.stdout.write(out)
    for message in bad_inputs:
        print(f"error: {message}", file=sys.stderr)
    if bad_inputs:
        return EXIT_USAGE
    gate = gate_of(args)
    failures = gate_failures(scores, gate) if gate is not None else []
    for failure in failures:
        print(f"gate: {failure}", file=sys.stderr)
    return EXIT_GATE if failures else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "audit":
            return cmd_audit(args, make_engine, dialect_for)
        return cmd_score(args)
    except (UsageError, AuditUsageError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # the last line of defence: one line saying what happened, never a traceback
        print(f"error: {UNEXPECTED.format(kind=type(e).__name__, message=_one_line(e))}", file=sys.stderr)
        return EXIT_USAGE


def _one_line(e: BaseException) -> str:
    try:
        text = " ".join(str(e).split())
    except Exception:  # an exception whose message cannot even be built
        text = ""
    text = text or "(no message)"
    return text if len(text) <= 300 else text[:297] + "..."
