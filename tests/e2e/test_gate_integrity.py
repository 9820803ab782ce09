"""A passing gate means every changed method was scored and met the thresholds.

End to end through entrypoint.py, the real verifier and the local fake GitHub: a pull request must not
pass by breaking what would score it (an unresolvable line, a broken test file, a crashing verifier),
and same-named methods of different modules are two methods.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from support import e2e
from support.outputs import outputs as read_outputs

pytestmark = pytest.mark.dafny


CUBE = """method Cube(n: int) returns (r: int)
  requires n >= 0
  ensures r == n * n * n
{
  r := n * n * n;
}
"""
CUBE_TESTS = """method CubeTest()
{
  var a := Cube(2);
  assert a == 8;
  var b := Cube(3);
  assert b == 27;
}
"""
TOML = """method = "Cube"
[[case]]
args = ["2"]
expected = "8"
"""


def make_repo(tmp_path: Path, base: dict[str, str], head: dict[str, str | None]) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    e2e.git(repo, "init", "-q", "-b", "main")
    for name, text in base.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "base")
    base_sha = e2e.git(repo, "rev-parse", "HEAD")
    for name, text in head.items():
        if text is None:
            (repo / name).unlink()
        else:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "head")
    return repo, base_sha, e2e.git(repo, "rev-parse", "HEAD")


def run(repo: Path, tmp_path: Path, server: Any, base: str, head: str, changed: list[str],
        inputs: dict[str, str] | None = None) -> tuple[int, str, dict[str, str], str]:
    server.add_pull(e2e.REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": f, "status": "modified", "additions": 1, "deletions": 1} for f in changed])
    code, log, output, _ = e2e.run_action(repo, tmp_path, server, inputs or {}, base, head)
    outputs = read_outputs(output)
    comments = server.comments_on(e2e.REPO, 7)
    return code, log, outputs, comments[0].body if comments else ""


def test_unresolvable_line_next_to_a_weakened_spec_fails(dafny_command: str, tmp_path: Path,
                                                         github_server: Any) -> None:
    weak = CUBE.replace("ensures r == n * n * n", "ensures r >= 0") + "const Broken: int := true;\n"
    repo, base, head = make_repo(tmp_path, {"specs/cube.dfy": CUBE + CUBE_TESTS},
                                 {"specs/cube.dfy": weak + CUBE_TESTS})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/cube.dfy"])
    assert code == 1, log
    assert outputs["passed"] == "false"
    assert "failed" in body and "scored at base, cannot be scored at head" in body
    row = next(line for line in body.splitlines() if line.startswith("| [<code>Cube</code>]("))
    assert "n/a (was 1.00)" in row and "removed" not in row, row
    assert "/specs/cube.dfy#L1) can no longer be scored (at base: correctness 1.00" in body, body


def test_every_case_violating_requires_is_not_a_pass(dafny_command: str, tmp_path: Path,
                                                     github_server: Any) -> None:
    tests = CUBE_TESTS.replace("Cube(2)", "Cube(-2)").replace("Cube(3)", "Cube(-3)")
    repo, base, head = make_repo(tmp_path, {"README.md": "x\n"}, {"specs/cube.dfy": CUBE + tests})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/cube.dfy"])
    assert code == 1, log
    assert "new method cannot be scored" in body and "precondition-violated" in body
    # the rule for new methods is relaxed by an input, loudly
    (tmp_path / "again").mkdir()
    code, log, outputs, body = run(repo, tmp_path / "again", github_server, base, head, ["specs/cube.dfy"],
                                   {"allow-unscored": "true"})
    assert code == 0, log
    assert "::warning::" in log and "allow-unscored" in body


def test_broken_test_file_is_not_a_silent_removal(dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    weakened = CUBE.replace("ensures r == n * n * n", "ensures true")
    for broken in ('method = "Cube"\n[[case]\nargs = [', "method = \"Cube\"\n\udcff\udcfe\n"):
        tmp = tmp_path / str(len(broken))
        tmp.mkdir()
        repo, base, head = make_repo(tmp, {"specs/cube.dfy": CUBE, "specs/cube.tests.toml": TOML},
                                     {"specs/cube.dfy": weakened, "specs/cube.tests.toml": broken})
        code, log, outputs, body = run(repo, tmp, github_server, base, head,
                                       ["specs/cube.dfy", "specs/cube.tests.toml"])
        assert code == 1, log + body
        assert "scored at base, cannot be scored at head" in body
        assert "cube.tests.toml" in body  # the problem is reported


def test_a_case_readable_at_base_and_not_at_head_fails(dafny_command: str, tmp_path: Path,
                                                       github_server: Any) -> None:
    # the spec is unchanged and the first case still verifies: only the second check stopped being read
    broken = CUBE_TESTS.replace("assert b == 27;", "assert b == Twenty7;")
    repo, base, head = make_repo(tmp_path, {"specs/cube.dfy": CUBE + CUBE_TESTS}, {"specs/cube.dfy": CUBE + broken})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/cube.dfy"])
    assert code == 1, log
    assert outputs["passed"] == "false" and outputs["regressions"] == "1"
    assert "case CubeTest\\#2 can no longer be read" in body and "Twenty7" in body, body
    # deleting a check is not a check that can no longer be read; but the case it decided is gone while its test
    # still runs, and a deleted check cannot show that the spec still meets the thresholds: it fails too
    (tmp_path / "deleted").mkdir()
    fewer = CUBE_TESTS.replace("  var b := Cube(3);\n  assert b == 27;\n", "")
    repo, base, head = make_repo(tmp_path / "deleted", {"specs/cube.dfy": CUBE + CUBE_TESTS},
                                 {"specs/cube.dfy": CUBE + fewer})
    code, log, outputs, body = run(repo, tmp_path / "deleted", github_server, base, head, ["specs/cube.dfy"])
    assert code == 1 and "can no longer be read" not in body, log + body
    assert "(n = 3) decided at base is gone at head (their test CubeTest still runs)" in unescaped(body), body


SQUARE = """method Square(n: int) returns (r: int)
  ensures r == n * n
{
  r := n * n;
}
"""
EXPECT_TESTS = """method CubeTest()
{
  var a := Cube(2);
  expect a == 8;
  var b := Cube(3);
  expect b == 27;
}
method SquareTest()
{
  var s := Square(2);
  expect s == 4;
  var t := Square(3);
  expect t == 9;
}
"""


def test_checks_reworded_next_to_a_weakened_spec_fail(dafny_command: str, tmp_path: Path,
                                                      github_server: Any) -> None:
    """A pull request weakens both specs to `ensures r >= n` and rewords every check so that it measures less.

    `Square`'s checks become `expect s > 0;`: a property that no reader can take for an equality. The case still
    verifies, but a property has no mutants and pins no value, so the completeness (1.00 at base) and the pins are
    no longer measured: that fails whatever the thresholds. `Cube`'s become `expect !(a != 8);`, which a reader
    may read as the equality it is (then the weakening is measured: wrong outputs survive, completeness drops
    below the 0.80 asked) or as a property (then the measure is gone, as for `Square`): the gate fails in both.
    """
    weak = (CUBE + SQUARE).replace("ensures r == n * n * n", "ensures r >= n").replace("ensures r == n * n",
                                                                                       "ensures r >= n")
    reworded = (EXPECT_TESTS.replace("expect a == 8;", "expect !(a != 8);")
                .replace("expect b == 27;", "expect !(b != 27);")
                .replace("expect s == 4;", "expect s > 0;").replace("expect t == 9;", "expect t > 0;"))
    repo, base, head = make_repo(tmp_path, {"specs/cube.dfy": CUBE + SQUARE + EXPECT_TESTS},
                                 {"specs/cube.dfy": weak + reworded})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/cube.dfy"],
                                   {"min-completeness": "0.8"})
    assert code == 1, log
    assert outputs["passed"] == "false"
    body = unescaped(body)
    assert "## ❌ Dafny Spec Score: failed" in body
    assert "Square: completeness was 1.00 at base and is not measured at head: no case has a mutant" in body, body
    assert "pinned at base are not shown pinned at head (its check is now a property" in body, body
    assert "a measure the base had and the head lacks (a threshold that is not measured is not met)" in body, body
    assert "lost a measure" in body  # the method's sentence at the top says so too
    assert re.search(r"Cube: (completeness was 1\.00 at base and is not measured at head|completeness 0\.\d\d &lt; "
                     r"0\.80)", body), body
    assert "Square: completeness not measured" not in body  # the loss is said once, not also against 0.80


def unescaped(markdown: str) -> str:
    """The comment's text without its markdown escapes (`\\#`, `\\(`)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_a_change_to_an_included_file_rescores_the_specs_that_include_it(dafny_command: str, tmp_path: Path,
                                                                       github_server: Any) -> None:
    helper = "function Cubed(n: int): int\n  ensures Cubed(n) == n * n * n\n{ n * n * n }\n"
    false_helper = helper.replace("{ n * n * n }", "{ n * n }")  # its `ensures` no longer holds
    spec = 'include "lib/cubed.dfy"\n' + CUBE.replace("ensures r == n * n * n", "ensures r == Cubed(n)")
    repo, base, head = make_repo(tmp_path, {"specs/cube.dfy": spec + CUBE_TESTS, "specs/lib/cubed.dfy": helper},
                                 {"specs/lib/cubed.dfy": false_helper})
    # only the included file changed: the spec that includes it is scored at head and base
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/lib/cubed.dfy"])
    assert code == 1, log
    assert "<code>Cube</code>" in body and "do not verify" in body and "Cubed" in body, body


def test_crashing_verifier_fails_the_gate(dafny_command: str, tmp_path: Path, github_server: Any,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dafny"
    fake.write_text(f"""#!{sys.executable}
import sys
if any("version" in a for a in sys.argv[1:]):
    print("Dafny 2.3.0.10506")
    sys.exit(0)
print("Unhandled Exception: System.NullReferenceException")
sys.exit(134)
""")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    repo, base, head = make_repo(tmp_path, {"specs/cube.dfy": CUBE + CUBE_TESTS},
                                 {"specs/cube.dfy": CUBE.replace("n * n * n", "n*n*n") + CUBE_TESTS})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/cube.dfy"])
    assert code == 1, log
    assert outputs["passed"] == "false"


def test_same_named_methods_in_modules_are_two_methods(dafny_command: str, tmp_path: Path,
                                                       github_server: Any) -> None:
    spec = """module A {
  method Add(x: int, y: int) returns (r: int)
    ensures r == x + y
  { r := x + y; }
}
module B {
  method Add(x: int, y: int) returns (r: int)
    ensures r >= x
  { r := x + y; }
}
method Tests()
{
  var a := A.Add(1, 2);
  assert a == 3;
  var b := B.Add(1, 2);
  assert b == 3;
}
"""
    repo, base, head = make_repo(tmp_path, {"README.md": "x\n"}, {"specs/add.dfy": spec})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head, ["specs/add.dfy"],
                                   {"min-completeness": "0.9"})
    report = json.loads((repo / "dafny-spec-score.json").read_text())
    rows = {m["method"]: m for m in report["methods"]}
    assert set(rows) == {"A.Add", "B.Add"}
    assert [len(m["cases"]) for m in rows.values()] == [1, 1]  # each test counted once, for its own method
    assert rows["A.Add"]["completeness"] == 1.0 and rows["B.Add"]["completeness"] < 0.9
    assert code == 1 and "B.Add: completeness" in body


def test_the_pull_requests_config_file_does_not_judge_it(dafny_command: str, tmp_path: Path,
                                                         github_server: Any) -> None:
    strict = "min-completeness = 0.9\n"
    weak = CUBE.replace("ensures r == n * n * n", "ensures r >= 0")
    repo, base, head = make_repo(
        tmp_path, {"specs/cube.dfy": CUBE + CUBE_TESTS, ".dafny-spec-score.toml": strict},
        {"specs/cube.dfy": weak + CUBE_TESTS,
         ".dafny-spec-score.toml": 'min-completeness = 0.0\nspecs = ["x/*.dfy"]\n'})
    code, log, outputs, body = run(repo, tmp_path, github_server, base, head,
                                   ["specs/cube.dfy", ".dafny-spec-score.toml"])
    assert code == 1, log
    assert "this run uses the base branch's" in log
    assert "completeness" in body and "0.90" in body
