"""Shared fixtures: the real verifier, the development dataset, paths."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import fakegithub
from support.paths import DATA, ROOT

# fixtures of the support modules, for every test: `fake` (the in-process fake verifier), `pr_repo` (a git repository)
pytest_plugins = ["support.inprocess", "support.e2e"]

NO_DATASET = "none"

# Compiled bytecode is written (to `__pycache__`, which git and the image leave out) by this process and the ones it
# starts: with PYTHONDONTWRITEBYTECODE set, as on these machines, each xdist worker and each of the tests' `python3 -m
# bot` processes compiled the whole package from source again, about 0.4 s a process
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The tests' temporary files go to memory (/dev/shm) when it is a tmpfs with room and no TMPDIR is set: the quick tier
# writes about 100 MB in 8,000 files a run (git repositories, browser profiles, reports), and on this machine class's
# disk writing them, then pytest deleting the run three before at exit, cost 10-25 s a run (75 s against 50 s)
SHM, SHM_ROOM = Path("/dev/shm"), 4 << 30


def _memory_tmp() -> str | None:
    if os.environ.get("TMPDIR") or not (SHM.is_dir() and os.access(SHM, os.W_OK | os.X_OK)):
        return None
    try:
        room = shutil.disk_usage(SHM).free
    except OSError:
        return None
    return str(SHM) if room >= SHM_ROOM else None


if (_tmp := _memory_tmp()) is not None:
    import tempfile

    os.environ["TMPDIR"] = _tmp  # for the processes the tests start too
    tempfile.tempdir = None  # computed again from TMPDIR on first use


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hostile-tree", default=None, metavar="PATH",
                     help="the checkout whose code the hostile battery runs (tests/hostile; default: this one)")


# -- the slow tier ---------------------------------------------------------------------------------------------------
# The scenarios that run the real verifier most (the slowest by `--durations`), marked `slow` here by node id (a
# module's `dafny` tests, or one test) and so left out of the README's command (pyproject's `addopts`), which must stay
# under five minutes; `python3 -m pytest -m slow` runs them, .ci/run runs every tier. Each says in one line why it must
# stay slow; tests/integration/test_tiers.py checks that each names a test.
SLOW: dict[str, str] = {
    "tests/e2e/test_review_e2e.py": "three pushes of one pull request, each scored at head and base by the entrypoint",
    "tests/e2e/test_gate_scope.py": "one pull request run twice through the entrypoint, each scored at head and base",
    "tests/e2e/test_error_review_e2e.py": "three pull requests through the entrypoint, each scored at head and base, "
                                          "one of them twice",
    "tests/verifier/test_everywhere_real.py": "each spec's determinacy is proved over every input and each witness "
                                              "confirmed by programs of its own",
    "tests/verifier/test_spec_change_real.py": "five proofs for each pair of versions side by side, each witness "
                                               "confirmed on both files",
    "tests/verifier/test_review40.py": "pull-request pairs compared on every input, their witnesses confirmed",
    "tests/verifier/test_restore_real.py": "pull-request pairs compared on every input, each restoring edit rescored "
                                           "against every test and the witness",
    "tests/e2e/test_untested_pr_e2e.py": "three pull requests through the entrypoint, each scored at head and base",
    "tests/e2e/test_every_input_e2e.py": "a pull request of eight spec files through the entrypoint, each scored at "
                                         "head and base and compared on every input",
    "tests/verifier/test_progress_real.py": "scores the running example twice, on a pseudo-terminal and on a pipe",
    "tests/verifier/test_review40_untested.py": "a battery of hostile specs without tests, each background and every-"
    "input question proved",
    "tests/verifier/test_review40b.py": "shared test files scored through the CLI and sequence outputs proved "
    "determined element by element",
    "tests/verifier/test_review40c.py": "hostile specs and version pairs, each asked on every input with short "
    "questions and their witnesses confirmed",
    "tests/verifier/test_review40d.py": "hostile module specs scored and version pairs compared on every input",
    "tests/verifier/test_collections_real.py": "collection specs scored with every case, mutant and pin proved",
    "tests/verifier/test_untested_specs.py": "specs without tests scored through the CLI, each on every input and "
    "with its gate",
    "tests/e2e/test_restore_e2e.py": "two pull requests through the entrypoint, each scored at head and base",
    "tests/verifier/test_suggest_real.py": "each candidate clause is proved against every case and wrong output",
    "tests/verifier/test_strategy_real.py": "every mutant verdict is checked against one program per question too",
    "tests/verifier/test_verdicts_real.py": "every right and wrong value of tests/data/verdicts is verified, some "
                                            "past the instance caps",
    "tests/verifier/test_hints.py": "the hints must make real proofs go through: bit-vector and prime cases by cases",
    "tests/verifier/test_datatypes_real.py": "scores a suite of datatype specs with constructor-changing mutants",
    "tests/verifier/test_changes_real.py": "two whole audits of a dataset, before and after a change",
    "tests/verifier/test_score_real.py": "whole spec files scored through the CLI: every case, mutant and pin proved",
    "tests/verifier/test_pins_real.py": "pin checks of the running example with witnesses confirmed by the verifier",
    "tests/verifier/test_sarif_real.py": "scores the running example with the suggestion search to check the SARIF fix",
    "tests/verifier/test_audit.py": "whole audits of a dataset fixture and the development dataset, in shards too",
    "tests/verifier/test_mutation_report.py::test_mutation_report_on_the_development_dataset":
        "an audit of the development dataset",
    "tests/e2e/test_action_e2e.py": "the entrypoint scores head and base of a pull request per scenario",
    "tests/e2e/test_gate_integrity.py": "the entrypoint scores head and base of a hostile pull request per scenario",
    "tests/verifier/test_server.py::test_a_server_killed_mid_batch_is_replaced_and_the_batch_verified":
        "a server is killed mid-batch and a new one started and warmed up for the rest",
    "tests/verifier/test_server.py::test_a_relay_that_does_not_answer_is_seen_before_any_batch":
        "waits out the canary's time limit on servers that never answer",
    "tests/verifier/test_server.py::test_a_mixed_batch_gets_the_command_lines_results":
        "verifies the same batch through the command line and through servers, to compare",
    "tests/verifier/test_server.py::test_a_forall_statement_gets_the_command_lines_z3_input":
        "verifies the same program through the command line and a server, to compare z3's input",
    "tests/verifier/test_server.py::test_a_stand_in_that_never_answers_costs_one_server":
        "waits out the canary's time limit on a server that never answers",
}


# The quick tier's longest tests (seconds each, by `--durations`), started first: handed out in collection order, the
# 1 MB reader test came last on one worker while the other had been idle for 12 s (xdist's worksteal splits the run in
# halves and takes from the end of the other's half)
FIRST = (
    "tests/unit/test_fuzz.py::test_a_large_file_is_read_in_full",
    "tests/integration/test_quality.py::test_mypy_strict",
    "tests/integration/test_nightly.py::test_three_nights_keep_one_tracking_issue",
    "tests/unit/test_fuzz.py::test_dialect_rewrite",
    "tests/unit/test_fuzz.py::test_value_parser_with_every_type",
    "tests/unit/test_testcases.py::test_many_test_methods",
)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.nodeid not in FIRST)  # stable: the rest keep their order
    for item in items:
        # a test with its parameters, or a module's tests that start the verifier (its pure ones stay quick): marked
        # `dafny`, or asking for the real `dafny`
        verifier = item.get_closest_marker("dafny") is not None or "dafny_command" in getattr(item, "fixturenames", ())
        if verifier and item.get_closest_marker("dafny") is None:  # the quick tier, -m "not dafny", leaves it out
            item.add_marker(pytest.mark.dafny)
        if any(item.nodeid == name or item.nodeid.startswith(name + "[") for name in SLOW) or (
                item.nodeid.split("::")[0] in SLOW and verifier):
            item.add_marker(pytest.mark.slow)


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
