"""The Action's pr mode shows its progress on standard error, never in its log of workflow commands (standard
output) or its reports; the fake verifier of tests/support/inprocess.py answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.github.action import EXIT_OK
from support.inprocess import STRONG, Fake, pr_run


def test_pr_mode_progress_is_on_standard_error_only(tmp_path: Path, github_server: Any, fake: Fake,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                       {"specs/inc.dfy": STRONG.replace("x + 1", "1 + x", 1)})
    assert ran.code == EXIT_OK, ran.log
    err = capsys.readouterr().err
    # head and base side by side: the method once at each revision, in one file path
    (last,) = [line for line in err.splitlines() if line.startswith("score done in ")]
    assert ": 2/2 methods, 1/1 files done; " in last and "mutants " in last and " 0 survived" in last
    assert "score " not in ran.log and "score " not in ran.summary
