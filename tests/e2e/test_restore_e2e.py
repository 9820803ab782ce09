"""End to end with the real verifier: a pull request that deletes a clause gets a review comment on the method's
remaining clause, through `entrypoint.py` against the local GitHub, with base's clause back as a suggestion only
when that edit is proved to reject the witness and to accept every test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.symbolic.results import FIXES_TEST
from support.e2e import REPO, pull_changing, run_action
from support.paths import DATA

pytestmark = pytest.mark.dafny

# base's second clause is wrong for negative inputs, and a test says so (Abs(-2) == 2); head deletes it
WRONG_BASE = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == x
{
  r := if x < 0 then -x else x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var c := Abs(-2);
  expect c == 2;
}
"""


def _pull(repo: Path, server: Any, base_text: str, head_text: str) -> tuple[str, str]:
    return pull_changing(repo, server, "specs/abs.dfy", base_text, head_text)


def _applied(text: str, first: int, last: int, body: str) -> str:
    """`text` with lines first..last replaced by the body's suggestion block, as GitHub commits it."""
    block = body.split("```suggestion\n", 1)[1].split("\n```", 1)[0]
    rows = text.split("\n")
    return "\n".join([*rows[: first - 1], *block.split("\n"), *rows[last:]])


def test_a_deleted_clause_is_offered_back_on_the_remaining_clause(
    dafny_command: str, github_server: Any, tmp_path: Path, warm_cache: Callable[[str], Path]
) -> None:
    base_text = (DATA / "spec_change" / "abs_base.dfy").read_text()
    head_text = (DATA / "spec_change" / "abs_weaker.dfy").read_text()
    repo = tmp_path / "repo"
    base, head = _pull(repo, github_server, base_text, head_text)
    code, log, _, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=warm_cache("restore-abs"))
    assert code == 1, log  # a proved weakening fails the check (fail-on-weakening)
    (inline,) = github_server.review_comments_on(REPO, 7)
    assert (inline.path, inline.start_line or inline.line, inline.line) == ("specs/abs.dfy", 2, 2)
    (summary,) = github_server.comments_on(REPO, 7)
    # the summary comment's sentence, word for word
    sentence = next(line for line in inline.body.split("\n") if "got weaker beyond the tests" in line)
    assert f"- {sentence}" in summary.body and "<code>Abs</code>" in sentence
    assert "```suggestion\n  ensures x >= 0 ==> r == x\n  ensures x < 0 ==> r == -x\n```" in inline.body
    # committing the suggestion gives base's spec back
    assert _applied(head_text, 2, 2, inline.body) == base_text


def test_a_clause_a_test_refutes_is_not_offered_back(
    dafny_command: str, github_server: Any, tmp_path: Path, warm_cache: Callable[[str], Path]
) -> None:
    repo = tmp_path / "repo"
    head_text = WRONG_BASE.replace("  ensures x < 0 ==> r == x\n", "")
    base, head = _pull(repo, github_server, WRONG_BASE, head_text)
    code, log, _, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=warm_cache("restore-fixes"))
    assert code == 0, log  # a weakening that fixes a test passes the check, and says so
    # head accepts wrong outputs of Abs(-2) too (its own comment); the weakening is the other one
    (inline,) = [c for c in github_server.review_comments_on(REPO, 7) if "got weaker beyond the tests" in c.body]
    assert (inline.path, inline.line) == ("specs/abs.dfy", 2) and FIXES_TEST in inline.body
    # base's clause rejects the expected output of Abs(-2): restoring it cannot accept every test
    assert "suggestion" not in inline.body
