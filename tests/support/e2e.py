"""Runs the Action's entrypoint as a subprocess against a local git repository and the fake GitHub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.paths import ROOT

EXAMPLE = ROOT / "examples" / "shared_elements.dfy"
STRONG = "ensures forall x :: x in result <==> (InArray(a, x) && InArray(b, x))"
WEAK = "ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))"
REPO = "owner/specs"
MARKER = "<!-- dafny-spec-score:default -->"



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


def pull_changing(repo: Path, server: Any, path: str, base_text: str, head_text: str) -> tuple[str, str]:
    """A repository whose head commit changes one file from `base_text` to `head_text`, and pull request 7 on the
    fake GitHub listing that file with its real diff: (base, head)."""
    return pull_changing_files(repo, server, {path: (base_text, head_text)})


def pull_changing_files(repo: Path, server: Any, changes: dict[str, tuple[str | None, str]]) -> tuple[str, str]:
    """The same for several files, each from its base text to its head text (None at base: the pull request adds
    it), listed in path order: (base, head)."""
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    if all(before is None for before, _ in changes.values()):
        (repo / ".keep").write_text("")  # base needs a commit of its own
    for path, (before, _) in sorted(changes.items()):
        if before is not None:
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(before)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    for path, (_, after) in sorted(changes.items()):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(after)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change the specs")
    head = git(repo, "rev-parse", "HEAD")
    files = []
    for path, (before, _) in sorted(changes.items()):
        diff = git(repo, "diff", base, head, "--", path)
        files.append({"filename": path, "status": "modified" if before is not None else "added",
                      "patch": diff[diff.find("@@"):]})
    server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=files)
    return base, head


def run_action(
    repo: Path, tmp: Path, server: Any, inputs: dict[str, str], base: str, head: str, cache: Path | None = None
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
        "INPUT_GITHUB_TOKEN": "ghs_secret_token_value", "DAFNY_SPEC_SCORE_CACHE": str(cache or tmp / "cache"),
        "INPUT_WORKING_DIRECTORY": str(repo),
    })
    env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in inputs.items()})
    proc = subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert "ghs_secret_token_value" not in proc.stdout + proc.stderr
    return proc.returncode, proc.stdout + proc.stderr, output, summary


