"""Paths: glob matching on repository paths, and writing report files into a workspace that a pull request
controls.

A pull request can commit a symlink where the Action writes (`dafny-spec-score.json` -> somewhere else,
`audit-out` -> a folder outside): writes must land in the workspace, in a file of their own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path


@cache
def _glob_re(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches(path: str, globs: Sequence[str]) -> bool:
    """Glob matching on repository paths: `*` within a folder, `**/` across folders."""
    return any(_glob_re(g.strip().lstrip("./") or "**").match(path) for g in globs)


class UnsafePath(OSError):
    """A path to write or read leads outside the workspace; the message names it."""


def inside(root: Path, path: Path) -> bool:
    """Whether `path`, with every symlink followed, lies inside `root`."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def write_text(root: Path, path: Path, text: str) -> Path:
    """Write `text` to `path` inside `root` without following a symlink at or above it.

    A symlink at `path` itself (committed by the pull request) is replaced by a regular file; a folder on
    the way that leads outside `root` is refused.
    """
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    if not inside(root, parent):
        raise UnsafePath(f"{path}: refusing to write: its folder leads outside {root}")
    if path.is_symlink():
        path.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return path
