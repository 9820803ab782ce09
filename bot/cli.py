"""Command line: `python -m bot score ...` (and `audit`). Glue: builds real objects, maps errors to exit codes."""

from __future__ import annotations

import argparse
import glob
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from bot import __version__, runner
from bot.audit.cli import AuditUsageError, add_audit_parser, cmd_audit
from bot.config import default_cache_dir
from bot.options import OPTIONS_BY_NAME, Use, add_arguments, clean_fraction
from bot.progress import score_progress
from bot.report.json_report import render_json
from bot.report.markdown import render_markdown
from bot.report.sarif import render_sarif
from bot.report.text import render_text
from bot.runner import TestFiles, Verifier, build_jobs, ensures_spans_in, read_error
from bot.settings import Settings, SettingsOverlay
from bot.signals import sigterm_as_interrupt, stopped_by
from bot.symbolic.gate import UNREAD_CASE, score_gate
from bot.symbolic.results import Gate, MethodScore
from bot.symbolic.rounds import Strategy, untested
from bot.symbolic.suggest.search import score_suggest_everywhere
from bot.testcases.textfiles import read_regular_text
from bot.verifier import VerifierNotFound
from bot.verifier.version import default_z3

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2


NOTHING_TO_SCORE = (
    "nothing to score: no test cases found for any method, and no method with a spec and outputs "
    "(see README: test methods in the file, PATH.tests.toml beside it, or --tests)"
)
NO_TESTS_NOTICE = ("no test cases found (see README: test methods in the file, PATH.tests.toml beside it, or --tests); "
                   "its specs are scored on every input only")


UNEXPECTED = "unexpected {kind}: {message} (a defect of dafny-spec-score: please report it with the command line)"


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2 with the message."""


REPORT_ONLY_HELP = (
    "only report: exit 0 whatever the scores (input errors are still exit 2). Without it the gate applies, as in "
    "the Action: the thresholds below, with their defaults for the flags not given; a method with nothing decided "
    "and a spec file without test cases fail it too (exit 1)")


def _default(name: str) -> float:
    return float(clean_fraction(OPTIONS_BY_NAME[name].default))


def gate_of(args: argparse.Namespace) -> Gate | None:
    """The gate the options ask for: always, with the option table's defaults (those `--help` and the Action
    state) for the thresholds not given; None with `--report-only`, which contradicts any gate flag."""
    given = [flag for flag, on in (("--min-correctness", args.min_correctness is not None),
                                   ("--min-completeness", args.min_completeness is not None),
                                   ("--fail-on-unknown", args.fail_on_unknown),
                                   ("--allow-axioms", args.allow_axioms),
                                   ("--require-determined", args.require_determined)) if on]
    if args.report_only:
        if given:
            raise UsageError(f"--report-only applies no gate, and {', '.join(given)} asks for one; drop one of them")
        return None
    corr = _default("min-correctness") if args.min_correctness is None else args.min_correctness
    comp = _default("min-completeness") if args.min_completeness is None else args.min_completeness
    return Gate(corr, comp, args.fail_on_unknown, args.allow_axioms, args.require_determined)


def add_local_options(p: argparse.ArgumentParser) -> None:
    """The verifier's environment: flags of the CLI only (the Action takes these from its image)."""
    p.add_argument("--cache-dir", default=None, help="result cache (default: ~/.cache/dafny-spec-score)")
    p.add_argument("--no-cache", action="store_true", help="verify everything again")
    p.add_argument("--dafny", default="dafny", help="verifier command (default: dafny on PATH)")
    p.add_argument("--z3", default=None, help="z3 binary for Dafny 2.x (/z3exe); default: $DAFNY_SPEC_SCORE_Z3")
    p.add_argument(
        "--strategy", choices=[s.value for s in Strategy], default=Strategy.LEAN.value,
        help="how many programs to ask: `lean` (default: short first limits, the order-free pin before the "
             "mutants) or `each` (one program per question at the full limit); the verdicts are proofs either way")
    p.add_argument(
        "--suggester", default=None, metavar="CMD",
        help="a command that proposes clauses for weak specs: run with the path of a JSON description of the "
             "method, it prints `ensures EXPR` lines; each is checked like the built-in candidates")


class _Parser(argparse.ArgumentParser):
    """argparse, with the message first and in words: no 15-line usage before it, a pointer to `--help` after."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message}\n(see `{self.prog} --help` for the options)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m bot", description="Score Dafny specifications against tests."
    )
    parser.add_argument("--version", action="version", version=f"dafny-spec-score {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score the tested methods of Dafny files")
    score.add_argument("paths", nargs="+", metavar="PATH.dfy")
    score.add_argument(
        "--tests", default=None,
        help="test file (.dfy, .toml or MBPP .json) that replaces discovery, or a glob (quoted, e.g. 'tests/*.dfy') "
             "whose files are read besides, each for the specs whose methods it tests; default: discovered"
    )
    score.add_argument("--method", default=None, help="score only this method")
    score.add_argument("--format", choices=("text", "json", "markdown", "sarif"), default="text")
    score.add_argument("--output", default=None, help="write the report here instead of standard output")
    score.add_argument("--report-only", action="store_true", help=REPORT_ONLY_HELP)
    add_arguments(score, Use.SCORE)
    add_local_options(score)
    add_audit_parser(sub, add_local_options)
    return parser


def given_settings(args: argparse.Namespace) -> Settings:
    """The settings the command line states, over its command's defaults."""
    return Settings.defaults(audit=args.command == "audit").overlay(SettingsOverlay.of_command_line(args))


def open_verifier(args: argparse.Namespace, progress: Callable[[int, int], None] | None = None) -> Verifier:
    settings = given_settings(args)
    cache_dir = None if args.no_cache else Path(args.cache_dir or default_cache_dir(os.environ))
    try:
        # `--strategy each` asks as before, the prelude sent to z3 before every check included
        reuse = getattr(args, "strategy", Strategy.LEAN.value) != Strategy.EACH.value
        return runner.open_verifier(settings, args.dafny, cache_dir, args.z3 or default_z3(os.environ), progress,
                                    reuse)
    except VerifierNotFound as e:
        raise UsageError(str(e)) from e


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def render(scores: list[MethodScore], fmt: str, verifier: Verifier, settings: Settings) -> str:
    if fmt == "json":
        return render_json(scores, verifier.info.version, settings.report())
    if fmt == "markdown":
        return render_markdown(scores, verifier.info.version)
    if fmt == "sarif":
        # results point at clauses: read where they are in the files this command scored (its own, anywhere)
        spans = ensures_spans_in(Path("."), scores, confine=False)
        return render_sarif(scores, spans, verifier.info.version, settings=settings.report())
    return render_text(scores, verifier.info.version)



def output_file(path: str) -> Path:
    """`--output PATH`, its folder created now (before any verifying); raises UsageError."""
    out = Path(path)
    if out.is_dir():
        raise UsageError(f"--output {path}: a folder; give the report's file name")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--output {path}: cannot create its folder: {read_error(e)}") from e
    return out


def test_files(tests: str | None) -> TestFiles:
    """What `--tests` names: one test file that replaces discovery, or a glob whose files are read as well, each
    for the specs whose methods it tests (raises UsageError)."""
    if tests is None:
        return TestFiles()
    if glob.has_magic(tests):
        found = tuple(sorted(p for p in glob.glob(tests, recursive=True) if Path(p).is_file()))
        if not found:
            raise UsageError(f"--tests {tests}: the glob matches no file")
        return TestFiles(extra=found)
    if Path(tests).exists() and not Path(tests).is_file():
        raise UsageError(f"{tests}: not a regular file (a folder, FIFO or device); give the test file itself")
    if not Path(tests).is_file():
        raise UsageError(f"{tests}: no such test file (give a .dfy, .toml or MBPP .json file)")
    try:  # said here in words: the readers would say it once per spec, as Python's message
        read_regular_text(tests)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{tests}: cannot read the test file: {read_error(e)}") from e
    return TestFiles(only=tests)


def cmd_score(args: argparse.Namespace) -> int:
    gate = gate_of(args)  # a contradiction among the flags is said before anything is verified
    tests = test_files(args.tests)
    output = output_file(args.output) if args.output else None
    # files given on the command line are the user's own: anywhere, not confined to the current folder
    built = build_jobs(Path("."), args.paths, tests, None if args.method is None else [args.method], confine=False,
                       untested=True)
    # input errors and nothing tested to show: said before anything is verified (a spec scored only on every input
    # because its test file cannot be read would hide the error under a report)
    if built.errors and all(untested(job) for job in built.jobs) and len(built.errors) >= len(args.paths):
        raise UsageError("\n".join(built.errors))
    for problem in built.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not built.jobs:
        print(NOTHING_TO_SCORE, file=sys.stderr)
    for path in dict.fromkeys(job.display_path for job in built.jobs):
        if path not in built.unread and all(untested(job) for job in built.jobs if job.display_path == path):
            print(f"{path}: {NO_TESTS_NOTICE}", file=sys.stderr)
    settings = given_settings(args)
    progress = score_progress(sys.stderr)  # standard error only: the report is the same bytes without it
    verifier = open_verifier(args, progress.programs)
    scores = score_suggest_everywhere(built.jobs, verifier.engine, verifier.dialect,
                                      settings.score_options(Strategy(args.strategy)),
                                      more=runner.external_suggester(args.suggester, _warn) if args.suggester else None,
                                      on_phase=progress.start, on_round=progress.round)
    progress.end()
    out = render(scores, args.format, verifier, settings)
    if output is not None:
        try:
            output.write_text(out, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--output {args.output}: cannot write the report: {read_error(e)}") from e
    else:
        sys.stdout.write(out)
    for message in built.errors:
        print(f"error: {message}", file=sys.stderr)
    if built.errors:
        return EXIT_USAGE
    if gate is None:
        return EXIT_OK
    tested = {job.display_path for job in built.jobs}
    failures = score_gate(scores, gate, [p for p in args.paths if p not in tested])
    # a test case that cannot be read checks nothing: a gate it was meant to inform is not met
    failures += tuple(f"{p}: {UNREAD_CASE}" for p in built.problems)
    for failure in failures:
        print(f"gate: {failure}", file=sys.stderr)
    return EXIT_GATE if failures else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with sigterm_as_interrupt():  # `kill` and `timeout` stop it as Ctrl-C does (bot/signals.py)
            if args.command == "audit":
                return cmd_audit(args, open_verifier)
            return cmd_score(args)
    except (UsageError, AuditUsageError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        word, code = stopped_by(e)
        print(word, file=sys.stderr)
        return code
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
