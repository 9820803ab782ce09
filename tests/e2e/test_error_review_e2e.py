"""Errors once and where they are, end to end through `entrypoint.py`, the real verifier and the local GitHub: a
pull request whose new method's `ensures` does not resolve, or whose TOML test file has a broken line, or whose spec
or test file does not parse, gets the cause once at the top of the summary comment and one review comment on that
line (the user's file, never a generated one), worded as an error; a re-run adds nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.report.comment import ERRORS
from support import e2e

pytestmark = pytest.mark.dafny

OLD = """method Old(x: int) returns (r: int)
  ensures r == x + 2
{
  r := x + 2;
}

method OldTest()
{
  var a := Old(1);
  expect a == 3;
}
"""
NEW = """
method Inc(x: int) returns (y: int)
  ensures y == z + 1
{
  y := x + 1;
}

method IncTest()
{
  var a := Inc(1);
  expect a == 2;
}
"""
TWICE = """method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := 2 * x;
}

method Half(x: int) returns (r: int)
  ensures r == x / 2
{
  r := x / 2;
}
"""
TOML = """method = "Twice"
[[case]]
args = ["3"]
expected = "6"

[[case]]
method = "Half"
args = ["4"]
expected = "2"
"""
BROKEN = TOML.replace("[[case]]\nmethod", "[[case]\nmethod")  # line 6


def _repo(tmp_path: Path, files: dict[str, str], changed: dict[str, str]) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    e2e.git(repo, "init", "-q", "-b", "main")
    for commit, texts in (("base", files), ("head", changed)):
        for path, text in texts.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        e2e.git(repo, "add", "-A")
        e2e.git(repo, "commit", "-q", "-m", commit)
    return repo, e2e.git(repo, "rev-parse", "HEAD~1"), e2e.git(repo, "rev-parse", "HEAD")


def _run(tmp_path: Path, server: Any, files: dict[str, str], changed: dict[str, str]) -> tuple[int, str, str]:
    """The pull request's run: its exit status, log and summary comment."""
    repo, base, head = _repo(tmp_path, files, changed)
    listed = []
    for path in changed:
        diff = e2e.git(repo, "diff", base, head, "--", path)
        listed.append({"filename": path, "status": "modified" if path in files else "added",
                       "patch": diff[diff.find("@@"):]})
    server.add_pull(e2e.REPO, 7, base_sha=base, head_sha=head, files=listed)
    code, log, _, _ = e2e.run_action(repo, tmp_path, server, {}, base, head)
    (comment,) = server.comments_on(e2e.REPO, 7)
    return code, log, comment.body


def _top(body: str) -> list[str]:
    """The summary comment's list of errors, one line each."""
    assert body.count(ERRORS) == 1, body
    return body.split(ERRORS, 1)[1].strip().split("\n\n")[0].split("\n")


def _inline(server: Any) -> list[tuple[str, int | None, str]]:
    """Each review comment: its file, line and sentence (the line after the marker)."""
    return [(c.path, c.line, c.body.split("\n")[1]) for c in server.review_comments_on(e2e.REPO, 7)]


def test_an_unresolvable_clause_is_said_once_at_the_top_and_once_on_its_line(
        dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    # an old method, scored at base, and a new one whose `ensures` names what is not declared
    code, log, body = _run(tmp_path, github_server, {"specs/m.dfy": OLD}, {"specs/m.dfy": OLD + NEW})
    assert code == 1, log  # nothing of the file can be scored: the check fails
    assert _top(body) == [r"- <code>specs/m.dfy</code> line 14: unresolved identifier: z \(\`ensures y == z \+ 1\`\)"]
    # one comment on the clause, worded as an error with what to fix; Inc's "could not be scored" (on the same line)
    # and Old's are not placed beside it: one cause, one comment
    assert _inline(github_server) == [("specs/m.dfy", 14, (
        "This line does not resolve: unresolved identifier: z. Dafny checks nothing in <code>specs/m.dfy</code> until "
        "it does, so no method of the file can be scored (<code>Inc</code>, <code>Old</code>): fix this line, or the "
        "declaration it refers to."))]
    assert "batch.dfy" not in body + "".join(c.body for c in github_server.review_comments_on(e2e.REPO, 7))
    assert "review created with 1 comment(s)" in log and "outside the diff" not in log
    # the same commit again: the comment stands as it was, and no review is added
    (first,) = github_server.review_comments_on(e2e.REPO, 7)
    repo = tmp_path / "repo"
    code, log, _, _ = e2e.run_action(repo, tmp_path, github_server, {}, e2e.git(repo, "rev-parse", "HEAD~1"),
                                     e2e.git(repo, "rev-parse", "HEAD"))
    assert code == 1, log
    (again,) = github_server.review_comments_on(e2e.REPO, 7)
    assert (again.id, again.body) == (first.id, first.body) and len(github_server.reviews_on(e2e.REPO, 7)) == 1


def test_a_broken_toml_line_is_said_once_at_the_top_and_once_on_its_line(
        dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    code, log, body = _run(tmp_path, github_server, {"specs/t.dfy": TWICE, "specs/t.tests.toml": TOML},
                           {"specs/t.tests.toml": BROKEN})
    assert code == 1, log
    (top,) = _top(body)
    assert top.startswith(r"- <code>specs/t.tests.toml</code> line 6: not valid TOML: Expected '\]\]'"), top
    # on the TOML line, not on the two methods' lines in specs/t.dfy (which this pull request did not change)
    ((path, line, sentence),) = _inline(github_server)
    assert (path, line) == ("specs/t.tests.toml", 6)
    assert sentence.startswith(r"This TOML line cannot be read: not valid TOML: Expected '\]\]'"), sentence
    assert sentence.endswith("The test cases it holds are not scored until it is fixed (<code>Half</code>, "
                             "<code>Twice</code>).")


def test_files_no_method_is_scored_from_still_get_their_errors_said_and_placed(
        dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    # a spec file that no longer parses, and a new TOML file that never did (no method of its spec is scored)
    broken = OLD.replace("r := x + 2;\n}", "r := x + 2;\n")
    code, log, body = _run(tmp_path, github_server, {"specs/m.dfy": OLD, "specs/t.dfy": TWICE},
                           {"specs/m.dfy": broken, "specs/t.tests.toml": BROKEN})
    assert code == 1, log
    assert _top(body) == [r"- <code>specs/m.dfy</code> line 3: '\{' is never closed \(add the missing '\}'\)",
                          r"- <code>specs/t.tests.toml</code> line 6: not valid TOML: Expected '\]\]' at the end of "
                          r"an array declaration \(at line 6, column 7\)"]
    assert [(p, n, s.split(":")[0]) for p, n, s in _inline(github_server)] == [
        ("specs/m.dfy", 3, "This line does not parse"), ("specs/t.tests.toml", 6, "This TOML line cannot be read")]
