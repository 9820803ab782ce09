"""One path from files to scores, shared by the CLI, the Action (pull requests and audits) and the audit.

- `open_verifier`: the verifier found, its dialect, and the engine (with a cache that cannot fail the run);
- `build_jobs`: spec files and their test sources -> method jobs, placeholders for methods that must be
  scored but cannot be, and the input errors, each naming its file;
- settings come from `bot.settings.Settings`, made from the table of options (bot/options.py).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from bot.dafny.decls import DafnyFile
from bot.dafny.dialect import Dialect
from bot.dafny.includes import IncludeError, find_includes, included_files
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.spans import EnsuresSpan, ensures_spans
from bot.dafny.types import Datatypes
from bot.paths import inside, matches
from bot.settings import Settings
from bot.symbolic.program import Result
from bot.symbolic.results import MethodScore, method_score
from bot.symbolic.rounds import MethodJob, method_jobs, specified_methods
from bot.symbolic.suggest.search import Suggester, describe
from bot.symbolic.suggest.templates import Candidate
from bot.testcases.cases import CaseProblem, ReadResult
from bot.testcases.discover import TestSource, cases_for_spec, explicit_source, tested_names
from bot.testcases.textfiles import read_regular, read_regular_text
from bot.verifier import VerifierInfo, detect, make_backend
from bot.verifier.cache import ResultCache
from bot.verifier.engine import Engine
from bot.verifier.suggester import ask_suggester
from bot.verifier.version import default_jobs

CACHE_UNUSABLE = "warning: the result cache {directory} cannot be used ({reason}); scoring without a cache"

Expected = Mapping[str, Collection[str]]  # spec path -> qualified names of methods scored at the other revision


@dataclass(frozen=True)
class Verifier:
    engine: Engine
    info: VerifierInfo
    dialect: Dialect


def dialect_for(info: VerifierInfo) -> Dialect:
    return Dialect.DAFNY2 if info.major < 4 else Dialect.DAFNY4


def open_verifier(
    settings: Settings,
    dafny: str = "dafny",
    cache_dir: Path | None = None,
    z3: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    reuse: bool = True,
) -> Verifier:
    """Detect the verifier (raises VerifierNotFound) and open the engine; no cache when `cache_dir` is None
    or cannot be written (a warning says so: scoring without a cache is slower, never wrong). `reuse`: see
    `make_backend` (off for `--strategy each`, which asks as before)."""
    info = detect(dafny)
    cache = usable_cache(cache_dir) if cache_dir is not None else None
    backend = make_backend(info, z3_path=z3, server=settings.server, reuse=reuse)
    engine = Engine(backend, jobs=settings.jobs or default_jobs(), time_limit=settings.time_limit, cache=cache,
                    progress=progress)
    return Verifier(engine, info, dialect_for(info))


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
    a read-only or unwritable place."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        print(CACHE_UNUSABLE.format(directory=directory, reason=e.strerror or e), file=sys.stderr)
        return None
    return _BestEffortCache(directory)


@dataclass(frozen=True)
class TestFiles:
    """Where a spec's cases come from besides the files beside it (bot/testcases/discover.py)."""

    __test__ = False  # not a pytest class

    only: str | None = None  # replaces discovery (`score --tests PATH`)
    extra: tuple[str, ...] = ()  # read as well, for the specs whose methods they test (the `tests` globs)


@dataclass(frozen=True)
class JobSet:
    jobs: list[MethodJob] = field(default_factory=list)
    placeholders: list[MethodScore] = field(default_factory=list)  # expected methods that cannot be scored
    errors: list[str] = field(default_factory=list)  # input errors: they fail the run (exit 2 / a failed check)
    problems: list[CaseProblem] = field(default_factory=list)  # unreadable cases no job carries
    unread: list[str] = field(default_factory=list)  # the spec files those cases are for


def build_jobs(
    root: Path,
    specs: Sequence[str],
    tests: TestFiles = TestFiles(),
    methods: Sequence[str] | None = None,
    expected: Expected | None = None,
    confine: bool = True,
    untested: bool = False,
) -> JobSet:
    """Jobs for every tested method of the given spec files (paths relative to `root`, or absolute),
    or for the named `methods` only.

    `expected` names the methods scored at the other revision of a pull request: each one still declared
    here gets a job even when its tests are gone or unreadable, and each one in a file that cannot be read
    or parsed gets a placeholder score saying why; neither may show as "removed" (see bot/symbolic/gate.py).
    With `untested`, the methods no test reaches that state something of their outputs get a job too, without
    cases: they are scored on every input only (`score` and `audit` of spec collections without tests).
    With `confine`, spec and test files that lead outside `root` (committed symlinks) are refused.
    Includes are followed inside `root` only.
    """
    expected = expected or {}
    out = JobSet()
    orphans: list[tuple[str, list[CaseProblem]]] = []  # each spec file's unreadable cases its own jobs do not carry
    for rel in specs:
        path = root / rel
        if confine and not path.is_file():
            continue  # absent at this revision: its methods are new or removed
        if confine and not inside(root, path):
            why = f"{rel}: refused: the spec file leads outside the checkout (a symlink?)"
            out.errors.append(why)
            out.placeholders.extend(_unscored(rel, expected.get(rel, ()), why))
            continue
        try:
            file = parse_file(read_regular_text(str(path)), str(path))  # a FIFO or a device is refused
            file = with_included_datatypes(file, root, path)
        except (OSError, UnicodeDecodeError) as e:
            out.errors.append(f"{rel}: cannot read: {read_error(e)}")
            out.placeholders.extend(_unscored(rel, expected.get(rel, ()),
                                              f"the spec file cannot be read: {read_error(e)}"))
            continue
        except DafnyParseError as e:
            message = _relative(str(e), root)
            out.errors.append(f"{message}\n  fix the Dafny syntax there, or pass another file")
            out.placeholders.extend(_unscored(rel, expected.get(rel, ()), f"the spec file does not parse: {message}"))
            continue
        for name in methods or ():
            if file.find(name) is None:
                out.errors.append(f"{rel}: no method named `{name}`")
        read = cases_for_spec(file, tests.only, root=root if confine else None,
                              extra=[str(root / p) for p in tests.extra])
        problems = tuple(replace(p, source=_relative(p.source, root)) for p in read.problems)
        # a test file refused for leading outside the checkout fails the run: it is never silent
        out.errors.extend(f"{p.source}: {p.reason}" for p in problems if p.reason.startswith("refused:"))
        if tests.only is not None:
            # `--tests PATH` names the one file the cases come from: one that cannot be read fails the run
            unread = [p for p in problems if p.source == tests.only and not p.method and p.reason.startswith(UNREAD)]
            out.errors.extend(f"{p}\n  fix the test file there, or pass another with --tests" for p in unread
                              if f"{p}\n  fix the test file there, or pass another with --tests" not in out.errors)
            problems = tuple(p for p in problems if p not in unread)
        read = ReadResult(read.cases, problems)
        if methods is not None:
            names = sorted(methods)
        else:
            tested = {c.method for c in read.cases} | {p.method for p in read.problems if p.method}
            still = {name for name in expected.get(rel, ()) if file.find(name) is not None}
            names = sorted(tested | still | (set(specified_methods(file)) if untested else set()))
        file_jobs = method_jobs(file, read, names, display_path=rel, include_root=root)
        # unreadable cases no job carries (a file with no job, or a case naming a method the file lacks beside the
        # methods scored without tests) are said on their own: never dropped
        jobbed = {job.method.qualified for job in file_jobs if job.problems or job.cases}
        orphans.append((rel, [p for p in problems if not file_jobs or (p.method and p.method not in jobbed)]))
        out.jobs.extend(file_jobs)
    # a shared test file (the Action's `tests` globs) holds cases for the methods of several spec files: a case that
    # another spec file's method carries (the same file, line and method) is not unread for the file lacking it
    carried = {(_relative(c.source, root), c.line, c.method) for job in out.jobs for c in job.cases}
    carried |= {(p.source, p.line, p.method) for job in out.jobs for p in job.problems}
    for rel, found in orphans:
        kept = [p for p in found if not (p.line > 0 and p.method and (p.source, p.line, p.method) in carried)]
        if kept:
            out.unread.append(rel)
        out.problems.extend(p for p in kept if p not in out.problems)
    return out


# How the test-file readers (bot/testcases) begin the problem of a file they could not read at all; any other
# problem is one case's, or a file read whole that tests none of a spec's methods (with several specs, not all are)
UNREAD = ("cannot read the test file", "not valid TOML", "not valid JSON", "not read:", "unknown kind of test file",
          "cannot tell the MBPP task", "no [[case]] tables", "`case` must be [[case]] tables",
          "the top-level `method` must be")


def read_error(e: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, in words and with what to do (never Python's `[Errno 13] ...` or a codec's
    message); the caller names the file."""
    if isinstance(e, UnicodeDecodeError):
        return (f"not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start} is not UTF-8); "
                "save the file as UTF-8")
    if isinstance(e, PermissionError):
        return "permission denied; make the file readable to this user (chmod +r) or give another"
    if isinstance(e, FileNotFoundError):
        return "no such file; check the path"
    if isinstance(e, IsADirectoryError):
        return "a folder; give a file"
    if e.strerror:  # the operating system's words, without the number
        return e.strerror[0].lower() + e.strerror[1:]
    return str(e) or type(e).__name__


def with_included_datatypes(file: DafnyFile, root: Path, path: Path) -> DafnyFile:
    """`file` read again with the datatypes its includes declare (so that its signatures may name them). An
    include that cannot be followed is left for the scoring to report, where it says why."""
    try:
        found = included_files(file, root, path)
    except IncludeError:
        return file
    extra = tuple(d for f in found for d in f.datatypes.decls)
    synonyms = tuple(d for f in found for d in f.datatypes.synonyms)  # `type Dict = map<string, int>`
    # an included file's function or constant named like a constructor hides it in the spec too
    hidden = frozenset().union(*(f.datatypes.shadowed for f in found))
    if not extra and not synonyms:
        return file
    return parse_file(file.source, file.path, Datatypes(extra, hidden, synonyms=synonyms))


def _relative(text: str, root: Path) -> str:
    # messages name files by their path in this checkout: show them by their path from the root
    return text.replace(str(root) + "/", "") if str(root) not in ("", ".") else text


def _unscored(rel: str, names: Collection[str], why: str) -> list[MethodScore]:
    return [method_score(rel, name, 0, (), (), why) for name in sorted(names)]


def tested_methods(jobs: Sequence[MethodJob]) -> dict[str, set[str]]:
    """The methods of some jobs, by spec path (what the other revision is expected to score too)."""
    out: dict[str, set[str]] = {}
    for job in jobs:
        out.setdefault(job.display_path, set()).add(job.method.qualified)
    return out


def load_dafny(path: str) -> DafnyFile:
    """One Dafny file, parsed; raises OSError, UnicodeDecodeError or DafnyParseError."""
    return parse_file(read_regular_text(path), path)


MAX_LISTED_FILES = 20_000  # a checkout walked for glob matches stops here (a hostile tree cannot stall the run)


class TooManyFiles(Exception):
    """A checkout with more files than MAX_LISTED_FILES: the run fails rather than score a part silently."""


def files_matching(root: Path, globs: Sequence[str]) -> list[str]:
    """Regular files under `root` (repository paths) matching the globs; symlinks and `.git` are skipped.
    Raises TooManyFiles past MAX_LISTED_FILES: a file left out could be a test whose spec goes unscored."""
    if not globs:
        return []
    out: list[str] = []
    seen = 0
    for folder, dirs, names in os.walk(root):  # never follows symlinked folders
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(names):
            seen += 1
            if seen > MAX_LISTED_FILES:
                raise TooManyFiles(f"{root}: more than {MAX_LISTED_FILES} files to match against {', '.join(globs)}; "
                                   "narrow the `specs`/`tests` globs' folders or split the repository")
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if not path.is_symlink() and path.is_file() and matches(rel, globs):
                out.append(rel)
    return out


def specs_including(roots: Sequence[Path], changed: Sequence[str], spec_globs: Sequence[str]) -> set[str]:
    """The spec files (matching the globs, in any of the checkouts) that include one of `changed`, directly or
    through other included files. A spec whose includes cannot be followed there is kept: scoring it shows why."""
    wanted = {PurePosixPath(p).as_posix() for p in changed}
    out: set[str] = set()
    for root in roots:
        for rel in files_matching(root, spec_globs):
            if not rel.endswith(".dfy") or rel in out:
                continue
            try:
                spec = load_dafny(str(root / rel))
                if not find_includes(spec.source, rel):
                    continue
                found = {Path(f.path).as_posix() for f in included_files(spec, root, root / rel)}
            except (OSError, UnicodeDecodeError, DafnyParseError, ValueError):
                out.add(rel)
                continue
            if found & wanted:
                out.add(rel)
    return out


def specs_tested_by(roots: Sequence[Path], test_file: str, spec_globs: Sequence[str]) -> set[str]:
    """The spec files (matching the globs, in any of the checkouts) declaring a method the test file tests."""
    names: set[str] = set()
    for root in roots:
        path = root / test_file
        if not (path.is_file() and inside(root, path)):
            continue
        try:
            text = read_regular_text(str(path))
        except (OSError, UnicodeDecodeError):
            continue
        source = explicit_source(str(path), "")
        found = tested_names(source, text) if isinstance(source, TestSource) else None
        names |= found or set()
    if not names:
        return set()
    out: set[str] = set()
    for root in roots:
        for rel in files_matching(root, spec_globs):
            if not rel.endswith(".dfy"):
                continue
            try:
                spec = load_dafny(str(root / rel))
            except (OSError, UnicodeDecodeError, DafnyParseError):
                out.add(rel)  # cannot tell: scoring it shows why
                continue
            if any(d.name in names or d.qualified in names for d in spec.methods()):
                out.add(rel)
    return out


def ensures_spans_in(root: Path, scores: Sequence[MethodScore],
                     confine: bool = True) -> dict[tuple[str, str], EnsuresSpan]:
    """The `ensures` spans of the scored methods, by (file, method): with `confine`, files read inside `root` only,
    never through a symlink out of it (without, as `build_jobs` read them: the command line's own files); an
    unreadable or unparsable file gives none (callers use the method line)."""
    out: dict[tuple[str, str], EnsuresSpan] = {}
    for file in sorted({s.file for s in scores}):
        path = root / file
        if confine and not inside(root, path):
            continue
        try:
            # lines as git counts them (a lone CR is no line break there), so that they are the diff's lines
            spans = ensures_spans(read_regular(path).decode("utf-8").replace("\r\n", "\n"), file)
        except (OSError, UnicodeDecodeError):
            continue
        for s in scores:
            if s.file == file and s.method in spans:
                out[(file, s.method)] = spans[s.method]
    return out


def external_suggester(command: str, warn: Callable[[str], None]) -> Suggester:
    """`--suggester CMD` (the command line's only) as the search's source of more candidates; its problems are
    warnings, and its candidates go through the same checks as the templates'."""

    def ask(job: MethodJob, score: MethodScore) -> list[Candidate]:
        clauses, problem = ask_suggester(command, describe(job, score))
        if problem:
            warn(f"{score.method}: {problem}")
        return [Candidate(c, "suggester") for c in clauses]

    return ask
