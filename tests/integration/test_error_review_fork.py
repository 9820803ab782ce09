"""The fork recipe's second workflow says and places the errors of files no method is scored from, as the run that
saved them would have: a TOML file that does not parse is listed at the top and commented on its line; a saved list
that is not one of strings is refused (the saved file comes from an untrusted run)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from bot.config import Config, Mode
from bot.github.action import run_post_comment, saved_comment
from bot.github.api import GitHubClient
from bot.github.pr.event import PullRequestEvent
from bot.report.comment import ERRORS
from bot.symbolic.results import CaseResult, CaseStatus, method_score
from bot.verifier import VerifierInfo

REPO = "owner/specs"
HEAD = "a" * 40

TOML = "specs/add.tests.toml:2: not valid TOML: Expected ']]' at the end of an array declaration"



def save(tmp_path: Path, file_errors: list[Any]) -> Path:
    """A comment saved by a fork's run whose one method is scored and whose TOML file does not parse."""
    case = CaseResult("T#1", 3, "x = 1", "r = 2", "", "specs/add.dfy", CaseStatus.VERIFIED, "")
    head = [method_score("specs/add.dfy", "Add", 1, (case,))]
    data = saved_comment(Config(repository=REPO, working_directory=tmp_path, workspace=tmp_path),
                         PullRequestEvent(7, "b" * 40, HEAD, True), VerifierInfo(("dafny",), "2.3.0.10506", 2), head,
                         head)
    data["file_errors"] = file_errors
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data))
    return path


def post(tmp_path: Path, server: Any, saved: Path) -> tuple[int, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"workflow_run": {"head_sha": HEAD, "pull_requests": [
        {"number": 7, "head": {"sha": HEAD}}]}}))
    config = Config(token="t0ken", mode=Mode.POST_COMMENT, comment_file=saved, repository=REPO,
                    event_name="workflow_run", event_path=event, api_url=server.url, working_directory=tmp_path,
                    workspace=tmp_path)
    out = io.StringIO()
    github = GitHubClient("t0ken", REPO, base_url=server.url)
    try:
        return run_post_comment(config, github, out), out.getvalue()
    finally:
        github.close()


def test_a_saved_error_of_a_file_is_said_and_placed_on_its_line(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD, files=[
        {"filename": "specs/add.tests.toml", "status": "added", "patch": "@@ -0,0 +1,3 @@\n+a\n+b\n+c"}])
    code, log = post(tmp_path, github_server, save(tmp_path, [TOML]))
    assert code == 0, log
    (comment,) = github_server.comments_on(REPO, 7)
    assert comment.body.split(ERRORS, 1)[1].split("\n")[2].startswith(
        r"- <code>specs/add.tests.toml</code> line 2: not valid TOML: Expected '\]\]'")
    (inline,) = github_server.review_comments_on(REPO, 7)
    assert (inline.path, inline.line) == ("specs/add.tests.toml", 2)
    assert inline.body.split("\n")[1].startswith("This TOML line cannot be read: not valid TOML")


def test_saved_errors_that_are_not_strings_are_refused(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    code, log = post(tmp_path, github_server, save(tmp_path, [{"x": 1}]))
    assert code == 2 and "file_errors: not a list of at most" in log, log
    assert github_server.comments_on(REPO, 7) == []
