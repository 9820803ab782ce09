"""One fact, one count: a wrong output found both by the pin check and as a surviving mutant is one wrong output
in the comment, the review comment, SARIF and the text report alike, shown once with both ways it was found."""

from __future__ import annotations

import json
import re

from bot.dafny.spans import ensures_spans
from bot.report.comment import CommentInput, render_comment
from bot.report.review import findings
from bot.report.sarif import render_sarif
from bot.report.text import render_text
from bot.symbolic.compare import compare
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Determinacy,
    Gate,
    MethodScore,
    MutantResult,
    MutantStatus,
    method_score,
)

FILE = "specs/even.dfy"
SOURCE = """method IsEven(n: int) returns (r: bool)
  ensures n % 2 == 0 ==> r
{
  r := n % 2 == 0;
}
"""


def weak() -> list[MethodScore]:
    # case 1: the pin check's witness `false` is also the one surviving mutant; case 2: a mutant only
    first = CaseResult("T#1", 8, "n = 3", "r = false", "", FILE, CaseStatus.VERIFIED,
                       mutants=(MutantResult("true", "r: false -> true", MutantStatus.SURVIVED),),
                       determinacy=Determinacy.NOT_PINNED, witness="true", witness_source="solver")
    second = CaseResult("T#2", 9, "n = 5", "r = false", "", FILE, CaseStatus.VERIFIED,
                        mutants=(MutantResult("true", "r: false -> true", MutantStatus.SURVIVED),))
    return [method_score(FILE, "IsEven", 1, (first, second))]


def test_a_wrong_output_found_twice_is_counted_once_everywhere() -> None:
    head = weak()
    (s,) = head
    assert len(s.wrong_outputs) == 2  # (T#1, true) once, (T#2, true)
    assert s.wrong_outputs[0].description == "found by the solver and as a mutant (r: false -> true)"
    deltas = compare(head, [])
    spans = {(FILE, m): sp for m, sp in ensures_spans(SOURCE, FILE).items()}
    comment = render_comment(CommentInput(tuple(deltas), Gate(1.0, 0.9), (), "2.3", "<!-- m -->", spans=spans),
                             limit=None)
    assert "Surviving outputs (2)" in comment
    assert "<code>true</code> (solver, mutant)" in comment
    (review,) = [f for f in findings(deltas, spans, "default", "f" * 40) if "accepts a wrong output" in f.body]
    assert "It accepts 1 other wrong output(s) too" in review.body
    sarif = json.loads(render_sarif(head, spans, "2.3"))
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "spec/accepts-wrong-output"]
    assert "accepts 2 wrong output(s) in 2 test case(s)" in result["message"]["text"]
    text = render_text(head, "2.3")
    lines = [line for line in text.splitlines() if re.match(r"  (not pinned|surviving mutant) in ", line)]
    assert len(lines) == 2, text
    assert "(found by the solver and as a mutant (r: false -> true))" in lines[0]
