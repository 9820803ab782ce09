"""End to end with the real verifier, through `entrypoint.py` against the local GitHub: one pull request that changes
specs every way issue "Beyond the tests" names, each relation and witness proved on every input and said in the
comment, the `spec-changes` output and the gate (tests/verifier/test_spec_change_real.py asks the same pairs one by
one, without the Action)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from support.e2e import REPO, pull_changing_files, run_action
from support.outputs import outputs
from support.paths import DATA

pytestmark = pytest.mark.dafny
HERE = DATA / "spec_change"
PICK = """// no test: an element of the array, any one
method PickA(a: array<int>) returns (r: int)
  requires a.Length > 0
  ensures exists i :: 0 <= i < a.Length && a[i] == r
"""


def _text(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def test_one_pull_request_changing_specs_every_way(dafny_command: str, github_server: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    base, head = pull_changing_files(repo, github_server, {
        "specs/equivalent.dfy": (_text("abs_base.dfy"), _text("abs_equivalent.dfy")),  # through a helper
        "specs/stronger.dfy": (_text("abs_base.dfy"), _text("abs_stronger.dfy")),  # a clause added
        "specs/weaker.dfy": (_text("abs_base.dfy"), _text("abs_weaker.dfy")),  # the Abs example: a clause deleted
        "specs/helper.dfy": (_text("mag_base.dfy"), _text("mag_head.dfy")),  # only the helper changed
        "specs/requires.dfy": (_text("abs_base.dfy"), _text("abs_requires.dfy")),  # a requires added
        "specs/maxs.dfy": (_text("maxs_base.dfy"), _text("maxs_weaker.dfy")),  # a witness needs a sequence input
        "specs/maxa.dfy": (_text("maxa_base.dfy"), _text("maxa_weaker.dfy")),  # a witness needs an array input
        "specs/pick.dfy": (None, PICK),  # a new spec without tests, not determined
    })
    code, log, output, _ = run_action(repo, tmp_path, github_server, {}, base, head, cache=tmp_path / "cache")
    assert code == 1, log  # proved weakenings fail the check
    changes = {c["file"]: c for c in json.loads(outputs(output)["spec-changes"])}
    assert {f: (c["relation"], c["accepted_by"]) for f, c in changes.items()} == {
        "specs/equivalent.dfy": ("equivalent", ""), "specs/stronger.dfy": ("stronger", "base"),
        "specs/weaker.dfy": ("weaker", "head"), "specs/helper.dfy": ("incomparable", "head"),
        "specs/requires.dfy": ("weaker", "head"), "specs/maxs.dfy": ("weaker", "head"),
        "specs/maxa.dfy": ("weaker", "head")}, changes
    for f in ("specs/maxs.dfy", "specs/maxa.dfy"):  # short witnesses, each an element that is not the largest
        c = changes[f]
        elems = [int(v) for v in re.fullmatch(r"a = \[(.*)\]", c["inputs"]).group(1).split(", ")]  # type: ignore[union-attr]
        m = int(c["output"].removeprefix("m = "))
        assert 2 <= len(elems) <= 5 and m in elems and m < max(elems), c
    assert int(changes["specs/requires.dfy"]["inputs"].removeprefix("x = ")) <= -10
    (summary,) = github_server.comments_on(REPO, 7)
    body = summary.body
    # one sentence each under Beyond the tests; the five `Abs` each named with their file
    assert "- <code>Abs</code> in <code>specs/equivalent.dfy</code>: its postcondition is proved equivalent to " \
           "base's on every input." in body, body
    assert "- <code>Abs</code> in <code>specs/stronger.dfy</code> got stronger: for <code>x = " in body
    assert "- <code>Abs</code> in <code>specs/weaker.dfy</code> got weaker beyond the tests: for <code>x = -" in body
    assert "- <code>Abs</code> in <code>specs/helper.dfy</code> changed (neither weaker nor stronger) beyond the " \
           "tests: for <code>x = -" in body
    assert "(its `requires` no longer admits that input)" in body.replace("\\`", "`")
    assert "- <code>MaxA</code> got weaker beyond the tests: for <code>a = [" in body
    assert "- <code>MaxS</code> got weaker beyond the tests: for <code>a = [" in body
    assert "- <code>PickA</code> is not determined on every input: for <code>a = [" in body
    # the gate lists each proved weakening once, by its file; the equivalent and the stronger spec are none
    failing = body.split("**The check fails on 5 findings:**\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(":")[0] for line in failing] == [
        "- specs/helper.dfy", "- specs/maxa.dfy", "- specs/maxs.dfy", "- specs/requires.dfy", "- specs/weaker.dfy"]
    report = json.loads((repo / "dafny-spec-score.json").read_text(encoding="utf-8"))
    assert sorted((c["file"], c["relation"]) for c in report["spec_changes"]) == sorted(
        (f, c["relation"]) for f, c in changes.items())  # one fact, one count: the report says the same
