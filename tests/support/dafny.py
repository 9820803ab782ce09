"""Asking the real verifier directly about a hand-written program: what is true, beside what the tool claims."""

from __future__ import annotations

import subprocess
from pathlib import Path


def verify_text(dafny_command: str, path: Path, text: str) -> str:
    """Write `text` to `path` and verify it (`/compile:0`): the verifier's standard output."""
    path.write_text(text)
    done = subprocess.run([dafny_command, "/compile:0", "/nologo", str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    return done.stdout
