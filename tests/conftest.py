"""Shared fixtures: the real verifier, the development dataset, paths."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import fakegithub
from support.paths import DATA, ROOT

# fixtures of the support modules, for every test: `fake` (the in-process fake verifier), `pr_repo` (a git repository)
pytest_plugins = ["support.inprocess", "support.e2e"]

NO_DATASET = "none"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hostile-tree", default=None, metavar="PATH",
                     help="the checkout whose code the hostile battery runs (tests/hostile; default: this one)")


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
    """../shared/mbpp-dfy, or $DAFNY_SPEC_SCORE_DATASET; skips outside CI when missing.

    `DAFNY_SPEC_SCORE_DATASET=none` says the machine has no copy (the repository's own GitHub workflow, ci.yml):
    its tests skip with that reason, in CI too, instead of failing on a path that was never meant to be there."""
    named = os.environ.get("DAFNY_SPEC_SCORE_DATASET", "")
    if named == NO_DATASET:
        pytest.skip(f"DAFNY_SPEC_SCORE_DATASET={NO_DATASET}: this machine has no copy of the dataset")
    root = Path(named or ROOT.parent / "shared" / "mbpp-dfy")
    if not root.is_dir():
        if _in_ci():
            pytest.fail(f"CI=true but the dataset is missing at {root}", pytrace=False)
        pytest.skip(f"dataset not found at {root}")
    return root


@pytest.fixture(scope="session")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """A verifier result cache per subject, shared for the session by the tests that score that subject: the first
    fills it, the others read it (results do not depend on the cache: tests/verifier/test_score_real.py checks)."""
    root = tmp_path_factory.mktemp("warm-caches")
    return lambda subject: root / subject


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


# -- fake GitHub API -----------------------------------------------------------------------------


@pytest.fixture
def github_server() -> Iterator[fakegithub.FakeGitHub]:
    """A fresh fake GitHub REST API on 127.0.0.1 (tests/support/fakegithub.py: FakeGitHub), closed afterwards."""
    server = fakegithub.FakeGitHub()
    try:
        yield server
    finally:
        server.close()
