"""Determinacy on every input with the real verifier: proofs over every input, witnesses read from the
counterexample and confirmed by the concrete acceptance programs, and unknown whenever that chain breaks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import bot.symbolic.everywhere_run as everywhere_run
from bot.cli import main
from bot.dafny.values import ArrayV, IntV
from bot.symbolic.everywhere import Witness
from support.paths import DATA, ROOT

pytestmark = pytest.mark.dafny
EVERY = DATA / "everywhere" / "every.dfy"


def score(tmp_path: Path, path: Path, *args: str) -> dict[str, dict[str, Any]]:
    out = tmp_path / "report.json"
    argv = ["score", str(path), "--format", "json", "--output", str(out), "--no-suggest", "--report-only",
            "--cache-dir", str(tmp_path / "cache"), *args]
    assert main(argv) == 0
    return {m["method"]: m for m in json.loads(out.read_text(encoding="utf-8"))["methods"]}


def test_a_spec_silent_on_negative_inputs_is_not_determined_with_a_proved_witness(dafny_command: str,
                                                                                  tmp_path: Path) -> None:
    methods = score(tmp_path, EVERY)
    # the tests use positive inputs only: they pin every case of both specs
    assert methods["Abs"]["pinned"] == 2 and methods["AbsFull"]["pinned"] == 1
    weak = methods["Abs"]["everywhere"]
    assert weak["status"] == "not-determined", weak
    found = re.fullmatch(r"x = (-?\d+)", weak["inputs"])
    assert found is not None and int(found.group(1)) < 0  # where the spec says nothing
    first, second = (int(v) for v in weak["outputs"])
    assert first != second
    assert methods["AbsFull"]["everywhere"] == {"status": "determined", "inputs": "", "outputs": [], "reason": ""}
    # determined under its `requires` only: r + r == x has no integer solution for odd x
    assert methods["Half"]["everywhere"]["status"] == "determined"


def test_a_witness_that_needs_an_array_input_or_strings_is_read_from_a_short_question(dafny_command: str,
                                                                                        tmp_path: Path) -> None:
    """Dafny 2.3's model of the first question gives an array's length but not its elements, and strings whose
    characters its tables leave arbitrary: asked again with them short and spelled out (bot/symbolic/bounded.py),
    the witness is read and confirmed."""
    methods = score(tmp_path, EVERY)
    pick = methods["PickA"]["everywhere"]
    assert pick["status"] == "not-determined", pick
    elems = [int(v) for v in pick["inputs"].removeprefix("a = [").removesuffix("]").split(", ")]
    first, second = (int(v) for v in pick["outputs"])
    assert 2 <= len(elems) <= 5 and first != second and {first, second} <= set(elems)
    strings = methods["PickS"]["everywhere"]
    assert strings["status"] == "not-determined", strings
    assert strings["inputs"].startswith("s = [") and strings["outputs"][0] != strings["outputs"][1]


def test_sequence_outputs_determined_up_to_order_or_as_a_set(dafny_command: str, tmp_path: Path) -> None:
    methods = score(tmp_path, EVERY)
    # a sorted permutation is unique, but the solver proves it only up to order: that, and no more, is said
    assert methods["Sorted"]["everywhere"]["status"] in ("determined", "determined-up-to-order")
    assert methods["Dedup"]["everywhere"]["status"] in ("determined-as-set", "not-determined")
    assert methods["Dedup"]["everywhere"]["status"] != "determined"


def test_the_tests_witness_when_the_solvers_cannot_be_read(dafny_command: str, tmp_path: Path) -> None:
    """Array inputs: the solver's model is no model of a quantified spec, so the witness comes from a test case
    whose expected output and another output were both proved accepted."""
    m = score(tmp_path, ROOT / "examples" / "shared_elements.dfy")["SharedElements"]["everywhere"]
    assert m["status"] == "not-determined", m
    assert m["inputs"].startswith("a = [") and m["outputs"][0] != m["outputs"][1]
    assert "shown on test case SharedElementsTest#" in m["reason"]


def test_no_determinacy_on_a_background_with_trusted_axioms(dafny_command: str, tmp_path: Path) -> None:
    m = score(tmp_path, DATA / "everywhere" / "axiom.dfy")["Double"]["everywhere"]
    assert m == {"status": "unknown", "inputs": "", "outputs": [],
                 "reason": "the background rests on trusted axioms"}


def test_an_unconfirmed_witness_is_unknown_never_not_determined(dafny_command: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A decoding error planted: the counterexample is read as x = 3 with outputs 3 and 4. The spec rejects 4
    on 3, so the concrete acceptance program fails, and nothing is claimed."""
    planted = Witness((IntV(3),), (IntV(3),), (IntV(4),))
    monkeypatch.setattr(everywhere_run, "witness", lambda method, result, small=False: planted)
    m = score(tmp_path, EVERY, "--method", "Abs")["Abs"]["everywhere"]
    assert m["status"] == "unknown", m
    assert m["reason"] == "the counterexample's outputs were not both proved accepted"


def test_an_unconfirmed_witness_of_the_short_question_is_unknown(dafny_command: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A decoding error planted in the short question's reading: a = [1, 2] with outputs 1 and 3. The spec rejects
    3 there (no element is 3), so its acceptance program fails, and nothing is claimed."""
    def planted(method: object, result: object, small: bool = False) -> Witness | str:
        return Witness((ArrayV((IntV(1), IntV(2))),), (IntV(1),), (IntV(3),)) if small else "not read"

    monkeypatch.setattr(everywhere_run, "witness", planted)
    m = score(tmp_path, EVERY, "--method", "PickA")["PickA"]["everywhere"]
    assert m == {"status": "unknown", "inputs": "", "outputs": [], "reason": everywhere_run.UNCONFIRMED}, m


def test_text_report_says_it_in_words(dafny_command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EVERY), "--method", "AbsFull", "--no-suggest", "--report-only",
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    assert "  determined on every input\n" in capsys.readouterr().out
