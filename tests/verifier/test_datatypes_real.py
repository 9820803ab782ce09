"""User-defined datatypes scored with the real verifier: outputs and inputs of declared datatypes (generic ones,
recursive ones, enumerations, declared in the spec or in a file it includes), values written with constructors in
Dafny tests and in TOML, mutants that switch constructors and change fields, witnesses read from the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA

pytestmark = pytest.mark.dafny
DATATYPES = DATA / "datatypes"


@pytest.fixture(scope="module")
def report(dafny_command: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("datatypes")
    out = tmp / "report.json"
    argv = ["score", str(DATATYPES / "find.dfy"), str(DATATYPES / "lists.dfy"), "--format", "json",
            "--output", str(out), "--cache-dir", str(tmp / "cache")]
    main(argv)  # the refuted cases fail the gate; the report is what is checked
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def method(report: dict[str, Any], name: str) -> dict[str, Any]:
    found = [m for m in report["methods"] if m["method"] == name]
    assert len(found) == 1, [m["method"] for m in report["methods"]]
    return found[0]


def test_an_option_output_with_none_and_some(report: dict[str, Any]) -> None:
    find = method(report, "Find")
    assert [(c["expected"], c["status"]) for c in find["cases"]] == [
        ("r = Some(1)", "verified"), ("r = None", "verified"), ("r = Some(1)", "refuted")], find["cases"]
    assert find["cases"][2]["clause"].startswith("ensures r.Some? ==> r.value < |s|")
    # the strong spec pins both outputs and kills every mutant, among them the other constructor
    assert [c["determinacy"] for c in find["cases"][:2]] == ["pinned", "pinned"]
    mutants = [m for c in find["cases"][:2] for m in c["mutants"]]
    assert mutants and all(m["status"] == "killed" for m in mutants)
    assert {"None", "Some(0)"} <= {m["value"] for m in find["cases"][0]["mutants"]}


def test_a_weak_option_spec_shows_constructor_switching_survivors_and_solver_witnesses(
    report: dict[str, Any],
) -> None:
    weak = method(report, "FindWeak")
    first, second, prop = weak["cases"]
    survivors = {m["value"]: m["description"] for m in first["mutants"] if m["status"] == "survived"}
    assert survivors.get("None") == "r: Some(1) -> None", first["mutants"]
    assert any(d.startswith("r.value: 1 -> ") for d in survivors.values())
    # the witnesses come from the solver's model, read back as datatype values and confirmed by proof
    assert first["determinacy"] == second["determinacy"] == "not-pinned"
    assert second["witness"].startswith("Some(") and second["witness_source"] == "solver", second
    assert first["witness"] != "Some(1)" and first["witness_source"] == "solver", first
    # a property written with a discriminator is a property expectation, accepted with a witness
    assert (prop["expected"], prop["status"]) == ("r.Some?", "verified"), prop


def test_generic_and_enumeration_inputs_from_an_included_file(report: dict[str, Any]) -> None:
    assert [c["status"] for c in method(report, "Size")["cases"]] == ["verified", "verified"]
    nxt = method(report, "Next")["cases"]
    assert [(c["inputs"], c["status"]) for c in nxt] == [("c = Red", "verified"), ("c = Blue", "refuted")], nxt
    assert nxt[1]["clause"] == "ensures c == Blue ==> d == Red"
    head = method(report, "Head")["cases"]
    assert [(c["expected"], c["status"], c["determinacy"]) for c in head] == [
        ('h = "a", ok = true', "verified", "pinned")], head


def test_a_generic_recursive_function_in_the_spec(dafny_command: str, tmp_path: Path) -> None:
    """Dafny 2.3 rejects fuel for a generic function and facts whose literals leave its type arguments open
    (`Len(List.Nil)`, `Cnt([])`): the programs carry neither, and the cases are decided."""
    out = tmp_path / "report.json"
    main(["score", str(DATATYPES / "generic.dfy"), "--format", "json", "--output", str(out),
          "--cache-dir", str(tmp_path / "cache")])
    report = json.loads(out.read_text())
    assert [(m["method"], [c["status"] for c in m["cases"]]) for m in report["methods"]] == [
        ("Size", ["verified"]), ("Count", ["verified"])], report["methods"]
