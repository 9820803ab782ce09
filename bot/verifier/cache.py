"""Verifier results stored on disk, one small JSON file per cache key.

Keys are `Program.key(...)` hex digests; files live in `<directory>/<first two characters>/<key>.json`
so no directory grows huge. Writes are atomic (temporary file + rename), so concurrent writers and
killed runs never leave half a file; an unreadable file is a miss. What is worth caching is the
caller's decision (see `bot.verifier.is_transient`).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from bot.symbolic.program import Outcome, Result

FORMAT = 1  # bump when the file layout changes: old files then read as misses
# Fields added later are optional, so files written before them stay readable: "model" (a Result's
# counterexample models) is written only when not empty.

_KEY = re.compile(r"^[0-9A-Za-z_-]{8,128}$")


class ResultCache:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        if not _KEY.match(key):
            # Keys become file names: refuse anything that could escape the directory.
            raise ValueError(f"not a cache key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Result | None:
        path = self.path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
            return None
        outcome, message, seconds = data.get("outcome"), data.get("message"), data.get("seconds")
        model = data.get("model", "")
        if not isinstance(message, str) or not isinstance(seconds, int | float) or not isinstance(model, str):
            return None
        try:
            return Result(Outcome(outcome), message, float(seconds), model=model)
        except ValueError:
            return None

    def put(self, key: str, result: Result) -> None:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "format": FORMAT,
            "key": key,
            "outcome": result.outcome.value,
            "message": result.message,
            "seconds": result.seconds,
        }
        if result.model:
            payload["model"] = result.model
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}-", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
