"""End to end: a git repository whose pull request weakens a spec, the entrypoint run as a subprocess
against the fake GitHub, with the real verifier."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "shared_elements.dfy"
STRONG = "ensures forall x :: x in result <==> (InArray(a, x) && InArray(b, x))"
WEAK = "ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))"
REPO = "owner/specs"
MARKER = "<!-- dafny-spec-score:default -->"

pytestmark = pytest.mark.dafny


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


@pytest.fixture
def pr_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository whose head commit relaxes `<==>` to `==>` in specs/shared.dfy."""
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    weak = EXAMPLE.read_text()
    assert WEAK in weak
    (repo / "specs" / "shared.dfy").write_text(weak.replace(WEAK, STRONG))
    (repo / "README.md").write_text("specs\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "specs" / "shared.dfy").write_text(weak)
    git(repo, "commit", "-q", "-am", "relax the spec")
    head = git(repo, "rev-parse", "HEAD")
    return repo, base, head


def run_action(
    repo: Path, tmp: Path, server: Any, inputs: dict[str, str], base: str, head: str
) -> tuple[int, str, Path, Path]:
    event = tmp / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {
        "number": 7, "base": {"sha": base, "repo": {"full_name": REPO}},
        "head": {"sha": head, "repo": {"full_name": REPO}}}}))
    output, summary = tmp / "output.txt", tmp / "summary.md"
    output.write_text("")
    summary.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update({
        "GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKSPACE": str(repo), "GITHUB_API_URL": server.url, "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://github.example",
        "INPUT_GITHUB_TOKEN": "ghs_secret_token_value", "DAFNY_SPEC_SCORE_CACHE": str(tmp / "cache"),
        "INPUT_WORKING_DIRECTORY": str(repo),
    })
    env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in inputs.items()})
    proc = subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert "ghs_secret_token_value" not in proc.stdout + proc.stderr
    return proc.returncode, proc.stdout + proc.stderr, output, summary


def outputs(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    out, i = {}, 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1 : j])
        i = j + 1
    return out


def test_weakened_spec_fails_the_gate_and_posts_one_comment(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/shared.dfy", "status": "modified", "additions": 1, "deletions": 1}])
    code, log, output, summary = run_action(repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head)
    assert code == 1, log
    comments = github_server.comments_on(REPO, 7)
    assert len(comments) == 1
    body = comments[0].body
    assert body.startswith(MARKER)
    assert "failed" in body and "completeness ▼ 0.40" in body
    assert "<code>[4]</code>" in body or "<code>[5]</code>" in body  # a surviving mutant: a dropped element
    golden = Path(__file__).resolve().parent / "golden" / "comment_e2e.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(body)
    assert body == golden.read_text()
    outs = outputs(output)
    assert outs["passed"] == "false" and outs["regressions"] == "1"
    assert outs["correctness"] == "1.0000" and outs["completeness"] == "0.6000"
    assert outs["report-json"] == "dafny-spec-score.json"
    assert json.loads((repo / outs["report-json"]).read_text())["methods"][0]["method"] == "SharedElements"
    assert "Dafny Spec Score" in summary.read_text()
    assert "::warning file=specs/shared.dfy,line=" in log  # completeness below the threshold, on its ensures

    # a second run edits the same comment; someone else's comment quoting the marker is left alone
    other = github_server.add_comment(REPO, 7, "someone", f"quoting {MARKER}")
    code, log, _, _ = run_action(repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head)
    assert code == 1
    comments = github_server.comments_on(REPO, 7)
    assert [c.id for c in comments] == [comments[0].id, other.id] and comments[1].body == f"quoting {MARKER}"
    assert github_server.requests_for("PATCH") and len(github_server.requests_for("POST")) == 1

    # report only: the default min-completeness of 0 passes
    code, log, output, _ = run_action(repo, tmp_path, github_server, {}, base, head)
    assert code == 0, log
    assert outputs(output)["passed"] == "true"


def test_fork_pull_request_saves_the_comment(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/shared.dfy", "status": "modified"}])
    github_server.fail("POST", r".*/issues/7/comments", 403, times=None)
    code, log, _, summary = run_action(repo, tmp_path, github_server, {}, base, head)
    assert code == 0, log  # thresholds alone decide
    saved = json.loads((repo / "dafny-spec-score-comment.json").read_text())
    # data for the second workflow to render again, not markdown to post as it is
    assert saved["pr"] == 7 and saved["head_sha"] == head and "body" not in saved
    assert [m["method"] for m in saved["head"]] == ["SharedElements"]
    assert "Dafny Spec Score" in summary.read_text()
    assert github_server.comments_on(REPO, 7) == []


def test_nothing_to_score(dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str],
                          tmp_path: Path) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[{"filename": "README.md"}])
    code, log, output, _ = run_action(repo, tmp_path, github_server, {}, base, head)
    assert code == 0 and "nothing to score" in log
    assert outputs(output)["passed"] == "true"


def test_api_down_falls_back_to_git_diff(
    dafny_command: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[])  # the API would say: nothing
    github_server.fail("GET", r".*/pulls/7/files", 500, times=None)
    code, log, output, _ = run_action(repo, tmp_path, github_server, {"min-completeness": "0.9"}, base, head)
    assert code == 1, log
    assert "using git diff instead" in log
    assert outputs(output)["completeness"] == "0.6000"


def test_audit_mode(dafny_command: str, github_server: Any, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    dataset = Path(__file__).resolve().parent / "data" / "audit"
    inputs = {"mode": "audit", "audit-root": str(dataset)}
    code, log, output, summary = run_action(work, tmp_path, github_server, inputs, "b" * 40, "h" * 40)
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
