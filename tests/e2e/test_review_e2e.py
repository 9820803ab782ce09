"""End to end with the real verifier: the review comments of a pull request that weakens the paper's spec,
through `entrypoint.py` against the local GitHub, over three pushes: the weakening, an unrelated change, the fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.e2e import EXAMPLE, REPO, STRONG, WEAK, git, run_action

pytestmark = pytest.mark.dafny

CONVERSE = "  ensures forall x :: InArray(a, x) && InArray(b, x) ==> x in result"
# scored with the file, weak at base and head alike, and far from the changed lines: outside the diff
LARGEST = """
method Largest(a: int, b: int) returns (m: int)
  ensures m >= a && m >= b
{
  m := if a > b then a else b;
}

method LargestTest()
{
  var m := Largest(3, 7);
  expect m == 7;
}
"""


def _commit(repo: Path, text: str, message: str) -> str:
    (repo / "specs" / "shared.dfy").write_text(text)
    git(repo, "commit", "-q", "-am", message)
    return git(repo, "rev-parse", "HEAD")


def _files(repo: Path, base: str, head: str) -> list[dict[str, Any]]:
    diff = git(repo, "diff", base, head, "--", "specs/shared.dfy")
    return [{"filename": "specs/shared.dfy", "status": "modified", "patch": diff[diff.find("@@"):]}]


# what this test watches is where review comments go: the weakening it makes is proved and would fail the check
# (fail-on-weakening, tests/integration/test_action_inprocess.py), which is not its subject
PLACEMENT = {"fail-on-weakening": "false"}


def test_review_comments_are_placed_edited_and_removed_as_the_pull_request_moves(
    dafny_command: str, github_server: Any, tmp_path: Path, warm_cache: Callable[[str], Path]
) -> None:
    cache = warm_cache("review-pr")
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    weak = EXAMPLE.read_text() + LARGEST
    (repo / "specs" / "shared.dfy").write_text(weak.replace(WEAK, STRONG))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    head = _commit(repo, weak, "relax the spec")
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=_files(repo, base, head))

    # 1. the weakening: one review, one comment over the changed `ensures` and the clause after it; and one
    # over the same lines that says it got weaker than base's, with base's clause back in place as a suggestion
    code, log, _, _ = run_action(repo, tmp_path, github_server, PLACEMENT, base, head, cache=cache)
    assert code == 0, log
    (review,) = github_server.reviews_on(REPO, 7)
    (inline, weaker) = sorted(github_server.review_comments_on(REPO, 7), key=lambda c: "got weaker" in c.body)
    assert (weaker.start_line, weaker.line) == (10, 11) and "got weaker beyond the tests" in weaker.body
    assert f"```suggestion\n  {STRONG}\n  ensures forall i, j" in weaker.body
    assert (review.event, review.commit_id) == ("COMMENT", head)
    assert (inline.path, inline.start_line, inline.line) == ("specs/shared.dfy", 10, 11)
    assert "<code>SharedElements</code> accepts a wrong output" in inline.body
    assert f"```suggestion\n{WEAK.join(['  ', ''])}\n  ensures forall i, j" in inline.body
    assert f"{CONVERSE}\n```" in inline.body
    assert "pinned up to order" in inline.body and head[:12] in inline.body
    # the weak method outside the diff is in the summary comment only
    assert "Largest" not in "".join(c.body for c in github_server.review_comments_on(REPO, 7))
    (summary,) = github_server.comments_on(REPO, 7)
    assert "<code>Largest</code>" in summary.body
    assert "1 finding(s) on lines outside the diff" in log

    # 2. a push that leaves the finding where it was: the same comment, edited to name the new head
    moved = _commit(repo, weak + "\n// more tests to come\n", "a note")
    github_server.set_head(REPO, 7, moved, _files(repo, base, moved))
    code, log, _, _ = run_action(repo, tmp_path, github_server, PLACEMENT, base, moved, cache=cache)
    assert code == 0, log
    (edited,) = [c for c in github_server.review_comments_on(REPO, 7) if c.id != weaker.id]
    assert edited.id == inline.id and moved[:12] in edited.body and head[:12] not in edited.body
    assert len(github_server.reviews_on(REPO, 7)) == 1

    # 3. the fix (the suggestion, committed): the comments are deleted (head is equivalent to base again), and no
    # review is added
    fixed = _commit(repo, weak.replace(WEAK, WEAK + "\n" + CONVERSE) + "\n// more tests to come\n", "the converse")
    github_server.set_head(REPO, 7, fixed, _files(repo, base, fixed))
    code, log, _, _ = run_action(repo, tmp_path, github_server, PLACEMENT, base, fixed, cache=cache)
    assert code == 0, log
    assert github_server.review_comments_on(REPO, 7) == [] and len(github_server.reviews_on(REPO, 7)) == 1
    assert github_server.requests_for("DELETE", rf"/repos/{REPO}/pulls/comments/{inline.id}")
