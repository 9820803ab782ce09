"""Errors once and where they are: a resolution error on the user's own line is said with that line (not the
batch file's name), and each distinct error of the pull request's files is said once at the top of the comment,
however many methods and cases it stops."""

from __future__ import annotations

from bot.report.comment import ERRORS, CommentInput, input_errors, render_comment
from bot.symbolic.compare import compare
from bot.symbolic.harness.programs import Planned
from bot.symbolic.program import Goal, Program, ProgramKind
from bot.symbolic.proofs import generated_lines
from bot.symbolic.results import SPEC_ERROR, CaseResult, CaseStatus, Gate, method_score
from bot.testcases.cases import TestCase

PRELUDE = "method Add1(x: int) returns (y: int)\n  ensures y == z + 1\n"


def test_a_resolution_error_in_the_prelude_is_the_users_line() -> None:
    program = Program(PRELUDE, "SpecScore_h", "method SpecScore_h() {\n  assert true;\n}", kind=ProgramKind.CORRECTNESS,
                      goal=Goal.ACCEPT)
    planned = Planned(program, ProgramKind.CORRECTNESS, TestCase("T#1", "Add1", (), ()))
    said = generated_lines("batch.dfy(2,15): Error: unresolved identifier: z\n1 resolution/type errors detected in "
                           "batch.dfy", planned)
    assert said == f"{SPEC_ERROR}line 2: unresolved identifier: z (`ensures y == z + 1`)"
    # an error in the generated method stays the tool's own, quoted as such
    assert "in the generated line `assert true;`" in generated_lines("batch.dfy(5,2): Error: oops", planned)


def _error(name: str) -> CaseResult:
    return CaseResult(name, 9, "x = 1", "y = 2", "", "specs/m.dfy", CaseStatus.ERROR,
                      f"{SPEC_ERROR}line 14: unresolved identifier: z (`ensures y == z + 1`)")


def test_each_distinct_error_is_said_once_at_the_top() -> None:
    toml = "specs/m.tests.toml:2: not valid TOML: Expected ']]' at the end of an array declaration"
    head = [method_score("specs/m.dfy", name, 1, (_error(f"{name}Test#1"), _error(f"{name}Test#2")), (toml,))
            for name in ("Inc", "Dec", "Neg")]
    inp = CommentInput(tuple(compare(head, [])), Gate(1.0, 0.0), ("a failure",), "2.3", "<!-- m -->")
    assert input_errors(inp) == [
        ("specs/m.dfy", "line 14: unresolved identifier: z (`ensures y == z + 1`)"),
        ("specs/m.tests.toml", "line 2: not valid TOML: Expected ']]' at the end of an array declaration"),
    ]
    body = render_comment(inp)
    top = body.split(ERRORS, 1)[1].split("\n\n")[1]
    assert top.count("\n") == 1 and body.count("unresolved identifier: z") >= 1
    assert top.startswith("- <code>specs/m.dfy</code> line 14: unresolved identifier: z")
    assert body.index(ERRORS) < body.index("Thresholds:")  # before everything else
