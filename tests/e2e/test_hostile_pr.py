"""One pull request carrying every trick at once, end to end with the real verifier and the fake GitHub.

The check must fail; the comment must ping no one and keep its layout; the log must hold no workflow
command the pull request wrote; nothing may be written outside the workspace.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from support import e2e, runner_log
from support.outputs import outputs
from support.paths import GOLDEN

HOSTILE_GOLDEN = GOLDEN / "comment_hostile.md"
EVIL_NAME = "specs/x\n::error title=pwned::injected @octocat <details><summary><!--.dfy"


def injected(log: str) -> list[str]:
    """The workflow commands the pull request wrote (its word `pwned` in a name, data or property), as the
    runner reads the log."""
    hits: list[str] = runner_log.injected([log], "pwned")
    return hits


ADD = """module A {
  method Add(x: int, y: int) returns (r: int)
    ensures r == x + y
  { r := x + y; }
}
module B {
  method Add(x: int, y: int) returns (r: int)
    ensures r == x + y
  { r := x + y; }
}
method AddTest()
{
  var a := A.Add(1, 2);
  assert a == 3;
  var b := B.Add(2, 2);
  assert b == 4;
}
"""
ECHO = """method Echo(s: string) returns (r: string)
  ensures r == s
{ r := s; }

method EchoTest()
{
  var r := Echo("@everyone </details> <!-- x -->");
  assert r == "@everyone </details> <!-- x -->";
}
"""


@pytest.mark.dafny
def test_hostile_pull_request(dafny_command: str, tmp_path: Path, github_server: Any) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("untouched\n")
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    e2e.git(repo, "init", "-q", "-b", "main")
    (repo / "specs" / "add.dfy").write_text(ADD)
    (repo / "specs" / "echo.dfy").write_text(ECHO)
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "base")
    base = e2e.git(repo, "rev-parse", "HEAD")
    # head: a weakened spec next to a line that does not resolve, a file with a newline and `::` in its
    # name, a symlink where the report is written, and the mention-laden string tests stay
    first = "ensures r == x + y\n  { r := x + y; }\n}\nmodule B"
    weakened = ADD.replace(first, first.replace("r == x + y", "r >= x"))
    (repo / "specs" / "add.dfy").write_text(weakened + "const Broken: int := true;\n")
    (repo / EVIL_NAME).write_text(ECHO.replace("Echo", "Evil"))
    os.symlink(victim, repo / "dafny-spec-score.json")
    e2e.git(repo, "add", "-A")
    e2e.git(repo, "commit", "-q", "-m", "head")
    head = e2e.git(repo, "rev-parse", "HEAD")
    github_server.add_pull(e2e.REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": name, "status": "modified"} for name in ("specs/add.dfy", "specs/echo.dfy", EVIL_NAME)])

    code, log, output, summary = e2e.run_action(repo, tmp_path, github_server, {"min-completeness": "0.5"}, base, head)

    assert code == 1, log
    assert outputs(output)["passed"] == "false"
    assert victim.read_text() == "untouched\n"  # the symlink was replaced, not followed
    assert (repo / "dafny-spec-score.json").is_file() and not (repo / "dafny-spec-score.json").is_symlink()
    assert injected(log) == [], log
    (comment,) = github_server.comments_on(e2e.REPO, 7)
    body = comment.body
    assert not re.search(r"(?<![\w&#;])@(everyone|octocat)\b", body.replace("@&#8205;", "")), body
    assert body.count("<details>") == body.count("</details>")
    assert "A.Add" in body and "scored at base, cannot be scored at head" in body
    # the links name the head commit, whose hash changes with every run
    assert "/blob/" + head + "/specs/x%0A%3A%3Aerror%20title%3Dpwned" in body  # the path percent-encoded
    if os.environ.get("UPDATE_GOLDEN") == "1":
        HOSTILE_GOLDEN.write_text(body.replace(head, "HEAD_SHA"))
    assert body.replace(head, "HEAD_SHA") == HOSTILE_GOLDEN.read_text()


def test_config_key_cannot_inject_a_command(tmp_path: Path, github_server: Any) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".dafny-spec-score.toml").write_text('"x\\n::error title=pwned::boom" = 1\n"%0A::warning::pwned" = 2\n')
    code, log, _, _ = e2e.run_action(repo, tmp_path, github_server, {}, "b" * 40, "h" * 40)
    assert code == 2
    assert "unknown key" in log
    assert injected(log) == [], log


def test_the_log_is_read_as_the_runner_reads_it() -> None:
    # the one reader of tests/support/runner_log.py, which tests/hostile/battery.py loads too
    assert injected("ok\n::error title=pwned::x.dfy\n") == ["::error title=pwned::x.dfy"]
    assert injected("::warning::pwned") == ["::warning::pwned"]
    assert injected("a\r::notice title=pwned::w.dfy") == ["::notice title=pwned::w.dfy"]  # CR ends a line too
    assert injected("text ##[error]pwned.dfy") == ["text ##[error]pwned.dfy"]  # the legacy form, anywhere
    assert injected("  ::error title=pwned::x") == ["  ::error title=pwned::x"]  # after leading blanks
    # escaped, or inside stop-commands: no command
    assert injected("::error file=specs/x%0A::error title=pwned::x.dfy::bad") == []
    assert injected("::stop-commands::tok\n::error title=pwned::x\n::tok::\n") == []
    assert injected("::stop-commands::tok\n::tok::\n::error title=pwned::x\n") == ["::error title=pwned::x"]
    assert injected("::error::the spec is pwned") == [] and injected("::nosuch::pwned") == []
