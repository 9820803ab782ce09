"""What a pull request changes in a spec, on every input, with the real verifier: each relation proved, each
witness proved on the concrete values by each version's own file, and unknown whenever that chain breaks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bot.symbolic.spec_change_run as spec_change_run
from bot.dafny.values import IntV
from bot.symbolic.results import Relation, SpecChange
from support.paths import DATA
from support.spec_change import compare_versions

pytestmark = pytest.mark.dafny
HERE = DATA / "spec_change"


def change(base: str, head: str, tmp_path: Path) -> SpecChange:
    return compare_versions(HERE / base, HERE / head, tmp_path)

def test_a_deleted_clause_the_tests_never_reach_is_a_proved_weakening(dafny_command: str, tmp_path: Path) -> None:
    c = change("abs_base.dfy", "abs_weaker.dfy", tmp_path)
    assert (c.relation, c.accepted_by, c.requires) == (Relation.WEAKER, "head", "same"), c
    x = int(c.inputs.removeprefix("x = "))
    r = int(c.output.removeprefix("r = "))
    assert x < 0 and r != -x  # where only the deleted clause spoke, an output base rejected
    assert c.sentence.startswith(f"`Abs` got weaker beyond the tests: for `x = {x}` it now accepts `r = {r}`")
    assert c.as_dict() == {"file": "abs.dfy", "method": "Abs", "relation": "weaker", "inputs": f"x = {x}",
                           "output": f"r = {r}", "accepted_by": "head"}


def test_an_added_clause_is_a_proved_strengthening(dafny_command: str, tmp_path: Path) -> None:
    c = change("abs_base.dfy", "abs_stronger.dfy", tmp_path)
    assert (c.relation, c.accepted_by) == (Relation.STRONGER, "base"), c
    assert int(c.output.removeprefix("r = ")) > 100  # the new bound, on an input whose magnitude exceeds it


def test_a_rewrite_through_a_helper_is_equivalent(dafny_command: str, tmp_path: Path) -> None:
    c = change("abs_base.dfy", "abs_equivalent.dfy", tmp_path)
    assert c.relation is Relation.EQUIVALENT, c


def test_a_requires_that_drops_inputs_base_promised_on_is_a_weakening(dafny_command: str, tmp_path: Path) -> None:
    """Head adds `requires x > -10`, its clauses unchanged: on x = -10 and below it promises nothing, where base
    promised r == -x. A narrower requires is a weaker contract: the witness is such an input, proved rejected by
    head's requires, and an output base is proved to reject there."""
    c = change("abs_base.dfy", "abs_requires.dfy", tmp_path)
    assert (c.relation, c.accepted_by, c.requires) == (Relation.WEAKER, "head", "admits no input base did not"), c
    assert int(c.inputs.removeprefix("x = ")) <= -10
    assert c.sentence.endswith("which base rejected (its `requires` no longer admits that input).")


def test_a_helper_changed_by_the_pull_request_counts(dafny_command: str, tmp_path: Path) -> None:
    """The method's own clauses are the same; the function they call changed (|x| -> 0 for negative x)."""
    c = change("mag_base.dfy", "mag_head.dfy", tmp_path)
    assert c.relation is Relation.INCOMPARABLE and c.accepted_by == "head", c
    assert "which base accepted" in c.reason


def test_an_unproved_counterexample_is_no_weakening(dafny_command: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A decoding error planted: the counterexample is read as x = 3, r = 3, which both versions accept; the
    concrete rejection fails, so no weakening is claimed."""
    monkeypatch.setattr(spec_change_run, "_read",
                        lambda asked, direction, result, small=False: ((IntV(3),), (IntV(3),)))
    c = change("abs_base.dfy", "abs_weaker.dfy", tmp_path)
    assert c.relation is Relation.UNKNOWN, c
    assert "the counterexample was not proved on the concrete values" in c.reason


def test_an_inconsistent_declaration_no_check_reaches_relates_nothing(dafny_command: str, tmp_path: Path) -> None:
    """Head's file holds a constant defined by a function that does not terminate: from its axiom every question
    of the pair would be proved (equivalent, say), so the consistency probe fails and nothing is related."""
    c = change("abs_base.dfy", "abs_inconsistent.dfy", tmp_path)
    assert (c.relation, c.reason) == (Relation.UNKNOWN, spec_change_run.INCONSISTENT), c


@pytest.mark.parametrize("name, inputs", [("maxs", r"a = \[(-?\d+), (-?\d+)(?:, -?\d+)*\]"),
                                          ("maxa", r"a = \[(-?\d+), (-?\d+)(?:, -?\d+)*\]")])
def test_a_witness_that_needs_a_sequence_or_an_array_input(dafny_command: str, tmp_path: Path, name: str,
                                                           inputs: str) -> None:
    """Head drops `forall i :: a[i] <= m`: a witness needs an input of two elements or more and an element that
    is not the largest. For an array, Dafny 2.3's model gives the length but not the elements: the question asked
    again with the input short and spelled out (bot/symbolic/bounded.py) gives them."""
    c = change(f"{name}_base.dfy", f"{name}_weaker.dfy", tmp_path)
    assert (c.relation, c.accepted_by) == (Relation.WEAKER, "head"), c
    found = re.fullmatch(inputs, c.inputs)
    assert found is not None, c.inputs
    elems = [int(v) for v in c.inputs.removeprefix("a = [").removesuffix("]").split(", ")]
    m = int(c.output.removeprefix("m = "))
    assert m in elems and m < max(elems)  # an element, not the largest: base rejects it, head accepts it
    assert len(elems) <= 5  # short: the question with short inputs found it


def test_a_method_inside_nested_modules_is_compared_in_its_own_scope(dafny_command: str, tmp_path: Path) -> None:
    """`A.B.Abs` says `r == Mag(x)` of its own module's `Mag` (the top level's is 0 everywhere); head says it of
    non-negative inputs only: weaker, with a negative witness, which no reading of the top level's `Mag` gives."""
    c = change("mod_base.dfy", "mod_weaker.dfy", tmp_path)
    assert (c.method, c.relation, c.accepted_by) == ("A.B.Abs", Relation.WEAKER, "head"), c
    x = int(c.inputs.removeprefix("x = "))
    assert x < 0 and int(c.output.removeprefix("r = ")) != -x
    (tmp_path / "same").mkdir()
    same = change("mod_base.dfy", "mod_equivalent.dfy", tmp_path / "same")  # `Mag(x) == r`
    assert same.relation is Relation.EQUIVALENT, same
