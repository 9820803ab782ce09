"""`mode: post-comment` (the fork recipe's second workflow): the saved file is data from an untrusted run.

In process, against the local fake GitHub: the comment is rendered again from the saved scores, and it
is posted only on the pull request the triggering workflow_run was for.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from bot.config import Config, Mode
from bot.dafny.spans import ClauseSpan, EnsuresSpan
from bot.github.action import SAVED_VERSION, run_post_comment, saved_comment
from bot.github.api import GitHubClient
from bot.github.pr.event import PullRequestEvent
from bot.symbolic.results import CaseResult, CaseStatus, MutantResult, MutantStatus, method_score
from bot.verifier import VerifierInfo

REPO = "owner/specs"
HEAD = "a" * 40
MARKER = "<!-- dafny-spec-score:default -->"


def scores(method: str = "Add") -> list[Any]:
    case = CaseResult("T#1", 3, "x = 1", "r = 2", "", "f.dfy", CaseStatus.VERIFIED, "",
                      (MutantResult("3", "r: 2 -> 3", MutantStatus.SURVIVED),))
    return [method_score("specs/add.dfy", method, 1, (case,))]


def config(tmp_path: Path, saved: Path, event: dict[str, Any] | None, server: Any) -> Config:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event or {}))
    return Config(token="t0ken", mode=Mode.POST_COMMENT, comment_file=saved, repository=REPO,
                  event_name="workflow_run" if event is not None else "pull_request", event_path=event_path,
                  api_url=server.url, working_directory=tmp_path, workspace=tmp_path)


def save(tmp_path: Path, pr: int = 7, head_sha: str = HEAD, method: str = "Add",
         spans: dict[tuple[str, str], EnsuresSpan] | None = None, **extra: Any) -> Path:
    event = PullRequestEvent(pr, "b" * 40, head_sha, True)
    cfg = Config(repository=REPO, working_directory=tmp_path, workspace=tmp_path)
    data = saved_comment(cfg, event, VerifierInfo(("dafny",), "2.3.0.10506", 2), scores(method), scores(method),
                         spans)
    data.update(extra)
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data))
    return path


def workflow_run(numbers: list[int], head_sha: str = HEAD) -> dict[str, Any]:
    return {"workflow_run": {"head_sha": head_sha,
                             "pull_requests": [{"number": n, "head": {"sha": head_sha}} for n in numbers]}}


def post(tmp_path: Path, server: Any, saved: Path, event: dict[str, Any] | None) -> tuple[int, str]:
    out = io.StringIO()
    github = GitHubClient("t0ken", REPO, base_url=server.url)
    try:
        code = run_post_comment(config(tmp_path, saved, event, server), github, out)
    finally:
        github.close()
    return code, out.getvalue()


def test_posts_a_comment_rendered_again_from_the_saved_scores(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    # a body in the file is ignored: the comment comes from the scores, escaped like any report
    saved = save(tmp_path, method="Add @octocat </details>", body="@everyone pwned")
    code, log = post(tmp_path, github_server, saved, workflow_run([7]))
    assert code == 0, log
    (comment,) = github_server.comments_on(REPO, 7)
    assert comment.body.startswith(MARKER)
    assert "@everyone" not in comment.body and "@octocat" not in comment.body
    assert "</details>" not in comment.body.replace("\n</details>", "")  # only the renderer's own closings
    assert "<code>3</code>" in comment.body  # the surviving mutant
    # no checkout here: the method links to its line at the saved head commit (no clause spans)
    assert f"](https://github.com/{REPO}/blob/{HEAD}/specs/add.dfy#L1)" in comment.body


def test_refuses_another_pull_request(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    github_server.add_pull(REPO, 8, head_sha="c" * 40)
    code, log = post(tmp_path, github_server, save(tmp_path, pr=8), workflow_run([7]))
    assert code == 2 and "refusing to post" in log
    assert github_server.comments_on(REPO, 8) == []


def test_refuses_a_saved_head_that_is_not_the_runs(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    code, log = post(tmp_path, github_server, save(tmp_path, head_sha="d" * 40), workflow_run([7]))
    assert code == 2 and "refusing to post" in log
    assert github_server.comments_on(REPO, 7) == []


def test_fork_runs_without_pull_requests_are_checked_through_the_api(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    github_server.add_pull(REPO, 8, head_sha="e" * 40)
    code, log = post(tmp_path, github_server, save(tmp_path, pr=7), workflow_run([]))
    assert code == 0, log
    code, log = post(tmp_path, github_server, save(tmp_path, pr=8), workflow_run([]))
    assert code == 2 and "head is not the triggering run's commit" in log
    assert github_server.comments_on(REPO, 8) == []


def test_refuses_outside_workflow_run_and_bad_files(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    code, log = post(tmp_path, github_server, save(tmp_path), None)
    assert code == 2 and "workflow_run" in log
    bad = tmp_path / "bad.json"
    for text in ("{", json.dumps({"version": SAVED_VERSION, "pr": "7", "head_sha": HEAD}),
                 json.dumps({"pr": 7, "body": "@everyone"}),
                 json.dumps({"version": SAVED_VERSION, "pr": 7, "head_sha": HEAD, "gate": {},
                             "head": [{"cases": [{"status": "pwned"}]}], "base": []})):
        bad.write_text(text)
        code, log = post(tmp_path, github_server, bad, workflow_run([7]))
        assert code == 2 and "not a comment saved by this action" in log
    bad.write_text(" " * (20 * 1024 * 1024 + 1))
    code, log = post(tmp_path, github_server, bad, workflow_run([7]))
    assert code == 2 and "larger than" in log
    assert github_server.comments_on(REPO, 7) == []


def span(line: int) -> dict[tuple[str, str], EnsuresSpan]:
    return {("specs/add.dfy", "Add"): EnsuresSpan("Add", line - 1, (ClauseSpan("r > x", line, line),), ("r",), line,
                                                  ("  ensures r > x",))}


def test_the_review_goes_on_the_saved_clause_when_the_pull_requests_own_diff_has_it(
    github_server: Any, tmp_path: Path
) -> None:
    patch = "@@ -1,3 +1,3 @@\n method Add(x: int) returns (r: int)\n-  ensures r == x + 1\n+  ensures r > x\n {"
    github_server.add_pull(REPO, 7, head_sha=HEAD, files=[{"filename": "specs/add.dfy", "patch": patch}])
    code, log = post(tmp_path, github_server, save(tmp_path, spans=span(2)), workflow_run([7]))
    assert code == 0, log
    (inline,) = github_server.review_comments_on(REPO, 7)
    assert (inline.path, inline.line) == ("specs/add.dfy", 2) and "accepts a wrong output" in inline.body
    # a saved line the diff does not hold gets nothing inline: the file cannot place comments elsewhere
    github_server.review_comments.clear()
    code, log = post(tmp_path, github_server, save(tmp_path, spans=span(40)), workflow_run([7]))
    assert code == 0, log
    assert github_server.review_comments_on(REPO, 7) == [] and len(github_server.reviews_on(REPO, 7)) == 1


def test_saved_spans_of_the_wrong_shape_are_refused(github_server: Any, tmp_path: Path) -> None:
    github_server.add_pull(REPO, 7, head_sha=HEAD)
    bad = [{"file": "specs/add.dfy", "method": "Add", "line": 1, "spec_last": 9, "outputs": ["r"],
            "clauses": [{"text": "r > x", "first": 2, "last": 2}], "lines": ["one line for eight"]}]
    saved = save(tmp_path)
    saved.write_text(json.dumps({**json.loads(saved.read_text()), "spans": bad}))
    code, log = post(tmp_path, github_server, saved, workflow_run([7]))
    assert code == 2 and "spans[0].lines" in log
    assert github_server.comments_on(REPO, 7) == [] and github_server.reviews_on(REPO, 7) == []
