"""Links to lines of the pull request's head commit, for the comment's method names and clauses. Pure code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

_SERVER = re.compile(r"https?://[A-Za-z0-9.:\-]+(/[A-Za-z0-9._~\-/]*)?")  # nothing a markdown link would end at


@dataclass(frozen=True)
class Links:
    server_url: str  # "https://github.com"
    repository: str  # "owner/name"
    head_sha: str

    def blob(self, file: str, first: int, last: int = 0) -> str:
        """The URL of lines first..last of a file at the head commit ("" when a part is missing or unsafe).
        The path comes from the user's tree: percent-encoded, so that no character ends the link."""
        if not (_SERVER.fullmatch(self.server_url) and self.repository and self.head_sha and file and first > 0):
            return ""
        lines = f"#L{first}-L{last}" if last > first else f"#L{first}"
        return (f"{self.server_url.rstrip('/')}/{quote(self.repository)}/blob/{quote(self.head_sha, safe='')}/"
                f"{quote(file)}{lines}")
