"""The only module that runs git: changed files between two commits, and a worktree of the base."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path


class GitError(Exception):
    """git failed; the message has git's own words."""


def _git(repo: Path, *args: str, timeout: float = 120) -> str:
    try:
        # bytes, decoded here: text mode would turn a carriage return inside a file name into a newline
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitError(f"git {' '.join(args)}: {e}") from e
    # file names are UTF-8 in practice; one that is not comes back with U+FFFD rather than failing
    out, err = (data.decode("utf-8", errors="replace") for data in (proc.stdout, proc.stderr))
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {err.strip() or out.strip()}")
    return out


def has_commit(repo: Path, rev: str) -> bool:
    """Whether `repo` is a git checkout that has commit `rev`."""
    try:
        _git(repo, "cat-file", "-e", f"{rev}^{{commit}}")
    except GitError:
        return False
    return True


def file_at(repo: Path, rev: str, path: str) -> str | None:
    """The text of `path` (relative to the repository's top) at commit `rev`; None when absent there."""
    try:
        kind = _git(repo, "cat-file", "-t", f"{rev}:{path}").strip()
    except GitError:
        return None
    return _git(repo, "show", f"{rev}:{path}") if kind == "blob" else None


def changed_files(repo: Path, base: str, head: str) -> list[tuple[str, str]]:
    """(status letter, path) for every file that differs between the merge base of base and head, and head.

    `-z`: without it git quotes names with non-ASCII characters, quotes or newlines (`"sp\\303\\251c.dfy"`)."""
    return parse_name_status(_git(repo, "diff", "--name-status", "--no-renames", "-z", f"{base}...{head}"))


def parse_name_status(out: str) -> list[tuple[str, str]]:
    """Rows of `git diff --name-status -z`: `STATUS NUL path NUL`, or `R|Cscore NUL old NUL new NUL`.

    A rename is reported as the old path deleted and the new one added (what `--no-renames` gives); a copy
    as the new path added."""
    fields = out.split("\0")
    rows: list[tuple[str, str]] = []
    i = 0
    while i + 1 < len(fields):
        status = fields[i][:1]
        if status in ("R", "C"):
            if i + 2 >= len(fields):
                break
            old, new = fields[i + 1], fields[i + 2]
            if status == "R":
                rows.append(("D", old))
            rows.append(("A", new))
            i += 3
            continue
        if status:
            rows.append((status, fields[i + 1]))
        i += 2
    return rows


def add_worktree(repo: Path, sha: str, where: Path) -> None:
    """A detached checkout of sha at `where` (reads only: nothing in it is ever run)."""
    _git(repo, "worktree", "add", "--detach", "--force", str(where), sha)


def remove_worktree(repo: Path, where: Path) -> None:
    # best effort: the temporary directory goes away anyway
    with contextlib.suppress(GitError):
        _git(repo, "worktree", "remove", "--force", str(where))
