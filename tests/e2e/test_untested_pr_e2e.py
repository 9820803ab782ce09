"""End to end with the real verifier, through `entrypoint.py` against the local GitHub: a pull request that changes a
spec without any test is judged on every input (issue "Beyond the tests": pull requests, tests or none)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.e2e import REPO, pull_changing, run_action
from support.outputs import outputs

pytestmark = pytest.mark.dafny

FULL = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == -x
{
  r := if x < 0 then -x else x;
}
"""
WEAKER = FULL.replace("  ensures x < 0 ==> r == -x\n", "")


def _pull(repo: Path, server: Any, base_text: str, head_text: str) -> tuple[str, str]:
    return pull_changing(repo, server, "specs/abs.dfy", base_text, head_text)


def test_a_weakened_spec_without_tests_fails_with_its_witness(dafny_command: str, github_server: Any,
                                                              tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    base, head = _pull(repo, github_server, FULL, WEAKER)
    code, log, output, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=tmp_path / "cache")
    assert code == 1, log  # the weakening, proved on every input, fails the check: no test was needed
    (summary,) = github_server.comments_on(REPO, 7)
    assert "<code>Abs</code> got weaker beyond the tests: for <code>x = -" in summary.body, summary.body
    assert "cannot be scored" not in summary.body  # no test is no failure of its own
    changes = json.loads(outputs(output)["spec-changes"])
    assert [(c["method"], c["relation"], c["accepted_by"]) for c in changes] == [("Abs", "weaker", "head")]


def test_a_new_spec_without_tests_is_said_and_passes(dafny_command: str, github_server: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    base, head = _pull(repo, github_server, "// specs to come\n", FULL)
    code, log, _, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=tmp_path / "cache")
    assert code == 0, log  # nothing measured on tests, and nothing to fail: it is judged on every input only
    (summary,) = github_server.comments_on(REPO, 7)
    assert "</code>](https://github.example/owner/specs/blob/" in summary.body
    assert "has no test cases: what its spec says is asked on every input only" in summary.body, summary.body


def test_a_strengthened_spec_without_tests_passes(dafny_command: str, github_server: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    base, head = _pull(repo, github_server, WEAKER, FULL)
    code, log, _, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=tmp_path / "cache")
    assert code == 0, log
    (summary,) = github_server.comments_on(REPO, 7)
    assert "<code>Abs</code> got stronger: for <code>x = -" in summary.body, summary.body
    assert "✅" in summary.body
