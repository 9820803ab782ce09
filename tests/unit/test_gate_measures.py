"""A gate threshold is met only when it was measured: a measure the base had and the head lacks fails the gate.

Pure: the scores are built by hand as the engine would give them. The measures are a method's completeness, its
decided cases and its pinned cases; a pull request could otherwise weaken a spec and pass by deleting, renaming,
breaking, leaving undecided or rewording (an equality turned into a property) the checks that measured it.
"""

from __future__ import annotations

from bot.report.comment import CommentInput, render_comment
from bot.report.sentences import method_sentence
from bot.symbolic.compare import Change, compare
from bot.symbolic.gate import pr_gate
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Determinacy,
    Gate,
    MethodScore,
    MutantResult,
    MutantStatus,
    Undecided,
    gate_failures,
    method_score,
)

K, S = MutantStatus.KILLED, MutantStatus.SURVIVED
FILE, METHOD = "specs/cube.dfy", "Cube"
MARKER = "<!-- dafny-spec-score:default -->"


def case(name: str, n: int, *, expected: str = "", status: CaseStatus = CaseStatus.VERIFIED,
         mutants: tuple[MutantStatus, ...] = (K, K), determinacy: Determinacy | None = Determinacy.PINNED,
         reason: Undecided | None = None, witness: str = "") -> CaseResult:
    return CaseResult(name, 3, f"n = {n}", expected or f"r = {n ** 3}", "", "t.dfy", status, "",
                      tuple(MutantResult(str(k), "mutant", m) for k, m in enumerate(mutants)), reason=reason,
                      determinacy=determinacy, witness=witness, witness_source="solver" if witness else "")


def score(*cases: CaseResult, problems: tuple[str, ...] = ()) -> MethodScore:
    return method_score(FILE, METHOD, 1, cases, problems)


BASE = score(case("CubeTest#1", 2), case("CubeTest#2", 3))
DEFAULT = Gate()


def judge(head: MethodScore, base: MethodScore = BASE, gate: Gate = DEFAULT) -> tuple[str, ...]:
    [d] = compare([head], [base])
    return pr_gate([d], gate).failures


def test_an_unchanged_method_passes() -> None:
    assert judge(BASE) == ()
    [d] = compare([BASE], [BASE])
    assert d.change is Change.UNCHANGED and not d.regression


def test_checks_turned_into_properties_lose_completeness_and_pins() -> None:
    """`expect r == 8;` rewritten as a property: the case still verifies, but it has no mutants and pins nothing."""
    head = score(case("CubeTest#1", 2, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED),
                 case("CubeTest#2", 3, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED))
    assert head.correctness == 1.0 and head.completeness is None
    failures = judge(head)
    assert failures == (
        f"{FILE}: {METHOD}: completeness was 1.00 at base and is not measured at head: no case has a mutant to try "
        "(a property check states no output to mutate)",
        f"{FILE}: {METHOD}: cases CubeTest#1 (n = 2), CubeTest#2 (n = 3) pinned at base are not shown pinned at head "
        "(its check is now a property, `r > 0`, which states no output to pin)",
    )
    [d] = compare([head], [BASE])
    assert d.regression and d.change is Change.CHANGED
    # also with the most lenient thresholds: the loss is not a threshold's to judge
    assert judge(head, gate=Gate(0.0, 0.0)) == failures


def test_completeness_lost_to_undecided_mutants_fails() -> None:
    head = score(case("CubeTest#1", 2, mutants=(MutantStatus.UNKNOWN,)),
                 case("CubeTest#2", 3, mutants=(MutantStatus.UNKNOWN,)))
    assert judge(head) == (f"{FILE}: {METHOD}: completeness was 1.00 at base and is not measured at head: none of "
                           "its 2 mutants was decided",)


def test_a_measured_drop_is_left_to_the_thresholds() -> None:
    """A lower completeness or another output found by the pin check is a measure: the thresholds judge it."""
    weaker = score(case("CubeTest#1", 2, mutants=(K, S), determinacy=Determinacy.NOT_PINNED, witness="9"),
                   case("CubeTest#2", 3))
    assert judge(weaker) == ()
    assert judge(weaker, gate=Gate(1.0, 0.9)) == (f"{FILE}: {METHOD}: completeness 0.75 < 0.90",)
    [d] = compare([weaker], [BASE])
    assert d.regression and not d.lost


def test_a_refuted_case_is_judged_by_correctness_not_as_a_lost_completeness() -> None:
    refuted = score(case("CubeTest#1", 2, status=CaseStatus.REFUTED, mutants=(), determinacy=None),
                    case("CubeTest#2", 3))
    assert judge(refuted) == (f"{FILE}: {METHOD}: correctness 0.50 < 1.00",)
    assert judge(refuted, gate=Gate(0.5, 0.0)) == ()


def test_a_decided_case_that_becomes_undecided_fails() -> None:
    head = score(case("CubeTest#1", 2), case("CubeTest#2", 3, status=CaseStatus.UNKNOWN, mutants=(),
                                             determinacy=None, reason=Undecided.TIMEOUT))
    failures = judge(head)
    assert f"{FILE}: {METHOD}: case CubeTest#2 (n = 3) decided at base is not decided at head (timeout)" in failures
    assert judge(head, gate=Gate(0.0, 0.0)) == failures


def test_a_deleted_case_whose_test_still_runs_fails() -> None:
    head = score(case("CubeTest#1", 2))
    assert judge(head) == (f"{FILE}: {METHOD}: case CubeTest#2 (n = 3) decided at base is gone at head (their test "
                           "CubeTest still runs): a deleted check cannot show the spec still meets the thresholds",)


def test_a_deleted_test_fails_and_a_renamed_one_does_not() -> None:
    other = score(case("CubeTest#1", 2), case("CubeTest#2", 3), case("MoreTest#1", 4))
    assert "(their tests were deleted or renamed)" in judge(BASE, base=other)[0]
    # renamed, reordered, one case added: each base case is found again by its inputs and expected output
    renamed = score(case("Renamed#1", 5), case("Renamed#2", 3), case("Renamed#3", 2))
    assert judge(renamed) == ()


def test_a_renamed_test_that_turns_equalities_into_properties_still_fails() -> None:
    head = score(case("Other#1", 3, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED),
                 case("Other#2", 2, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED))
    failures = judge(head)
    assert any("not measured at head" in f for f in failures)
    assert any("pinned at base are not shown pinned at head" in f for f in failures)


def test_a_case_made_unreadable_fails_once() -> None:
    head = score(case("CubeTest#1", 2), problems=("t.dfy:7: the check of `r` cannot be read",))
    failures = judge(head)
    assert failures == (f"{FILE}: {METHOD}: case CubeTest#2 can no longer be read (t.dfy:7: the check of `r` cannot "
                        "be read)",)


def test_a_pin_check_that_proves_nothing_at_head_fails() -> None:
    head = score(case("CubeTest#1", 2), case("CubeTest#2", 3, determinacy=Determinacy.UNKNOWN))
    assert judge(head) == (f"{FILE}: {METHOD}: case CubeTest#2 (n = 3) pinned at base is not shown pinned at head "
                           "(the pin check is unknown: neither proved pinned nor another output found)",)


def test_every_case_undecided_is_the_method_level_failure_only() -> None:
    head = score(case("CubeTest#1", 2, status=CaseStatus.UNKNOWN, mutants=(), determinacy=None,
                      reason=Undecided.TIMEOUT))
    assert judge(head) == (f"{FILE}: {METHOD}: scored at base, cannot be scored at head (no case decided: "
                           "1 unknown (timeout))",)


def test_an_asked_completeness_that_cannot_be_measured_fails_without_a_base() -> None:
    prop = score(case("CubeTest#1", 2, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED))
    assert gate_failures([prop], Gate(1.0, 0.0)) == []
    assert gate_failures([prop], Gate(1.0, 0.8)) == [
        f"{FILE}: {METHOD}: completeness not measured (no case has a mutant to try (a property check states no "
        "output to mutate)), so min-completeness 0.80 is not met"]
    low = score(case("CubeTest#1", 2), case("CubeTest#2", 3, status=CaseStatus.REFUTED, mutants=()))
    assert gate_failures([low], Gate(0.5, 0.8)) == [
        f"{FILE}: {METHOD}: completeness not measured (correctness is 0.50, and completeness is measured only at "
        "1.00), so min-completeness 0.80 is not met"]


def test_a_lost_completeness_is_said_once_with_a_completeness_threshold() -> None:
    head = score(case("CubeTest#1", 2, mutants=(MutantStatus.UNKNOWN,)), case("CubeTest#2", 3, mutants=()))
    assert judge(head, gate=Gate(1.0, 0.8)) == (
        f"{FILE}: {METHOD}: completeness was 1.00 at base and is not measured at head: none of its 1 mutants was "
        "decided",)


def test_the_comment_names_the_lost_measure_in_its_sentence_verdict_and_list() -> None:
    head = score(case("CubeTest#1", 2, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED),
                 case("CubeTest#2", 3, expected="r > 0", mutants=(), determinacy=Determinacy.DETERMINED))
    deltas = compare([head], [BASE])
    verdict = pr_gate(deltas, Gate())
    body = render_comment(CommentInput(tuple(deltas), Gate(), verdict.failures, "2.3", MARKER))
    assert "## ❌ Dafny Spec Score: failed" in body
    assert "**1 regression(s)** against the base branch, 1 of them a measure the base had and the head lacks " \
           "(a threshold that is not measured is not met)." in body
    assert "- specs/cube.dfy: Cube: completeness was 1.00 at base and is not measured at head" in body
    assert method_sentence(deltas[0]).startswith("<code>Cube</code> lost a measure: completeness was 1.00 at base")


def test_without_the_pin_check_a_case_whose_mutants_are_gone_fails() -> None:
    """`pin: false`: one check turned into a property; the other case keeps the completeness measured (1.00)."""
    base = score(case("CubeTest#1", 2, determinacy=None), case("CubeTest#2", 3, determinacy=None))
    head = score(case("CubeTest#1", 2, determinacy=None),
                 case("CubeTest#2", 3, expected="r > 0", mutants=(), determinacy=None))
    assert head.completeness == 1.0
    assert judge(head, base) == (f"{FILE}: {METHOD}: case CubeTest#2 (n = 3) had wrong outputs tried at base and has "
                                 "none at head (its check is now `r > 0`)",)
