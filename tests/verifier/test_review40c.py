"""Findings of the hostile review of the short questions (bot/symbolic/bounded.py, witness_search.py), each a
failing test first: a reason said of the wrong question, a parameter named like the questions' own, a search that
found nothing said as a proof."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic.results import Relation
from bot.symbolic.witness_search import NO_SHORT_WITNESS
from support.paths import DATA
from support.spec_change import compare_versions

pytestmark = pytest.mark.dafny
HERE = DATA / "review40c"


def _score(tmp_path: Path, text: str) -> dict[str, dict[str, Any]]:
    spec, out = tmp_path / "spec.dfy", tmp_path / "report.json"
    spec.write_text(text, encoding="utf-8")
    argv = ["score", str(spec), "--format", "json", "--output", str(out), "--no-suggest", "--report-only",
            "--cache-dir", str(tmp_path / "cache")]
    assert main(argv) == 0
    return {m["method"]: m["everywhere"] for m in json.loads(out.read_text(encoding="utf-8"))["methods"]}


def test_a_reason_is_said_of_the_question_it_is_about(dafny_command: str, tmp_path: Path) -> None:
    """The weakening on inputs both admit needs an input longer than 5 (the short question finds none), and the one
    on the input head dropped a set's value (unreadable): the first question's reason was said of "weaker" as a
    whole, as if no short weakening existed at all, where `s = [0]` is one."""
    c = compare_versions(HERE / "dropped_base.dfy", HERE / "dropped_head.dfy", tmp_path)
    if c.relation is Relation.UNKNOWN:  # each reason names the inputs it is about
        assert f"{NO_SHORT_WITNESS} (on inputs both versions admit)" in c.reason, c
        assert "(on inputs only base's `requires` admits)" in c.reason, c
    else:  # or the weakening is proved, with a witness
        assert (c.relation, c.accepted_by) == (Relation.WEAKER, "head"), c


def test_a_parameter_named_like_the_questions_own_is_refused_with_its_name(dafny_command: str,
                                                                            tmp_path: Path) -> None:
    found = _score(tmp_path, """method P1(a: array<int>, SpecScore_len_v0: int) returns (r: int)
  requires a.Length >= 2
  ensures exists i :: 0 <= i < a.Length && a[i] == r
""")
    assert found["P1"] == {"status": "unknown", "inputs": "", "outputs": [],
                           "reason": "`SpecScore_len_v0` is a name this check uses"}, found


def test_a_search_that_found_no_short_witness_says_only_that(dafny_command: str, tmp_path: Path) -> None:
    """`requires a.Length > 5` admits no short input: the short question verifies for that reason alone, and the
    reason said "no witness has its arrays and sequences at most 5 long (proved)", as if the spec were nearly
    determined; a witness exists at length 6."""
    found = _score(tmp_path, """method Big(a: array<int>) returns (r: int)
  requires a.Length > 5
  ensures exists i :: 0 <= i < a.Length && a[i] == r
""")
    assert found["Big"]["status"] == "unknown", found
    assert found["Big"]["reason"] == NO_SHORT_WITNESS and "proved" not in found["Big"]["reason"]
