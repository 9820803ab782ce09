"""The gate judges the change: a pull request that adds a good method to a file whose older, untouched method
fails passes by default, says so, and fails with `gate-scope: files`. End to end through entrypoint.py, the real
verifier and the local fake GitHub."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support import e2e
from support.outputs import outputs as read_outputs

pytestmark = pytest.mark.dafny

OLD = """method Old(x: int) returns (r: int)
  ensures r == x + 2
{
  r := x + 2;
}

method OldTest()
{
  var a := Old(1);
  expect a == 2;
}
"""
NEW = """
method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := 2 * x;
}

method TwiceTest()
{
  var a := Twice(3);
  expect a == 6;
}
"""


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    e2e.git(repo, "init", "-q", "-b", "main")
    (repo / "specs").mkdir()
    (repo / "specs" / "m.dfy").write_text(OLD)
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "base")
    base = e2e.git(repo, "rev-parse", "HEAD")
    (repo / "specs" / "m.dfy").write_text(OLD + NEW)
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "head")
    return repo, base, e2e.git(repo, "rev-parse", "HEAD")


def test_a_good_method_added_beside_an_old_failing_one_passes_unless_files_are_gated(
        dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    repo, base, head = _repo(tmp_path)
    github_server.add_pull(e2e.REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/m.dfy", "status": "modified", "additions": 12, "deletions": 0}])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    code, log, output, _ = e2e.run_action(repo, tmp_path / "a", github_server, {}, base, head)
    assert code == 0, log
    assert read_outputs(output)["passed"] == "true"
    body = github_server.comments_on(e2e.REPO, 7)[0].body
    # the old method still fails its test: reported, with why it does not fail the check
    spared = "1 finding on methods this pull request did not change (reported, not gated):\n- specs/m.dfy: Old:"
    assert spared in body, body
    assert "The check fails on" not in body
    code, log, output, _ = e2e.run_action(repo, tmp_path / "b", github_server, {"gate-scope": "files"}, base, head)
    assert code == 1, log
    assert read_outputs(output)["passed"] == "false"
    body = github_server.comments_on(e2e.REPO, 7)[0].body
    assert "**The check fails on 1 finding:**\n- specs/m.dfy: Old:" in body, body
