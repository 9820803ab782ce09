"""Which lines of a pull request's new files a review comment may sit on. Pure code.

GitHub takes a review comment (side RIGHT) only on a line of a diff hunk of the file's new version, added or
context, and a comment over several lines only when both ends are in the same hunk. The hunks are read from
the `patch` GitHub gives for each changed file, so they are GitHub's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from bot.github.api import ChangedFile

# "@@ -12,7 +12,8 @@ context": the new side starts at 12 and spans 8 lines (",8" left out means 1)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)

Hunks = tuple[range, ...]


def hunks(patch: str) -> Hunks:
    """The new-side line ranges of a unified diff's hunks, in order; () for no patch."""
    out = []
    for m in _HUNK.finditer(patch):
        start, length = int(m.group(1)), int(m.group(2)) if m.group(2) is not None else 1
        if length > 0:
            out.append(range(start, start + length))
    return tuple(out)


def commentable(diff: Mapping[str, Hunks], path: str, start: int, end: int) -> bool:
    """Whether lines `start`..`end` of `path`'s new version lie in one hunk of the pull request's diff."""
    return any(start in h and end in h for h in diff.get(path, ()))


def diff_of(files: Iterable[ChangedFile]) -> dict[str, Hunks]:
    """Each changed file's hunks, by path (none for a file GitHub lists without a patch)."""
    return {f.filename: hunks(f.patch or "") for f in files}
