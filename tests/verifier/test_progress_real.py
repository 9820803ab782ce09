"""`score` on the bundled example with the real verifier: progress goes to standard error (a live line on a terminal,
one plain line in a pipe), and standard output is the same bytes either way, in text and in JSON."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.paths import ROOT

EXAMPLE = "examples/shared_elements.dfy"


def _score(cache: Path, *flags: str, terminal: bool) -> tuple[bytes, str]:
    """Standard output and standard error of `score` on the example, its standard error a terminal or a pipe."""
    argv = [sys.executable, "-m", "bot", "score", EXAMPLE, "--cache-dir", str(cache), *flags]
    env = {**os.environ, "COLUMNS": "400"}  # the whole line, phase included
    if not terminal:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=600, check=False, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr.decode()
    master, slave = pty.openpty()
    read: list[bytes] = []

    def drain() -> None:  # a live line is redrawn often: a full terminal buffer would stop the command
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            read.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=slave, env=env)
        os.close(slave)
        out, _ = proc.communicate(timeout=600)
    finally:
        reader.join(timeout=60)
        os.close(master)
    assert proc.returncode == 0, b"".join(read)
    return out, b"".join(read).decode().replace("\r\n", "\n")  # the terminal writes a newline as both


@pytest.mark.dafny
def test_progress_is_on_standard_error_and_the_report_unchanged(tmp_path: Path) -> None:
    live_out, live_err = _score(tmp_path, terminal=True)  # verifies: the cache is empty
    assert "\rscore " in live_err and " programs" in live_err and "round 1 (cases)" in live_err
    last = live_err.rsplit("\r", 1)[1]
    assert last.startswith("score done in ") and "methods" in last and last.endswith("\n")
    piped_out, piped_err = _score(tmp_path, terminal=False)
    assert "\r" not in piped_err
    lines = [line for line in piped_err.splitlines() if line.startswith("score ")]
    assert lines and lines[-1].startswith("score done in ") and "cases done" in lines[-1]
    assert live_out == piped_out and live_out.startswith(b"Dafny Spec Score")
    assert b"score done" not in live_out and b"programs" not in live_out
    json_live, _ = _score(tmp_path, "--format", "json", terminal=True)
    json_piped, _ = _score(tmp_path, "--format", "json", terminal=False)
    assert json_live == json_piped and json_live.startswith(b"{")
