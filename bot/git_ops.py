"""The only module that runs git: changed files between two commits, and a worktree of the base."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path


class GitError(Exception):
    """git failed; the message has git's own words."""


def _git(repo: Path, *args: str, timeout: float = 120) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitError(f"git {' '.join(args)}: {e}") from e
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def changed_files(repo: Path, base: str, head: str) -> list[tuple[str, str]]:
    """(status letter, path) for every file that differs between the merge base of base and head, and head."""
    out = _git(repo, "diff", "--name-status", "--no-renames", f"{base}...{head}")
    rows = []
    for line in out.splitlines():
        status, _, path = line.partition("\t")
        if path:
            rows.append((status[:1], path))
    return rows


def add_worktree(repo: Path, sha: str, where: Path) -> None:
    """A detached checkout of sha at `where` (reads only: nothing in it is ever run)."""
    _git(repo, "worktree", "add", "--detach", "--force", str(where), sha)


def remove_worktree(repo: Path, where: Path) -> None:
    # best effort: the temporary directory goes away anyway
    with contextlib.suppress(GitError):
        _git(repo, "worktree", "remove", "--force", str(where))
