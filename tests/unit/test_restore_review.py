"""A spec proved weaker than base's as a review comment: where it sits, what it says, and the edit that gives
base's deleted or loosened clauses back. Pure code (the edit's proofs: tests/verifier/test_restore_real.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.dafny.parser import parse_file
from bot.dafny.spans import ensures_spans
from bot.github.pr.diff import hunks
from bot.github.pr.review_plan import plan_review
from bot.report.review import RESTORE_SAYS, Kind, findings
from bot.report.sentences import spec_change_sentence
from bot.symbolic.compare import compare
from bot.symbolic.results import FIXES_TEST, CaseResult, CaseStatus, Relation, SpecChange, method_score
from bot.symbolic.suggest.restore import restored_lines

HEAD = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
{
  r := if x < 0 then -x else x;
}
"""
BASE = HEAD.replace("r == x\n", "r == x\n  ensures x < 0 ==> r == -x\n")
RESTORE = ("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==> r == -x")
WEAKER = SpecChange("abs.dfy", "Abs", Relation.WEAKER, "x = -1", "r = 0", "head", requires="same", restore=RESTORE)
SPANS = {("abs.dfy", "Abs"): ensures_spans(HEAD, "abs.dfy")["Abs"]}


def scores() -> list:
    case = CaseResult("T#1", 9, "x = 3", "r = 3", "", "abs.dfy", CaseStatus.VERIFIED, "", ())
    return [method_score("abs.dfy", "Abs", 1, (case,))]


def weakening(c: SpecChange = WEAKER, spans: dict | None = None) -> list:
    return [f for f in findings(compare(scores(), []), SPANS if spans is None else spans, "default", "c" * 40, (),
                                [c]) if f.kind is Kind.WEAKER]


def test_a_weakening_sits_on_the_remaining_clause_with_base_s_clause_back() -> None:
    (f,) = weakening()
    assert (f.path, f.start_line, f.line) == ("abs.dfy", 2, 2)
    # the summary comment's sentence, word for word: one fact, one wording
    assert spec_change_sentence(WEAKER) in f.body
    assert f"{RESTORE_SAYS}\n\n```suggestion\n{RESTORE[0]}\n{RESTORE[1]}\n```" in f.body
    # applying the block to head's line 2 gives base back
    rows = HEAD.split("\n")
    assert "\n".join([*rows[:1], *RESTORE, *rows[2:]]) == BASE
    assert f.narrow is not None and "suggestion" not in f.narrow.body


def test_without_a_proved_edit_the_finding_has_no_suggestion() -> None:
    (f,) = weakening(replace(WEAKER, restore=()))
    assert "suggestion" not in f.body and RESTORE_SAYS not in f.body
    assert spec_change_sentence(WEAKER) in f.body


def test_a_weakening_that_fixes_a_test_says_so() -> None:
    (f,) = weakening(replace(WEAKER, fixes_test=True, restore=()))
    assert FIXES_TEST in f.body and spec_change_sentence(replace(WEAKER, fixes_test=True)) in f.body


@pytest.mark.parametrize("c", [
    replace(WEAKER, relation=Relation.STRONGER, accepted_by="base"),
    replace(WEAKER, relation=Relation.EQUIVALENT, accepted_by=""),
    replace(WEAKER, relation=Relation.UNKNOWN, accepted_by="", reason="time-out"),
    replace(WEAKER, method="Other"),  # not a method scored at head
])
def test_only_a_proved_weakening_of_a_scored_method_is_a_finding(c: SpecChange) -> None:
    assert weakening(c) == []


def test_a_restored_line_that_would_show_as_two_is_not_offered() -> None:
    (f,) = weakening(replace(WEAKER, restore=("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==>\u2028r == -x")))
    assert "suggestion" not in f.body


def test_placement_whole_span_then_a_remaining_line_then_the_declaration_else_the_summary() -> None:
    (f,) = weakening(spans={("abs.dfy", "Abs"): ensures_spans(BASE.replace("x < 0 ==> r == -x", "x > 9"),
                                                                "abs.dfy")["Abs"]})
    assert (f.start_line, f.line, f.anchors) == (2, 3, (3, 1))
    both = plan_review([f], {"abs.dfy": hunks("@@ -1,6 +1,6 @@")}, [], "bot", "default", "c" * 40)
    assert [(g.start_line, g.line, "suggestion" in g.body) for g in both.create] == [(2, 3, True)]
    # only line 3 in the diff: the plain sentence there, without the block (GitHub takes a block only in a hunk)
    third = plan_review([f], {"abs.dfy": hunks("@@ -3,1 +3,1 @@")}, [], "bot", "default", "c" * 40)
    assert [(g.start_line, g.line, "suggestion" in g.body) for g in third.create] == [(3, 3, False)]
    header = plan_review([f], {"abs.dfy": hunks("@@ -1,1 +1,1 @@")}, [], "bot", "default", "c" * 40)
    assert [(g.line, "suggestion" in g.body) for g in header.create] == [(1, False)]
    outside = plan_review([f], {"abs.dfy": hunks("@@ -20,2 +20,2 @@")}, [], "bot", "default", "c" * 40)
    assert outside.create == () and outside.outside == (f,)


def test_a_rerun_edits_the_same_comment() -> None:
    from bot.github.api import ReviewComment
    (f,) = weakening()
    diff = {"abs.dfy": hunks("@@ -1,6 +1,5 @@")}
    first = plan_review([f], diff, [], "bot", "default", "c" * 40)
    (g,) = first.create
    again = plan_review([f], diff, [ReviewComment(5, "bot", g.body, g.path, g.line, None, None, 5, "")], "bot",
                        "default", "c" * 40)
    assert again.empty


def edit(base: str, head: str) -> tuple[int, int, tuple[str, ...]] | None:
    b, h = parse_file(base, "f.dfy"), parse_file(head, "f.dfy")
    return restored_lines(b.methods()[0], h.methods()[0], h)


M = "method M(x: int) returns (r: int)\n"
BODY = "{\n  r := x;\n}\n"


@pytest.mark.parametrize(("base", "head", "want"), [
    # a deleted clause goes back where base had it: first, middle, last
    (M + "  ensures A\n  ensures B\n  ensures C\n" + BODY, M + "  ensures B\n  ensures C\n" + BODY,
     (2, 3, ("  ensures A", "  ensures B", "  ensures C"))),
    (M + "  ensures A\n  ensures B\n  ensures C\n" + BODY, M + "  ensures A\n  ensures C\n" + BODY,
     (2, 3, ("  ensures A", "  ensures B", "  ensures C"))),
    # a requires between head's clauses stays where it is
    (M + "  ensures A\n  ensures B\n" + BODY, M + "  ensures A\n  requires P\n  ensures B2\n" + BODY,
     (2, 4, ("  ensures A", "  requires P", "  ensures B"))),
    # loosened in place (one to one by position), over several lines
    (M + "  ensures A\n  ensures B &&\n    C\n" + BODY, M + "  ensures A\n  ensures B ||\n    C\n" + BODY,
     (2, 4, ("  ensures A", "  ensures B && C"))),
    # every clause deleted: after the declaration's line
    (M + "  ensures A\n" + BODY, M + BODY, (1, 1, (M.rstrip("\n"), "  ensures A"))),
])
def test_the_restoring_edit(base: str, head: str, want: tuple) -> None:
    assert edit(base, head) == want


@pytest.mark.parametrize(("base", "head"), [
    (M + "  ensures A\n" + BODY, M + "  ensures A\n" + BODY),  # nothing missing
    (M + "  ensures A\n" + BODY, M + "  ensures  A ;\n" + BODY),  # the same clause, written otherwise
    (M + "  ensures A\n  ensures B\n" + BODY, M + "  ensures B\n  ensures A\n" + BODY),  # reordered only
    # changed and deleted at once: no one-to-one map
    (M + "  ensures A\n  ensures B\n  ensures C\n" + BODY, M + "  ensures A2\n  ensures C2\n" + BODY),
    (M + "  ensures A\n  ensures B\n" + BODY, M + "  ensures A ensures C\n" + BODY),  # two clauses on one line
    (M + "  ensures A\n  ensures B\n" + BODY, M + "  requires P ensures A\n" + BODY),  # not its own line
])
def test_no_edit_when_none_maps_by_whole_lines(base: str, head: str) -> None:
    assert edit(base, head) is None


class _NoEngine:
    progress = None

    def run(self, programs: object) -> dict:
        raise AssertionError("nothing is to be asked of the verifier")


def test_a_clause_dafny_does_not_check_is_not_offered_back(tmp_path: Path) -> None:
    """Base's deleted clause hides an `assume`: no proof rests on what the verifier takes on trust."""
    from bot.dafny.dialect import Dialect
    from bot.runner import TestFiles, build_jobs
    from bot.settings import Settings
    from bot.symbolic.suggest.restore import Wanted, restorations, restored_job

    tests = "\nmethod Tests()\n{\n  var a := Abs(3);\n  expect a == 3;\n}\n"
    jobs = []
    for version, text in (("base", BASE.replace("r == -x", "assume false; r == -x")), ("head", HEAD)):
        (tmp_path / version).mkdir()
        (tmp_path / version / "abs.dfy").write_text(text + tests)
        (job,) = build_jobs(tmp_path / version, ["abs.dfy"], TestFiles()).jobs
        jobs.append(job)
    assert restored_job(jobs[1], jobs[0].method) is not None  # the edit reads back: the check is what refuses it
    w = Wanted(jobs[0], jobs[1], scores()[0], (), ())
    assert restorations([w], _NoEngine(), Dialect.DAFNY2, Settings.defaults().score_options()) == [()]
