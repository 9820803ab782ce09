"""Where the test cases of a spec file come from, and reading them.

For `dir/spec.dfy` the sources are, in this order:
- the spec file itself (test methods inside it, such as `SharedElementsTest()` called from `Main()`);
- `dir/spec.tests.toml` (see `bot.testcases.toml_cases` for the format);
- a same-named file in a `test/` or `tests/` folder beside the spec or one level up (`dir/tests/spec.dfy`,
  `dir/../tests/spec.dfy`; the MBPP-DFY layout `.../src/task_id_N.dfy` -> `.../test/task_id_N.dfy` is one of
  these), and `spec_test.dfy`, `spec.test.dfy` or `test_spec.dfy` beside the spec or in those folders.
An explicit `--tests PATH` replaces them all: a `.dfy` file with test methods, a `.toml` file, or the
MBPP JSON file (its task is the `N` of the spec's name `task_id_N.dfy`).

Cases from a `.dfy` file other than the spec test the spec's method of the same name (with the spec's
signature). Everything here is pure except `find_test_sources`, `read_text` and `cases_for_spec`.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, TokKind, significant, tokenize
from bot.dafny.parser import DafnyParseError, parse_file
from bot.testcases.cases import CaseProblem, ReadResult, TestCase, join_notes
from bot.testcases.dfy_methods import (
    called_from_tests,
    function_targets,
    is_testable,
    read_dfy_tests,
)
from bot.testcases.expectations import called_names
from bot.testcases.inline import NotInlined, declared_names, follows_scopes, inline_declared
from bot.testcases.mbpp_json import read_mbpp_json, spec_method_for
from bot.testcases.textfiles import read_regular_text, toml_nesting_line
from bot.testcases.toml_cases import read_toml_cases

TOML_SUFFIX = ".tests.toml"


class SourceKind(Enum):
    DFY = "dafny test methods"
    TOML = "tests TOML"
    MBPP_JSON = "MBPP JSON"


@dataclass(frozen=True)
class TestSource:
    __test__ = False  # not a pytest class

    kind: SourceKind
    path: str
    task_id: str = ""  # MBPP JSON: the task whose cases apply


TEST_FOLDERS = ("test", "tests")


def test_file_names(name: str) -> tuple[str, ...]:
    """The names a test file of the spec file `name` may have ("x.dfy": x.dfy, x_test.dfy, x.test.dfy,
    test_x.dfy)."""
    stem = name[:-4] if name.endswith(".dfy") else name
    return (name, f"{stem}_test.dfy", f"{stem}.test.dfy", f"test_{stem}.dfy")


def candidate_sources(spec_path: str) -> list[TestSource]:
    """Where tests for a spec may be, whether or not those files exist: the spec, its TOML, then the test files
    beside it and in the test folders beside it or one level up (each path once, the spec itself not again)."""
    p = Path(spec_path)
    toml = str(p.with_name(p.stem + TOML_SUFFIX))
    out = [TestSource(SourceKind.DFY, spec_path), TestSource(SourceKind.TOML, toml)]
    names = test_file_names(p.name)
    up = Path(os.path.normpath(p.parent / ".."))
    folders = [p.parent] + [base / sub for base in (p.parent, up) for sub in TEST_FOLDERS]
    seen = {os.path.normpath(spec_path)}
    for folder in folders:
        for name in names if folder != p.parent else names[1:]:
            path = str(folder / name)
            if os.path.normpath(path) not in seen:
                seen.add(os.path.normpath(path))
                out.append(TestSource(SourceKind.DFY, path))
    return out


def explicit_source(tests_path: str, spec_path: str) -> TestSource | CaseProblem:
    """The source `--tests PATH` names, by its extension; a problem for an unknown kind of file."""
    lower = tests_path.lower()
    if lower.endswith(".dfy"):
        return TestSource(SourceKind.DFY, tests_path)
    if lower.endswith(".toml"):
        return TestSource(SourceKind.TOML, tests_path)
    if lower.endswith(".json"):
        m = re.search(r"task_id_(\w+?)\.dfy$", os.path.basename(spec_path))
        if m is None:
            reason = f"cannot tell the MBPP task of {spec_path}: the JSON needs a spec named task_id_N.dfy"
            return CaseProblem(tests_path, 0, reason)
        return TestSource(SourceKind.MBPP_JSON, tests_path, m.group(1))
    return CaseProblem(tests_path, 0, "unknown kind of test file: use a .dfy, .toml or MBPP .json file")


def read_source(source: TestSource, text: str, spec: DafnyFile) -> ReadResult:
    """The cases one source gives for the methods of `spec`; text is the source file's text."""
    if source.kind is SourceKind.TOML:
        return read_toml_cases(text, source.path, spec)
    if source.kind is SourceKind.MBPP_JSON:
        return _read_json(source, text, spec)
    if _same_file(source.path, spec.path):
        return read_dfy_tests(spec)
    try:
        tests = parse_file(text, source.path)
    except DafnyParseError as e:
        return ReadResult((), (CaseProblem(source.path, e.line, f"cannot read the test file: {e.message}"),))
    called = called_from_tests(tests)
    targets = [d for d in spec.methods() if is_testable(d) and d.name in called]
    targets += function_targets(spec, called, spec.methods())
    # one pass over the test file for all targets, then each target's cases together, in spec order
    read = read_dfy_tests(tests, targets) if targets else ReadResult((), ())
    rank: dict[str, int] = {}
    for i, d in enumerate(targets):
        rank.setdefault(d.name, i)
    cases = sorted(read.cases, key=lambda c: rank.get(c.method, len(targets)))
    # a property that uses a function or constant the test file declares is read with it in place (the harness holds
    # the spec files' declarations only: bot/testcases/inline.py), or is unreadable with the reason
    cases, refused = _read_declared(cases, tests, targets, declared_names(spec))
    read = ReadResult(read.cases, read.problems + tuple(
        CaseProblem(source.path, c.line, f"the property `{c.property}` uses the test file's declarations, and is "
                                         f"not read: {refused[id(c)]}",
                    method=c.method, name=c.name, checked=True)
        for c in read.cases if id(c) in refused))
    # read_dfy_tests already left out the unchecked calls of functions (helpers); the refused ones are checks
    problems = sorted(read.problems, key=lambda p: rank.get(p.method, len(targets)))
    if not cases and not problems:
        names = ", ".join(d.name for d in spec.methods() if is_testable(d)) or "none"
        problems.append(
            CaseProblem(
                source.path,
                0,
                f"its test methods call no method of {spec.path} "
                f"that returns a value or changes an array ({names})",
            )
        )
    return ReadResult(tuple(cases), tuple(problems))


def _read_declared(
    cases: Sequence[TestCase], tests: DafnyFile, targets: Sequence[Decl], spec_names: frozenset[str]
) -> tuple[list[TestCase], dict[int, str]]:
    """The cases with each property that uses the test file's functions or constants read with them in place, and
    why each of the others is not read (by id of the case). A name the spec file declares too is not read: which
    declaration the test means is not followed."""
    own = declared_names(tests)
    outputs = {d.name: tuple(p.name for p in d.returns) or ("result",) for d in targets}
    # the harness names the method's parameters and outputs as the method does: a call of a spec function of such
    # a name would reach the variable there
    variables = {d.name: {p.name for p in (*d.params, *d.returns)} | {"result"} for d in targets}
    scopes = follows_scopes(tests)
    out: list[TestCase] = []
    refused: dict[int, str] = {}
    for c in cases:
        mentioned = _names_in(c.property) & own if c.property else frozenset()
        if not mentioned:
            out.append(c)
            continue
        both = sorted(mentioned & spec_names)
        if both:
            refused[id(c)] = (f"`{both[0]}` is declared by the test file and by the spec: which one it means is not "
                              "followed")
            continue
        if scopes:
            refused[id(c)] = scopes
            continue
        method = c.method.split(".")[-1]
        try:
            read = inline_declared(c.property, tests, outputs.get(method, ()))
        except NotInlined as e:
            refused[id(c)] = str(e)
            continue
        hidden = sorted((called_names(read.text) - own) & variables.get(method, set()))
        if hidden:
            refused[id(c)] = (f"it calls `{hidden[0]}`, which the method's parameter or result of that name would "
                              "hide where the check is asked")
            continue
        names = ", ".join(f"`{n}`" for n in read.names)
        how = "as its definition says" if len(read.names) == 1 else "as their definitions say"
        note = join_notes(c.note, f"the test file's {names} read in place, {how}")
        out.append(replace(c, property=read.text, note=note))
    return out, refused


def _names_in(text: str) -> frozenset[str]:
    """Every identifier of an expression's text: the functions it calls and the names it uses."""
    try:
        return frozenset(t.text for t in significant(tokenize(text)) if t.kind is TokKind.IDENT)
    except LexError:
        return frozenset()


def _read_json(source: TestSource, text: str, spec: DafnyFile) -> ReadResult:
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as e:
        return ReadResult((), (CaseProblem(source.path, e.lineno, f"not valid JSON: {e.msg}"),))
    except ValueError as e:  # an integer of more than 4,300 digits
        return ReadResult((), (CaseProblem(source.path, 0, f"not read: {str(e).split(';')[0]}"),))
    except RecursionError:  # arrays or objects nested about a thousand deep
        return ReadResult((), (CaseProblem(source.path, 0, "not read: arrays or objects nested too deeply"),))
    target = spec_method_for(spec, data, source.task_id)
    if target is None:
        return ReadResult(
            (),
            (
                CaseProblem(
                    source.path,
                    0,
                    f"cannot tell which method of {spec.path} the cases of task {source.task_id} test",
                ),
            ),
        )
    return read_mbpp_json(data, source.path, source.task_id, target, text)


def merge(results: Sequence[ReadResult]) -> ReadResult:
    """All cases and problems; a case named like an earlier one of the same method gets the file's name."""
    seen: set[tuple[str, str]] = set()
    cases: list[TestCase] = []
    for r in results:
        for c in r.cases:
            if (c.method, c.name) in seen:
                c = replace(c, name=f"{c.name} ({os.path.basename(c.source)})")
            seen.add((c.method, c.name))
            cases.append(c)
    return ReadResult(tuple(cases), tuple(p for r in results for p in r.problems))


def _same_file(a: str, b: str) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


# ---------------------------------------------------------------------------------------------------
# the file system


def find_test_sources(spec_path: str) -> list[TestSource]:
    """The candidate sources that exist (the spec itself always counts): by name, so that one that cannot be read (a
    dangling symlink, a folder) is said as a problem, never taken for no tests."""
    return [s for s in candidate_sources(spec_path) if s.path == spec_path or os.path.lexists(s.path)]


def read_text(path: str) -> str:
    """A test file's text; raises OSError (also for a FIFO, a device or a folder) or UnicodeDecodeError."""
    return read_regular_text(path)


def tested_names(source: TestSource, text: str) -> frozenset[str] | None:
    """The names of the methods a test file tests; None when the file cannot be read (its reader then
    says why). A test file given by the `tests` globs applies to a spec only when it tests one of the
    spec's methods."""
    if source.kind is SourceKind.TOML:
        try:
            data = tomllib.loads(text) if toml_nesting_line(text) is None else None
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            data = None
        if data is None:
            return None
        names = {data.get("method")} | {c.get("method") for c in data.get("case", []) if isinstance(c, dict)}
        return frozenset(n for n in names if isinstance(n, str))
    if source.kind is SourceKind.MBPP_JSON:
        return None  # applies by task id (the spec's file name), checked by explicit_source
    try:
        return frozenset(called_from_tests(parse_file(text, source.path)))
    except DafnyParseError:
        return None


def _applies(source: TestSource, text: str, spec: DafnyFile) -> bool:
    names = tested_names(source, text)
    if names is None:
        return True  # unreadable: read it, so that its problem is shown
    declared = {d.name for d in spec.methods()} | {d.qualified for d in spec.methods()}
    return bool(names & declared)


def cases_for_spec(
    spec: DafnyFile, tests: str | None = None, root: Path | None = None, extra: Sequence[str] = ()
) -> ReadResult:
    """The cases for a parsed spec: from `tests` when given (`--tests PATH`), else from every source
    found beside it, plus each `extra` test file (the Action's `tests` globs) that tests one of the
    spec's methods. Never raises: unreadable files are problems. With `root`, a test file that leads
    outside it (a symlink a pull request committed) is refused, never read."""
    if tests is not None:
        src = explicit_source(tests, spec.path)
        if isinstance(src, CaseProblem):
            return ReadResult((), (src,))
        sources = [src]
    else:
        sources = find_test_sources(spec.path)
        known = {os.path.normpath(s.path) for s in sources}
        for path in extra:
            extra_src = explicit_source(path, spec.path)
            if isinstance(extra_src, TestSource) and os.path.normpath(path) not in known:
                known.add(os.path.normpath(path))
                sources.append(extra_src)
    results: list[ReadResult] = []
    for src in sources:
        if root is not None and not Path(src.path).resolve().is_relative_to(root.resolve()):
            reason = f"refused: the test file leads outside {root} (a symlink?)"
            results.append(ReadResult((), (CaseProblem(src.path, 0, reason),)))
            continue
        if src.kind is SourceKind.DFY and _same_file(src.path, spec.path):
            results.append(read_dfy_tests(spec))
            continue
        try:
            text = read_text(src.path)
        except (OSError, UnicodeDecodeError) as e:
            results.append(ReadResult((), (CaseProblem(src.path, 0, f"cannot read the test file: {e}"),)))
            continue
        if src.path in extra and not _applies(src, text, spec):
            continue  # a test file of other specs
        results.append(read_source(src, text, spec))
    return merge(results)
