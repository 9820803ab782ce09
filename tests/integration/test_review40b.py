"""Hostile review of the unread-case check in pull requests (in process, with the fake verifier): a test file the
pull request adds that cannot be read checks nothing, whichever spec it was meant for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.github.action import EXIT_FAILED
from support.inprocess import STRONG, Fake, comments, pr_run

CASES = 'method = "Inc"\n[[case]]\nargs = ["1"]\nexpected = "2"\n'


def test_a_test_file_beside_no_spec_fails_the_check(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    """The pull request adds a test file named for a spec file that does not exist (`incc` for `inc`): its case
    is carried by no scored method and checks nothing."""
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                       {"specs/inc.dfy": STRONG, "specs/incc.tests.toml": CASES})
    assert ran.code == EXIT_FAILED, ran.log
    assert "specs/incc.tests.toml: a test file for no spec: `specs/incc.dfy` exists at neither revision" in ran.log


def test_a_test_file_beside_no_spec_fails_beside_a_scored_spec(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    """The same stray test file in a pull request that also changes a spec: that spec is scored, the stray file is
    said at the top of the comment, and the check fails on it."""
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                       {"specs/inc.dfy": STRONG.replace("r := x + 1;", "r := 1 + x;"),
                        "specs/incc.tests.toml": CASES})
    assert ran.code == EXIT_FAILED, ran.log
    body = comments(github_server)[0].body
    assert "**The check fails on 1 finding:**\n- specs/incc.tests.toml: a test file for no spec" in body, body
