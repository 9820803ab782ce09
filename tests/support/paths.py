"""Where the tests find the repository and their data."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
DATA = TESTS / "data"
GOLDEN = TESTS / "golden"
FAKE_DAFNY = TESTS / "fake_dafny"
