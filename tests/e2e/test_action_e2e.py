"""End to end: a git repository whose pull request weakens a spec, the entrypoint run as a subprocess
against the fake GitHub, with the real verifier."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.e2e import MARKER, REPO, run_action
from support.outputs import outputs
from support.paths import DATA, GOLDEN, ROOT
from support.sarif import assert_valid_sarif

pytestmark = pytest.mark.dafny
HEAD_SHA = "HEAD_SHA"

@pytest.fixture
def pr_cache(warm_cache: Callable[[str], Path]) -> Path:
    """The verifier cache of the pull request these tests make (the first fills it)."""
    return warm_cache("shared-elements-pr")


def test_weakened_spec_fails_the_gate_and_posts_one_comment(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path, pr_cache: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/shared.dfy", "status": "modified", "additions": 1, "deletions": 1}])
    code, log, output, summary = run_action(
        repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head, cache=pr_cache)
    assert code == 1, log
    comments = github_server.comments_on(REPO, 7)
    assert len(comments) == 1
    body = comments[0].body
    assert body.startswith(MARKER)
    assert "failed" in body and "| 0.60 ▼0.40 |" in body and "got weaker (completeness 1.00 → 0.60)" in body
    assert "<code>[4]</code>" in body or "<code>[5]</code>" in body  # a surviving mutant: a dropped element
    # the verified fix: the paper's converse clause, with what was proved of it
    assert "<code>ensures forall x :: InArray(a, x) &amp;&amp; InArray(b, x) ==&gt; x in result</code>" in body
    assert "pinned up to order" in body
    # links point at the head commit, whose hash changes with every run: the golden file names it HEAD_SHA
    assert f"/owner/specs/blob/{head}/specs/shared.dfy#L" in body
    golden = GOLDEN / "comment_e2e.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(body.replace(head, HEAD_SHA))
    assert body.replace(head, HEAD_SHA) == golden.read_text()
    outs = outputs(output)
    assert outs["passed"] == "false" and outs["regressions"] == "1"
    assert outs["correctness"] == "1.0000" and outs["completeness"] == "0.6000"
    assert outs["report-json"] == "dafny-spec-score.json"
    assert json.loads((repo / outs["report-json"]).read_text())["methods"][0]["method"] == "SharedElements"
    sarif = json.loads((repo / outs["sarif-file"]).read_text())
    assert_valid_sarif(sarif)
    fixes = [r["fixes"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "spec/accepts-wrong-output"]
    assert fixes and "InArray(a, x) && InArray(b, x) ==> x in result" in json.dumps(fixes)  # the verified clause
    assert "Dafny Spec Score" in summary.read_text()
    assert "::warning file=specs/shared.dfy,line=" in log  # completeness below the threshold, on its ensures

    # a second run edits the same comment; someone else's comment quoting the marker is left alone
    other = github_server.add_comment(REPO, 7, "someone", f"quoting {MARKER}")
    code, log, _, _ = run_action(
        repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head, cache=pr_cache)
    assert code == 1
    comments = github_server.comments_on(REPO, 7)
    assert [c.id for c in comments] == [comments[0].id, other.id] and comments[1].body == f"quoting {MARKER}"
    assert github_server.requests_for("PATCH") and len(github_server.requests_for("POST")) == 1

    # the default min-completeness of 0 is met, but the spec was proved weaker on an input: that fails
    code, log, output, _ = run_action(
        repo, tmp_path, github_server, {}, base, head, cache=pr_cache)
    assert code == 1, log
    (change,) = json.loads(outputs(output)["spec-changes"])
    assert (change["method"], change["relation"], change["accepted_by"]) == ("SharedElements", "weaker", "head")
    # without that gate, the thresholds alone decide
    code, log, output, _ = run_action(
        repo, tmp_path, github_server, {"fail-on-weakening": "false"}, base, head, cache=pr_cache)
    assert code == 0, log
    assert outputs(output)["passed"] == "true"


def test_fork_pull_request_saves_the_comment(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path, pr_cache: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/shared.dfy", "status": "modified"}])
    github_server.fail("POST", r".*/issues/7/comments", 403, times=None)
    code, log, _, summary = run_action(
        repo, tmp_path, github_server, {"fail-on-weakening": "false"}, base, head, cache=pr_cache)
    assert code == 0, log  # thresholds alone decide
    saved = json.loads((repo / "dafny-spec-score-comment.json").read_text())
    assert saved["fail_on_weakening"] is False and saved["spec_changes"][0]["relation"] == "weaker"
    # data for the second workflow to render again, not markdown to post as it is
    assert saved["pr"] == 7 and saved["head_sha"] == head and "body" not in saved
    assert [m["method"] for m in saved["head"]] == ["SharedElements"]
    assert "Dafny Spec Score" in summary.read_text()
    assert github_server.comments_on(REPO, 7) == []


def test_nothing_to_score(dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str],
                          tmp_path: Path, pr_cache: Path) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[{"filename": "README.md"}])
    code, log, output, _ = run_action(
        repo, tmp_path, github_server, {}, base, head, cache=pr_cache)
    assert code == 0 and "nothing to score" in log
    assert outputs(output)["passed"] == "true"


def test_api_down_falls_back_to_git_diff(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path, pr_cache: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[])  # the API would say: nothing
    github_server.fail("GET", r".*/pulls/7/files", 500, times=None)
    code, log, output, _ = run_action(
        repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head, cache=pr_cache)
    assert code == 1, log
    assert "using git diff instead" in log
    assert outputs(output)["completeness"] == "0.6000"


def test_audit_mode(dafny_command: str, github_server: Any, tmp_path: Path,
                    warm_cache: Callable[[str], Path]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    dataset = DATA / "audit"
    inputs = {"mode": "audit", "audit-root": str(dataset)}
    code, log, output, summary = run_action(work, tmp_path, github_server, inputs, "b" * 40, "h" * 40,
                                            cache=warm_cache("audit-fixture"))
    assert code == 0, log
    assert (work / "audit-out" / "report.md").is_file()
    assert "Spec or test?" in summary.read_text()
    assert outputs(output)["regressions"] == "1"  # one task scored wrong


def test_dockerfile_installs_with_the_ci_script() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/setup.sh" in docker and "bash scripts/setup.sh" in ci
    assert "ARG DAFNY_VERSION" in docker and "safe.directory" in docker
    assert 'ENTRYPOINT ["python3", "/app/entrypoint.py"]' in docker
