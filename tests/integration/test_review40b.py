"""Hostile review of the unread-case check in pull requests (in process, with the fake verifier): a test file the
pull request adds that cannot be read checks nothing, whichever spec it was meant for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.github.action import EXIT_FAILED
from support.inprocess import STRONG, Fake, pr_run

CASES = 'method = "Inc"\n[[case]]\nargs = ["1"]\nexpected = "2"\n'


@pytest.mark.xfail(strict=True, reason="open: bot/github/pr/affected.py affected_specs maps a changed `X.tests.toml` "
                   "to "
                   "`X.dfy` only when that exists; a test file named for no spec file gives no spec to score, so its "
                   "cases are never read, no job carries them, and the check passes (the case it meant to add checks "
                   "nothing)")
def test_a_test_file_beside_no_spec_fails_the_check(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    """The pull request adds a test file named for a spec file that does not exist (`incc` for `inc`): its case
    is carried by no scored method and checks nothing."""
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                       {"specs/inc.dfy": STRONG, "specs/incc.tests.toml": CASES})
    assert ran.code == EXIT_FAILED, ran.log
