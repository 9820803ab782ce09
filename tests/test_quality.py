"""Static checks run with the suite, so CI enforces them: mypy --strict on bot/, ruff on everything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_mypy_strict() -> None:
    r = run(sys.executable, "-m", "mypy")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff() -> None:
    if shutil.which("ruff") is None:
        pytest.fail("ruff is not installed: run scripts/setup.sh")
    r = run("ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr
