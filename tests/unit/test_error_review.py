"""Errors where they are: each distinct error on a line of the pull request's files (a spec line that does not
resolve or parse, a test file's line that cannot be read) is one review comment on that line, when it is in the diff,
worded as an error; a method's "could not be scored" whose cause is such a comment is not placed beside it. Pure
code: the planning (tests/e2e/test_error_review_e2e.py runs it against the local GitHub with the real verifier)."""

from __future__ import annotations

from bot.github.api import ReviewComment
from bot.github.pr.diff import hunks
from bot.github.pr.review_plan import ReviewPlan, plan_review
from bot.report.comment import CommentInput, ErrorKind, errors_in, input_errors
from bot.report.review import Finding, Kind, findings, marker_in
from bot.symbolic.compare import compare
from bot.symbolic.results import SPEC_ERROR, CaseResult, CaseStatus, Gate, MethodScore, method_score

BOT = "spec-bot"
FIX = "  fix the Dafny syntax there, or pass another file"  # how bot/runner.py build_jobs ends a parse error
SHA = "c" * 40


def _error(name: str, line: int = 14, what: str = "unresolved identifier: z", text: str = "ensures y == z + 1"
           ) -> CaseResult:
    return CaseResult(name, 9, "x = 1", "y = 2", "", "specs/m.dfy", CaseStatus.ERROR,
                      f"{SPEC_ERROR}line {line}: {what} (`{text}`)")


def _unresolved(*names: str) -> list[MethodScore]:
    """Methods of specs/m.dfy, none scored: line 14 does not resolve (Inc's first `ensures`, for the spans)."""
    return [method_score("specs/m.dfy", n, 13 if n == "Inc" else 1, (_error(f"{n}Test#1"), _error(f"{n}Test#2")))
            for n in names]


def _found(head: list[MethodScore], file_errors: tuple[str, ...] = ()) -> tuple[Finding, ...]:
    return findings(compare(head, []), {}, "default", SHA, file_errors)


def _plan(found: tuple[Finding, ...], diff: dict[str, str], existing: tuple[ReviewComment, ...] = ()) -> ReviewPlan:
    return plan_review(found, {p: hunks(patch) for p, patch in diff.items()}, existing, BOT, "default", SHA)


ADDED_INC = "@@ -10,3 +10,13 @@\n" + " c\n" * 3 + "+a\n" * 10  # lines 10-22 of the head, Inc's among them


def test_one_error_shared_by_every_method_and_case_is_one_comment_on_its_line() -> None:
    found = _found(_unresolved("Old", "Inc"))
    errors = [f for f in found if f.kind is Kind.ERROR]
    (error,) = errors
    assert (error.path, error.start_line, error.line) == ("specs/m.dfy", 14, 14)
    assert error.body.split("\n")[1].startswith("This line does not resolve: unresolved identifier: z. ")
    assert "<code>Inc</code>, <code>Old</code>" in error.body and "fix this line" in error.body
    assert "batch.dfy" not in error.body and marker_in(error.body, "default") == (error.key, False)
    assert found[0] is error  # errors first, as at the top of the summary comment
    plan = _plan(found, {"specs/m.dfy": ADDED_INC})
    # Inc's "could not be scored" says nothing the error's comment does not; Old's is outside the diff anyway: neither
    # is placed, nor counted as a finding left outside the diff
    assert plan.create == (error,) and plan.outside == ()


def test_the_error_outside_the_diff_leaves_the_methods_finding_where_it_is() -> None:
    found = _found(_unresolved("Inc"))
    # only line 1 changed: line 14 (the error, and Inc's `ensures`) is outside the diff
    plan = _plan(found, {"specs/m.dfy": "@@ -1,1 +1,1 @@\n-a\n+b"})
    assert plan.create == () and [f.kind for f in plan.outside] == [Kind.ERROR, Kind.UNSCORED]
    # the method's own line in the diff, the error's not: the method's finding is placed, the error stays in the summary
    (unscored,) = [f for f in found if f.kind is Kind.UNSCORED]
    assert unscored.causes == (found[0].key,)
    plan = _plan((found[0], Finding(unscored.path, unscored.method, unscored.kind, 2, 2, unscored.key, unscored.body,
                                    causes=unscored.causes)), {"specs/m.dfy": "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d"})
    assert [f.kind for f in plan.create] == [Kind.UNSCORED] and [f.kind for f in plan.outside] == [Kind.ERROR]


def test_a_rerun_edits_nothing_and_adds_nothing() -> None:
    found = _found(_unresolved("Inc"))
    (error,) = _plan(found, {"specs/m.dfy": ADDED_INC}).create
    earlier = ReviewComment(5, BOT, error.body, error.path, error.line, None, None, 1, "")
    again = _plan(found, {"specs/m.dfy": ADDED_INC}, (earlier,))
    assert again.empty and again.outside == ()
    # fixed at a later head: the error's comment goes
    fixed = (method_score("specs/m.dfy", "Inc", 13, (CaseResult("IncTest#1", 9, "x = 1", "y = 2", "", "specs/m.dfy",
                                                                CaseStatus.VERIFIED, ""),)),)
    gone = _plan(_found(list(fixed)), {"specs/m.dfy": ADDED_INC}, (earlier,))
    assert gone.delete == (5,) and gone.create == ()


def test_distinct_errors_are_distinct_comments_and_the_same_one_is_one() -> None:
    head = [method_score("specs/m.dfy", "Inc", 13, (_error("IncTest#1"), _error("IncTest#2", 15, "unresolved "
                                                                                "identifier: w", "ensures y > w"))),
            method_score("specs/m.dfy", "Dec", 20, (_error("DecTest#1", 15, "unresolved identifier: w",
                                                           "ensures y > w"),))]
    errors = [f for f in _found(head) if f.kind is Kind.ERROR]
    assert [(f.line, f.body.split("\n")[1][:60]) for f in errors] == [
        (14, "This line does not resolve: unresolved identifier: z. Dafny "),
        (15, "This line does not resolve: unresolved identifier: w. Dafny ")]
    assert len({f.key for f in errors}) == 2


def test_a_toml_line_that_cannot_be_read_is_commented_on_as_such() -> None:
    toml = "specs/t.tests.toml:6: not valid TOML: Expected ']]' at the end of an array declaration"
    head = [method_score("specs/t.dfy", n, line, (), (toml,)) for n, line in (("Twice", 1), ("Half", 7))]
    found = _found(head)
    (error,) = [f for f in found if f.kind is Kind.ERROR]
    assert (error.path, error.line) == ("specs/t.tests.toml", 6)
    assert error.body.split("\n")[1].startswith("This TOML line cannot be read: not valid TOML: Expected")
    plan = _plan(found, {"specs/t.tests.toml": "@@ -5,2 +5,2 @@\n \n-[[case]]\n+[[case]"})
    assert plan.create == (error,) and plan.outside == ()  # the two methods' findings have it as their cause


def test_a_test_files_reason_naming_its_own_line_is_placed_there() -> None:
    problem = "specs/test/u.dfy:2: line 3: `expect r == 6` has no `;` at its end"
    (e,) = errors_in(compare([method_score("specs/u.dfy", "Twice", 1, (), (problem,))], []))
    assert (e.file, e.line, e.message, e.kind) == ("specs/test/u.dfy", 3, "`expect r == 6` has no `;` at its end",
                                                   ErrorKind.TESTS)
    assert e.methods == (("specs/u.dfy", "Twice"),)
    (f, _) = _found([method_score("specs/u.dfy", "Twice", 1, (), (problem,))])
    assert f.line == 3 and "This line of the test file cannot be read: " in f.body


def test_errors_no_method_carries_are_said_and_commented_too() -> None:
    parse = f"specs/n.dfy:3:1: '{{' is never closed (add the missing '}}')\n{FIX}"
    toml = "specs/t.tests.toml:2: not valid TOML: Expected ']]'"
    whole = "specs/w.tests.toml:0: cannot read the test file: not UTF-8 text"
    refused = "specs/x.dfy: refused: the spec file leads outside the checkout (a symlink?)"
    inp = CommentInput((), Gate(1.0, 0.0), (), "2.3", "<!-- m -->", file_errors=(parse, toml, whole, refused))
    assert input_errors(inp) == [("specs/n.dfy", "line 3: '{' is never closed (add the missing '}')"),
                                 ("specs/t.tests.toml", "line 2: not valid TOML: Expected ']]'"),
                                 ("specs/w.tests.toml", "cannot read the test file: not UTF-8 text")]
    found = findings((), {}, "default", SHA, inp.file_errors)
    assert [(f.path, f.line, f.body.split("\n")[1].split(":")[0]) for f in found] == [
        ("specs/n.dfy", 3, "This line does not parse"), ("specs/t.tests.toml", 2, "This TOML line cannot be read")]


def test_a_placeholders_parse_error_and_the_run_error_are_one() -> None:
    note = "the spec file does not parse: specs/m.dfy:3:1: '{' is never closed (add the missing '}')"
    head = [method_score("specs/m.dfy", "Old", 0, (), (), note)]
    run = f"specs/m.dfy:3:1: '{{' is never closed (add the missing '}}')\n{FIX}"
    (e,) = errors_in(compare(head, []), (run,))
    assert (e.line, e.kind, e.methods) == (3, ErrorKind.PARSE, (("specs/m.dfy", "Old"),))
    error, unscored = _found(head, (run,))
    assert (error.kind, unscored.kind, unscored.causes) == (Kind.ERROR, Kind.UNSCORED, (error.key,))


def test_a_method_with_another_reason_too_keeps_its_own_comment() -> None:
    timeout = CaseResult("IncTest#3", 9, "x = 2", "y = 3", "", "specs/m.dfy", CaseStatus.UNKNOWN, "timed out")
    head = [method_score("specs/m.dfy", "Inc", 13, (_error("IncTest#1"), timeout))]
    found = _found(head)
    unscored = next(f for f in found if f.kind is Kind.UNSCORED)
    assert unscored.causes == ()  # the unknown case is a reason of its own: both are placed
    plan = _plan(found, {"specs/m.dfy": ADDED_INC})
    assert [f.kind for f in plan.create] == [Kind.ERROR, Kind.UNSCORED]
