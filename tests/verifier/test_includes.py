"""`include` directives: followed inside the root only, inlined into the prelude, never left in a program."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from bot.dafny.decls import DafnyFile
from bot.dafny.dialect import Dialect
from bot.dafny.includes import (
    NO_ROOT,
    NOT_A_STRING,
    IncludeError,
    blank,
    find_includes,
    included_files,
)
from bot.dafny.parser import parse_file
from bot.symbolic.harness.programs import make_prelude
from bot.symbolic.program import Outcome
from bot.symbolic.rounds import method_jobs, score_methods
from bot.testcases.discover import cases_for_spec
from bot.verifier import INCLUDE_LEFT, Dafny2Backend, Dafny4Backend, VerifierInfo, detect, make_backend
from bot.verifier.engine import Engine

HELPER = """\
predicate IsEven(n: int) { n % 2 == 0 }
function Double(n: int): int { 2 * n }
lemma DoubleIsEven(n: int) ensures IsEven(Double(n)) { assert Double(n) == 2 * n; }
method HelperBody() returns (x: int) ensures x == 1 { x := 1; var unparsed_by_the_verifier := 0; }
"""

SPEC = """\
// a spec that uses helpers from another file
include "lib/helpers.dfy"

method DoubleIt(n: int) returns (r: int)
  ensures IsEven(r) && r == Double(n)
{
  r := 2 * n;
}

method DoubleItTest() {
  var r := DoubleIt(3);
  assert r == 6;
  var s := DoubleIt(-4);
  assert s == -8;
}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(path: Path) -> DafnyFile:
    return parse_file(path.read_text(encoding="utf-8"), str(path))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root / "specs" / "lib" / "helpers.dfy", HELPER)
    write(root / "specs" / "double.dfy", SPEC)
    return root


def test_included_declarations_are_inlined_after_the_spec(workspace: Path) -> None:
    spec = load(workspace / "specs" / "double.dfy")
    prelude = make_prelude(spec, Dialect.DAFNY2, include_root=workspace)

    lines = prelude.splitlines()
    assert "include" not in prelude
    # the spec keeps its line numbers: the directive is blank, the method header where it was
    assert lines[1].strip() == ""
    assert lines[3] == "method DoubleIt(n: int) returns (r: int)"
    assert lines[4] == "  ensures IsEven(r) && r == Double(n)"
    # the helper's declarations follow, its procedure bodies removed like the spec's
    assert "predicate IsEven(n: int) { n % 2 == 0 }" in lines
    assert "function Double(n: int): int { 2 * n }" in lines
    assert "unparsed_by_the_verifier" not in prelude and "r := 2 * n" not in prelude
    assert prelude.index("IsEven(n: int)") > prelude.index("method DoubleItTest")


def test_without_includes_nothing_changes_and_no_root_is_needed(tmp_path: Path) -> None:
    source = "function F(x: int): int { x }\nmethod M(x: int) returns (y: int) ensures y == F(x) { y := x; }\n"
    spec = load(write(tmp_path / "plain.dfy", source))
    assert make_prelude(spec, Dialect.DAFNY2) == make_prelude(spec, Dialect.DAFNY2, include_root=tmp_path)
    assert make_prelude(spec, Dialect.DAFNY2).splitlines()[1] == "method M(x: int) returns (y: int) ensures y == F(x) "


def test_no_root_refuses_every_include(workspace: Path) -> None:
    spec = load(workspace / "specs" / "double.dfy")
    with pytest.raises(IncludeError) as caught:
        make_prelude(spec, Dialect.DAFNY2)
    assert str(caught.value) == f'{spec.path}:2: include "lib/helpers.dfy": {NO_ROOT}'
    assert isinstance(caught.value, ValueError)  # callers turn it into "not scored"


def test_absolute_path_outside_the_root_is_refused(tmp_path: Path, workspace: Path) -> None:
    secret = write(tmp_path / "outside" / "secret.dfy", "predicate Secret() { true }\n")
    spec = load(write(workspace / "specs" / "evil.dfy", f'// header\n\ninclude "{secret}"\nmethod M() {{}}\n'))
    with pytest.raises(IncludeError) as caught:
        make_prelude(spec, Dialect.DAFNY2, include_root=workspace)
    error = caught.value
    assert (error.where, error.line) == (spec.path, 3)
    assert str(error).startswith(f'{spec.path}:3: include "{secret}": it leads outside {workspace}')


@pytest.mark.parametrize("how", ["dotdot", "symlink", "symlinked-dir"])
def test_relative_and_symlinked_escapes_are_refused(tmp_path: Path, workspace: Path, how: str) -> None:
    write(tmp_path / "outside" / "secret.dfy", "predicate Secret() { true }\n")
    if how == "dotdot":
        target = "../../outside/secret.dfy"
    elif how == "symlink":
        os.symlink(tmp_path / "outside" / "secret.dfy", workspace / "specs" / "innocent.dfy")
        target = "innocent.dfy"
    else:
        os.symlink(tmp_path / "outside", workspace / "specs" / "vendor")
        target = "vendor/secret.dfy"
    spec = load(write(workspace / "specs" / "evil.dfy", f'include "{target}"\nmethod M() {{}}\n'))
    with pytest.raises(IncludeError, match=r"evil\.dfy:1: .*leads outside"):
        make_prelude(spec, Dialect.DAFNY2, include_root=workspace)


def test_symlink_that_stays_inside_the_root_is_followed(workspace: Path) -> None:
    os.symlink(workspace / "specs" / "lib" / "helpers.dfy", workspace / "specs" / "alias.dfy")
    spec = load(write(workspace / "specs" / "s.dfy", 'include "alias.dfy"\nmethod M() ensures IsEven(2) {}\n'))
    assert "predicate IsEven" in make_prelude(spec, Dialect.DAFNY2, include_root=workspace)


def test_include_cycle_inlines_each_file_once(workspace: Path) -> None:
    specs = workspace / "specs"
    write(specs / "a.dfy", 'include "b.dfy"\ninclude "main.dfy"\ninclude "a.dfy"\nfunction A(): int { 1 }\n')
    write(specs / "b.dfy", 'include "./a.dfy"\ninclude "lib/../a.dfy"\nfunction B(): int { A() + 1 }\n')
    spec = load(write(specs / "main.dfy", 'include "a.dfy"\nmethod M() returns (x: int) ensures x == B() {}\n'))

    found = included_files(spec, workspace)
    assert [f.path for f in found] == ["specs/a.dfy", "specs/b.dfy"]
    prelude = make_prelude(spec, Dialect.DAFNY2, include_root=workspace)
    assert prelude.count("function A()") == 1 and prelude.count("function B()") == 1
    assert prelude.count("method M()") == 1 and "include" not in prelude


def test_missing_included_file(workspace: Path) -> None:
    spec = load(write(workspace / "specs" / "m.dfy", 'method M() {}\ninclude "lib/nope.dfy"\n'))
    with pytest.raises(IncludeError) as caught:
        make_prelude(spec, Dialect.DAFNY2, include_root=workspace)
    assert str(caught.value) == f'{spec.path}:2: include "lib/nope.dfy": no such file: specs/lib/nope.dfy'


def test_problems_in_nested_files_name_the_chain(workspace: Path) -> None:
    specs = workspace / "specs"
    write(specs / "lib" / "mid.dfy", '\ninclude "broken.dfy"\n')
    write(specs / "lib" / "broken.dfy", "function F(: int { 1 }\n")
    spec = load(write(specs / "top.dfy", 'include "lib/mid.dfy"\nmethod M() {}\n'))
    with pytest.raises(IncludeError) as caught:
        make_prelude(spec, Dialect.DAFNY2, include_root=workspace)
    message = str(caught.value)
    assert message.startswith('specs/lib/mid.dfy:2: include "broken.dfy": specs/lib/broken.dfy does not parse: ')
    assert message.endswith(f"(included from {spec.path}:1)")


def test_directory_and_malformed_directives(workspace: Path) -> None:
    spec = load(write(workspace / "specs" / "d.dfy", 'include "lib"\nmethod M() {}\n'))
    with pytest.raises(IncludeError, match=r"d\.dfy:1: include \"lib\": not a regular file: specs/lib"):
        make_prelude(spec, Dialect.DAFNY2, include_root=workspace)
    with pytest.raises(IncludeError, match=re.escape(NOT_A_STRING)):
        find_includes("include helpers\nmethod M() {}\n", "x.dfy")


def test_only_directives_count_not_comments_or_strings() -> None:
    source = '// include "a.dfy"\n/* include "b.dfy" */\ninclude @"c ""q"".dfy";\nconst s := "include \\"d\\"";\n'
    found = find_includes(source)
    assert [(i.path, i.line) for i in found] == [('c "q".dfy', 3)]
    blanked = blank(source, [(i.start, i.end) for i in found])
    assert blanked.splitlines()[2].strip() == "" and len(blanked) == len(source)


def test_spec_path_locates_a_spec_parsed_under_another_name(workspace: Path) -> None:
    # the audit parses specs with paths relative to the dataset root: spec_path says where the file is
    source = (workspace / "specs" / "double.dfy").read_text()
    spec = parse_file(source, "specs/double.dfy")
    prelude = make_prelude(spec, Dialect.DAFNY2, workspace, spec_path=workspace / "specs" / "double.dfy")
    assert "predicate IsEven" in prelude


def test_pipeline_without_a_root_reports_the_include_as_not_scored(workspace: Path) -> None:
    spec = load(workspace / "specs" / "double.dfy")
    jobs = method_jobs(spec, cases_for_spec(spec))

    class NoEngine:
        def run(self, programs: object) -> dict[object, object]:
            raise AssertionError("nothing may be verified")

    [score] = score_methods(jobs, NoEngine(), Dialect.DAFNY2)  # type: ignore[arg-type]
    assert score.correctness is None and score.cases == ()
    assert 'double.dfy:2: include "lib/helpers.dfy"' in score.note


@pytest.mark.dafny
def test_method_using_an_included_helper_is_scored(dafny_command: str, workspace: Path) -> None:
    spec = load(workspace / "specs" / "double.dfy")
    jobs = method_jobs(spec, cases_for_spec(spec), include_root=workspace)
    info = detect(dafny_command)
    engine = Engine(make_backend(info), jobs=2, time_limit=20)
    dialect = Dialect.DAFNY2 if info.major < 4 else Dialect.DAFNY4

    [score] = score_methods(jobs, engine, dialect)

    assert score.note == ""
    assert [c.status.value for c in score.cases] == ["verified", "verified"], score.cases
    assert score.correctness == 1.0
    assert score.completeness == 1.0  # `r == Double(n)` rejects every other output


@pytest.mark.parametrize("major", [2, 4])
def test_verifier_never_runs_a_program_with_an_include(tmp_path: Path, major: int) -> None:
    ran = tmp_path / "ran"
    script = write(tmp_path / "fake.py", f"open({str(ran)!r}, 'w').close()\n")
    info = VerifierInfo(command=(sys.executable, str(script)), version=f"{major}.0.0", major=major)
    backend = Dafny2Backend(info) if major == 2 else Dafny4Backend(info)
    prelude = '// "include" in a comment is fine\n\ninclude "/etc/passwd"\nfunction F(): int { 1 }\n'
    results = backend.verify_batch(prelude, [("SpecScore_a", "method SpecScore_a() {}")], 5)
    result = results["SpecScore_a"]
    assert result.outcome is Outcome.ERROR
    assert result.message == INCLUDE_LEFT + 'line 3: include "/etc/passwd"'
    assert not ran.exists()
    # a program that only mentions the word is run
    backend.verify_batch('const s := "include";\n', [("SpecScore_a", "method SpecScore_a() {}")], 5)
    assert ran.exists()
