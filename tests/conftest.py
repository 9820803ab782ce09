"""Shared fixtures: the real verifier, the development dataset, paths."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def dafny_command() -> str:
    """The real `dafny`; missing it fails loudly in CI and skips elsewhere."""
    cmd = shutil.which("dafny")
    if cmd is None:
        if _in_ci():
            pytest.fail("CI=true but `dafny` is not on PATH: run scripts/setup.sh", pytrace=False)
        pytest.skip("dafny is not installed (scripts/setup.sh installs it)")
    return cmd


@pytest.fixture(scope="session")
def dataset_root() -> Path:
    """../shared/mbpp-dfy, or $DAFNY_SPEC_SCORE_DATASET; skips outside CI when missing."""
    root = Path(os.environ.get("DAFNY_SPEC_SCORE_DATASET") or ROOT.parent / "shared" / "mbpp-dfy")
    if not root.is_dir():
        if _in_ci():
            pytest.fail(f"CI=true but the dataset is missing at {root}", pytrace=False)
        pytest.skip(f"dataset not found at {root}")
    return root


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
