"""bot.github.git against real temporary git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.github.git import GitError, changed_files, parse_name_status


def git(repo: Path, *args: str) -> str:
    env_free = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    return subprocess.run(
        ["git", "-C", str(repo), *env_free, *args], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository with one base commit; returns it and the base sha."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "kept.dfy").write_text("method Kept() {}\n")
    (repo / "old name.dfy").write_text("method Moved() {}\n" * 20)
    (repo / "gone.dfy").write_text("method Gone() {}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo, git(repo, "rev-parse", "HEAD")


def test_non_ascii_newline_and_renamed_names_are_listed(repo: tuple[Path, str]) -> None:
    root, base = repo
    (root / "spéc.dfy").write_text("method Spec() {}\n")
    (root / "two\nlines.dfy").write_text("method Two() {}\n")
    (root / "tab\there.dfy").write_text("method Tab() {}\n")
    (root / "cr\rname.dfy").write_text("method Cr() {}\n")
    (root / 'quote".dfy').write_text("method Quote() {}\n")
    (root / "kept.dfy").write_text("method Kept() { }\n")
    (root / "gone.dfy").unlink()
    git(root, "mv", "old name.dfy", "new naмe.dfy")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    head = git(root, "rev-parse", "HEAD")

    rows = changed_files(root, base, head)

    assert sorted(rows) == sorted([
        ("A", "spéc.dfy"),
        ("A", "two\nlines.dfy"),
        ("A", "tab\there.dfy"),
        ("A", "cr\rname.dfy"),
        ("A", 'quote".dfy'),
        ("M", "kept.dfy"),
        ("D", "gone.dfy"),
        ("D", "old name.dfy"),
        ("A", "new naмe.dfy"),
    ])
    for status, path in rows:
        assert (root / path).is_file() == (status != "D")


def test_renames_and_copies_in_raw_output_give_both_paths() -> None:
    # what `git diff --name-status -z` prints when rename or copy detection is on
    out = "R087\0old.dfy\0new.dfy\0C100\0src.dfy\0copy.dfy\0M\0spéc.dfy\0"
    assert parse_name_status(out) == [("D", "old.dfy"), ("A", "new.dfy"), ("A", "copy.dfy"), ("M", "spéc.dfy")]


def test_unknown_revision_is_a_git_error(repo: tuple[Path, str]) -> None:
    root, base = repo
    with pytest.raises(GitError, match="diff"):
        changed_files(root, base, "0" * 40)
