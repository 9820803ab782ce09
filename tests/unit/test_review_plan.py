"""The inline review: which findings a run places, edits, retires, and what their comments say. Pure code."""

from __future__ import annotations

from bot.dafny.spans import ensures_spans
from bot.github.api import ReviewComment
from bot.github.pr.diff import hunks
from bot.github.pr.review_plan import MAX_INLINE, plan_review
from bot.report.review import Finding, Kind, findings, marker, marker_in
from bot.symbolic.compare import compare
from bot.symbolic.results import CaseResult, CaseStatus, MutantResult, MutantStatus, Suggestion, method_score

BOT = "spec-bot"
SPEC = """method Add(x: int) returns (r: int)
  requires x >= 0
  ensures r > x
  ensures r >= 0
{
  r := x + 1;
}
"""
SPANS = {("add.dfy", "Add"): ensures_spans(SPEC, "add.dfy")["Add"]}
DIFF = {"add.dfy": hunks("@@ -1,7 +1,7 @@\n a\n-b\n+c\n d\n e\n f\n g")}


def weak(name: str = "Add", value: str = "3", suggestion: Suggestion | None = None, refuted: bool = False) -> list:
    status = CaseStatus.REFUTED if refuted else CaseStatus.VERIFIED
    case = CaseResult("T#1", 9, "x = 1", "r = 2", "", "add.dfy", status, "",
                      (MutantResult(value, "r: 2 -> 3", MutantStatus.SURVIVED),) if not refuted else (),
                      clause="ensures r >= 0" if refuted else "")
    score = method_score("add.dfy", name, 1, (case,))
    if suggestion is not None:
        from dataclasses import replace
        score = replace(score, suggestions=(suggestion,))
    return [score]


def found(scores: list, head_sha: str = "c" * 40) -> tuple[Finding, ...]:
    return findings(compare(scores, []), SPANS, "default", head_sha)


def existing(f: Finding, id: int = 1, author: str = BOT, body: str | None = None, line: int | None = None,
             reply_to: int | None = None) -> ReviewComment:
    return ReviewComment(id, author, f.body if body is None else body, f.path, f.line if line is None else line,
                         f.start_line if f.start_line < f.line else None, reply_to, 5, "")


def test_a_weak_spec_gets_one_comment_on_the_clause_naming_its_output() -> None:
    (f,) = found(weak())
    assert (f.kind, f.start_line, f.line) == (Kind.ACCEPTS, 3, 3)
    assert marker_in(f.body, "default") == (f.key, False)
    assert "accepts a wrong output" in f.body and "<code>3</code>" in f.body and "suggestion" not in f.body


def test_a_refuted_case_is_placed_on_the_clause_that_rejects_it() -> None:
    (f,) = found(weak(refuted=True))
    assert (f.kind, f.line) == (Kind.REJECTS, 4)
    assert "rejects an output its tests expect" in f.body and "<code>ensures r &gt;= 0</code>" in f.body


def test_a_verified_suggestion_is_a_suggestion_block_over_the_lines_up_to_where_it_goes() -> None:
    g = Suggestion("r == x + 1", "tight-bound", 4, 2, 1, 2, 0, 0, 2, "verifies")
    (f,) = found(weak(suggestion=g))
    assert (f.start_line, f.line) == (3, 4)
    assert "```suggestion\n  ensures r > x\n  ensures r >= 0\n  ensures r == x + 1\n```" in f.body
    assert "still verifies" in f.body


def test_user_text_cannot_close_the_suggestion_block_or_ping() -> None:
    g = Suggestion("r == x + 1", "t", 4, 2, 1, 2, 0, 0, 2)
    spec = SPEC.replace("ensures r >= 0", "ensures r >= 0 // ``` @octocat")
    spans = {("add.dfy", "Add @admin"): ensures_spans(spec, "add.dfy")["Add"]}
    (f,) = findings(compare(weak("Add @admin", value="`x` @everyone", suggestion=g), []), spans, "default", "")
    assert "````suggestion" in f.body and "@admin" not in f.body and "@everyone" not in f.body


def test_a_run_places_new_findings_edits_moved_text_and_leaves_equal_ones() -> None:
    (f,) = found(weak())
    new = plan_review([f], DIFF, [], BOT, "default", "c" * 40)
    assert new.create == (f,) and not new.edit and not new.delete
    same = plan_review([f], DIFF, [existing(f)], BOT, "default", "c" * 40)
    assert same.empty
    (g,) = found(weak(), head_sha="d" * 40)  # a new head: the same finding, its text names the new commit
    edited = plan_review([g], DIFF, [existing(f)], BOT, "default", "d" * 40)
    assert edited.edit == ((1, g.body),) and not edited.create and not edited.delete


def test_a_finding_that_moved_is_posted_anew_and_its_old_comment_retired() -> None:
    (f,) = found(weak())
    moved = plan_review([f], DIFF, [existing(f, line=6)], BOT, "default", "c" * 40)
    assert moved.delete == (1,) and moved.create == (f,)
    outdated = plan_review([f], DIFF, [ReviewComment(1, BOT, f.body, f.path, None, None, None, 5, "")], BOT,
                           "default", "c" * 40)
    assert outdated.delete == (1,) and outdated.create == (f,)


def test_a_gone_finding_is_deleted_or_when_answered_marked_resolved() -> None:
    (f,) = found(weak())
    gone = plan_review([], DIFF, [existing(f)], BOT, "default", "e" * 40)
    assert gone.delete == (1,)
    answered = plan_review([], DIFF, [existing(f), existing(f, 2, "alice", "thanks", reply_to=1)], BOT, "default",
                           "e" * 40)
    ((cid, body),) = answered.edit
    assert cid == 1 and not answered.delete and marker_in(body, "default") == (f.key, True)
    assert "Resolved at <code>eeeeeeeeeeee</code>" in body and "suggestion" not in body.split("details>")[0]
    # a resolved comment stays as it is on later runs
    settled = plan_review([], DIFF, [existing(f, body=body), existing(f, 2, "alice", "thanks", reply_to=1)], BOT,
                          "default", "f" * 40)
    assert settled.empty


def test_only_the_bots_own_comments_of_this_comment_id_are_touched() -> None:
    (f,) = found(weak())
    others = [existing(f, 1, author="mallory"), existing(f, 2, body=f.body.replace("default", "job-b"))]
    plan = plan_review([], DIFF, others, BOT, "default", "c" * 40)
    assert plan.empty


def test_duplicates_keep_the_newest_and_lines_outside_the_diff_stay_in_the_summary() -> None:
    (f,) = found(weak())
    dup = plan_review([f], DIFF, [existing(f, 1), existing(f, 2)], BOT, "default", "c" * 40)
    assert dup.delete == (1,) and not dup.create and not dup.edit
    far = {"add.dfy": hunks("@@ -40,2 +40,2 @@\n x\n y")}
    outside = plan_review([f], far, [existing(f)], BOT, "default", "c" * 40)
    assert outside.outside == (f,) and outside.delete == (1,) and not outside.create


def test_the_marker_names_the_comment_id_and_key() -> None:
    assert marker("job-a", "0123456789abcdef") == "<!-- dafny-spec-score-review:job-a:0123456789abcdef -->"
    assert marker_in("<!-- dafny-spec-score-review:job-a:0123456789abcdef -->", "job-b") is None


def test_past_the_cap_findings_stay_in_the_summary() -> None:
    many = [s for i in range(MAX_INLINE + 3) for s in weak(f"Add{i}")]
    spans = {("add.dfy", f"Add{i}"): SPANS[("add.dfy", "Add")] for i in range(MAX_INLINE + 3)}
    fs = findings(compare(many, []), spans, "default", "")
    plan = plan_review(fs, DIFF, [], BOT, "default", "")
    assert len(plan.create) == MAX_INLINE and len(plan.outside) == 3


# --- hostile review ---------------------------------------------------------------------------------

def _applied(source: str, f: Finding) -> str:
    """The file after the comment's suggestion is committed (GitHub replaces lines start_line..line)."""
    import re
    block = re.search(r"^(`{3,})suggestion\n(.*?)\n\1$", f.body, re.S | re.M)
    assert block is not None, f.body
    rows = source.split("\n")
    return "\n".join(rows[: f.start_line - 1] + block.group(2).split("\n") + rows[f.line:])


def _suggested(source: str) -> Finding:
    from dataclasses import replace

    from bot.dafny.parser import parse_file
    parsed = parse_file(source, "add.dfy")
    (m,) = parsed.methods()
    line = max(parsed.end_line(c) for c in m.clauses)  # as bot.symbolic.suggest.search gives it
    g = Suggestion("r == x + 1", "t", line, 1, 1, 1, 0, 0, 1, "verifies")
    spans = {("add.dfy", "Add"): ensures_spans(source, "add.dfy")["Add"]}
    (f,) = findings(compare([replace(weak()[0], suggestions=(g,))], []), spans, "default", "")
    return f


def test_a_suggestion_after_a_clause_over_several_lines_goes_after_its_last_line() -> None:
    source = SPEC.replace("ensures r >= 0", "ensures r >= 0 &&\n          r >= x")
    f = _suggested(source)
    text = _applied(source, f)
    assert "r >= x\n  ensures r == x + 1\n{" in text, text
    assert (f.start_line, f.line) == (3, 5)


def test_a_suggestion_never_lands_after_the_body_brace_on_the_clause_line() -> None:
    from bot.dafny.parser import parse_file
    for source in [SPEC.replace("ensures r >= 0\n{", "ensures r >= 0 {"),
                   "method Add(x: int) returns (r: int) ensures r > x { r := x + 1; }\n"]:
        f = _suggested(source)
        if "suggestion" in f.body:
            text = _applied(source, f)
            (m,) = parse_file(text, "add.dfy").methods()  # the committed suggestion still parses ...
            assert [c.text for c in m.clauses if c.kind == "ensures"][-1] == "r == x + 1", text  # ... as a clause


def test_a_comment_retired_for_a_finding_that_still_applies_never_says_resolved() -> None:
    (f,) = found(weak())
    reply = existing(f, 2, "alice", "why?", reply_to=1)
    moved = plan_review([f], DIFF, [existing(f, line=6), reply], BOT, "default", "e" * 40)
    far = {"add.dfy": hunks("@@ -40,2 +40,2 @@\n x\n y")}
    outside = plan_review([f], far, [existing(f), reply], BOT, "default", "e" * 40)
    for plan in (moved, outside):
        ((cid, body),) = plan.edit
        assert cid == 1 and marker_in(body, "default") == (f.key, True)  # retired: not touched again
        assert "no longer finds this" not in body and "Resolved" not in body, body


def test_the_refuting_clause_is_inline_code_that_its_text_cannot_close() -> None:
    from dataclasses import replace
    score = weak(refuted=True)[0]
    case = replace(score.cases[0], clause='ensures s != "`" && r >= 0')  # a backtick: a string or char literal
    (f,) = findings(compare([replace(score, cases=(case,))], []), SPANS, "default", "")
    # inside a backtick code span GitHub shows `\` and `&gt;` as they are, and a backtick closes it
    assert '<code>ensures s != "&#96;" &amp;&amp; r &gt;= 0</code> is proved false' in f.body, f.body


def test_a_suggestion_keeps_each_source_line_as_one_line() -> None:
    # hostile review: a form feed or U+2028 in a comment of a kept line was split into two suggestion lines,
    # so committing the "proved" suggestion also broke that line
    for odd in ("\x0c", "\u2028", "\x85", "\x1e"):
        source = SPEC.replace("ensures r > x", f"ensures r > x // a{odd}b")
        f = _suggested(source)
        if "suggestion" in f.body:
            text = _applied(source, f)
            assert text == source.replace("ensures r >= 0", "ensures r >= 0\n  ensures r == x + 1"), repr(text)


GITHUB_MAX_BODY = 65536  # GitHub refuses a longer comment body (422), and with it the whole review


def test_every_comment_body_fits_githubs_limit_even_over_very_long_lines() -> None:
    # hostile review: one spec line of 70k characters made one body too long, so GitHub refused the whole
    # review (all or nothing): no finding of the pull request was placed, on every run
    long = "ensures r >= 0 // " + "x" * 70_000
    f = _suggested(SPEC.replace("ensures r >= 0", long))
    assert len(f.body) <= GITHUB_MAX_BODY
    reply = existing(f, 2, "alice", "why?", reply_to=1)
    big = "<!-- dafny-spec-score-review:default:" + f.key + " -->\n" + "y" * (GITHUB_MAX_BODY - 100)
    plan = plan_review([], DIFF, [existing(f, body=big), reply], BOT, "default", "e" * 40)
    ((_, body),) = plan.edit
    assert len(body) <= GITHUB_MAX_BODY


def test_a_suggestion_reaching_past_the_hunk_falls_back_to_the_clause_alone() -> None:
    g = Suggestion("r == x + 1", "tight-bound", 4, 2, 1, 2, 0, 0, 2, "verifies")
    (f,) = found(weak(suggestion=g))
    assert f.narrow is not None and (f.start_line, f.line) == (3, 4)
    only_line_3 = {"add.dfy": hunks("@@ -3 +3 @@\n-a\n+b")}
    plan = plan_review([f], only_line_3, [], BOT, "default", "c" * 40)
    (placed,) = plan.create
    assert (placed.start_line, placed.line) == (3, 3) and "```suggestion" not in placed.body
    assert "Adding <code>ensures r == x + 1</code> after" in placed.body and placed.body.startswith("<!-- ")
