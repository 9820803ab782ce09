"""Scoring with the real verifier: the paper's running example, every type, every status."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from support.paths import DATA, ROOT

pytestmark = pytest.mark.dafny
SCORE = DATA / "score"
EXAMPLE = ROOT / "examples" / "shared_elements.dfy"


def score(tmp_path: Path, *args: str, cache: Path | None = None) -> dict[str, Any]:
    out = tmp_path / "report.json"
    argv = ["score", *args, "--format", "json", "--output", str(out), "--cache-dir", str(cache or tmp_path / "cache")]
    # verdicts, pins and mutants are asserted here; the suggestion search (tests/verifier/test_suggest_real.py) is not
    argv += [] if "--suggest" in args else ["--no-suggest"]
    assert main([*argv, "--report-only"]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def method(report: dict[str, Any], name: str) -> dict[str, Any]:
    found = [m for m in report["methods"] if m["method"] == name]
    assert len(found) == 1, [m["method"] for m in report["methods"]]
    return found[0]


def test_running_example_is_correct_but_weak(dafny_command: str, tmp_path: Path,
                                             warm_cache: Callable[[str], Path]) -> None:
    m = method(score(tmp_path, str(EXAMPLE), cache=warm_cache("shared-elements")), "SharedElements")
    assert m["correctness"] == 1.0
    assert m["completeness"] is not None and m["completeness"] < 1.0
    survivors = {(s["case"], s["value"]) for s in m["surviving_mutants"]}
    assert ("SharedElementsTest#1", "[4]") in survivors or ("SharedElementsTest#1", "[5]") in survivors
    assert all(c["status"] == "verified" for c in m["cases"])
    assert len(m["cases"]) == 3


def test_strengthened_spec_is_complete(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, str(SCORE / "shared_strong.dfy")), "SharedElements")
    assert m["correctness"] == 1.0
    assert m["completeness"] == 1.0
    assert m["surviving_mutants"] == []


def test_ensures_true_kills_nothing(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, str(SCORE / "shared_true.dfy")), "SharedElements")
    assert m["correctness"] == 1.0
    assert m["completeness"] == 0.0
    assert m["mutant_counts"]["survived"] == 15


def test_wrong_case_and_precondition_violation(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, str(SCORE / "cube_wrong_case.dfy")), "CubeVolume")
    statuses = [c["status"] for c in m["cases"]]
    assert statuses == ["verified", "verified", "refuted", "precondition-violated"]
    assert m["correctness"] == pytest.approx(2 / 3)
    assert m["completeness"] is None
    refuted = m["cases"][2]
    assert refuted["expected"] == "volume = 25" and "ensures volume == size * size * size" in refuted["message"]


def test_every_supported_type(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, str(SCORE / "types.dfy"))
    names = {m["method"] for m in report["methods"]}
    assert names == {"Succ", "Flip", "Next", "Twice", "Half", "Xor", "Firsts", "Lens", "Sizes", "Lasts",
                     "Pair", "Sums", "DivMod", "ToArray", "Inc"}
    for m in report["methods"]:
        assert m["correctness"] == 1.0, (m["method"], m["cases"])
        counts = m["mutant_counts"]
        assert counts["killed"] + counts["survived"] >= 1, m["method"]
        assert counts["unknown"] == 0, (m["method"], m["cases"])
    # precise specs kill every mutant
    for name in ("Succ", "Flip", "Twice", "Xor", "Pair", "DivMod", "Inc", "Firsts", "Sums"):
        assert method(report, name)["completeness"] == 1.0, name
    inc = method(report, "Inc")
    assert inc["cases"][0]["expected"] == "a = [2, 6, -1]"
    divmod_ = method(report, "DivMod")
    assert divmod_["cases"][0]["expected"] == "q = 3, r = 1"


def test_reals_tolerance_unsupported_and_vacuous(dafny_command: str, tmp_path: Path) -> None:
    exact = score(tmp_path, str(SCORE / "misc.dfy"))
    assert method(exact, "Area")["cases"][0]["status"] == "refuted"
    assert method(exact, "CountSet")["cases"][0]["status"] == "unsupported"
    assert "iset<int>" in method(exact, "CountSet")["cases"][0]["message"]
    assert method(exact, "Vacuous")["cases"][0]["status"] == "vacuous"
    assert method(exact, "Vacuous")["correctness"] is None
    tolerant = score(tmp_path, str(SCORE / "misc.dfy"), "--tolerance", "0.001", "--method", "Area")
    area = method(tolerant, "Area")
    assert area["cases"][0]["status"] == "verified"
    assert area["completeness"] == 1.0  # every mutant lies outside the tolerance


def test_timeout_is_unknown(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, str(SCORE / "hard.dfy"), "--time-limit", "2", "--mutants", "1"), "NoSmallFactors")
    assert (m["cases"][0]["status"], m["cases"][0]["reason"]) == ("unknown", "timeout")
    assert m["correctness"] is None and m["completeness"] is None


def test_reports_are_deterministic_across_cache_and_jobs(dafny_command: str, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # with the suggestion search: its clauses and what was proved of them are part of the report
    first = score(a, str(EXAMPLE), str(SCORE / "cube_wrong_case.dfy"), "--jobs", "1", "--seed", "7", "--suggest")
    cached = score(a, str(EXAMPLE), str(SCORE / "cube_wrong_case.dfy"), "--jobs", "2", "--seed", "7", "--suggest")
    fresh = score(b, str(EXAMPLE), str(SCORE / "cube_wrong_case.dfy"), "--jobs", "2", "--seed", "7", "--suggest")
    assert json.dumps(first) == json.dumps(cached) == json.dumps(fresh)
    assert method(first, "SharedElements")["suggestions"]
    other_seed = score(b, str(EXAMPLE), "--seed", "8")
    assert method(other_seed, "SharedElements")["cases"] != method(first, "SharedElements")["cases"]


def test_every_dafny_and_toml_test_form(dafny_command: str, tmp_path: Path) -> None:
    forms = DATA / "tests_io" / "forms.dfy"
    # forms.tests.toml beside it is discovered; one mutant per case tells complete from incomplete here
    report = score(tmp_path, str(forms), "--mutants", "1", "--no-pin")
    counts = {m["method"]: len(m["cases"]) for m in report["methods"]}
    assert counts == {"Cube": 6, "Shared": 4, "Split": 4, "Lasts": 3, "ToChars": 2, "Volume": 3, "Rotate": 2,
                      "AddPair": 2, "IsEven": 3}
    # `expect res4 == a4[..][..1] || true; assert res4 == [9];`: a disjunction the reader cannot carry whole next to
    # the equality makes that case unreadable, with the reason (every check of an output is read, or none)
    (problem,) = method(report, "Shared")["problems"]
    assert "forms.dfy:78:" in problem and "every check of an output is read, or none" in problem
    for m in report["methods"]:
        assert m["correctness"] == 1.0, (m["method"], m["cases"])
        assert all(c["status"] == "verified" for c in m["cases"]), m["method"]
    assert method(report, "Cube")["completeness"] == 1.0  # `ensures r == n * n * n` kills every mutant
    assert method(report, "Shared")["completeness"] == 0.0  # no ensures at all


def test_mbpp_json_cases_map_by_position(dafny_command: str, tmp_path: Path) -> None:
    spec = SCORE / "json" / "task_id_2.dfy"
    m = method(score(tmp_path, str(spec), "--tests", str(SCORE / "json" / "tests.json")), "SharedElements")
    assert [c["name"] for c in m["cases"]] == ["test_1", "test_2"]
    assert m["correctness"] == 1.0 and m["completeness"] is not None and m["completeness"] < 1.0
    assert len(m["problems"]) == 1 and "test_3" in m["problems"][0] and "tests.json" in m["problems"][0]


def _suite(root: Path, tests_folder: str) -> None:
    """Two specs with their tests in a folder of their own, one `Main` of blocks of `expect` each."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "double.dfy").write_text("method Double(x: int) returns (r: int)\n  ensures r == 2 * x\n{ r := 2 * x; }\n")
    (root / "inc.dfy").write_text("method Inc(x: int) returns (r: int)\n  ensures r > x\n{ r := x + 1; }\n")
    folder = root / tests_folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "double.dfy").write_text(
        'include "../double.dfy"\nmethod Main() {\n  { var v := Double(2); expect v == 4, "test 1"; }\n'
        '  { var v := Double(-3); expect v == -6, "test 2"; }\n}\n')
    (folder / "inc.dfy").write_text(
        'include "../inc.dfy"\nmethod Main() {\n  { var v := Inc(1); expect v == 2, "test 1"; }\n}\n')


def test_a_suite_with_a_tests_folder_is_scored_in_one_run(dafny_command: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _suite(tmp_path / "suite", "tests")
    monkeypatch.chdir(tmp_path / "suite")
    report = score(tmp_path, "double.dfy", "inc.dfy")
    double, inc = method(report, "Double"), method(report, "Inc")
    assert [c["status"] for c in double["cases"]] == ["verified", "verified"]
    assert {c["source"] for c in double["cases"]} == {"tests/double.dfy"}, double["cases"]
    assert [c["source"] for c in inc["cases"]] == ["tests/inc.dfy"] and inc["completeness"] is not None


def test_tests_glob_finds_each_specs_tests(dafny_command: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _suite(tmp_path / "suite", "checks")  # not a folder discovery knows: the glob names it
    monkeypatch.chdir(tmp_path / "suite")
    report = score(tmp_path, "double.dfy", "inc.dfy", "--tests", "checks/*.dfy")
    assert [c["source"] for c in method(report, "Double")["cases"]] == ["checks/double.dfy"] * 2
    assert [c["source"] for c in method(report, "Inc")["cases"]] == ["checks/inc.dfy"]
    assert main(["score", "double.dfy", "--tests", "nowhere/*.dfy"]) == 2


def test_dafny4_match_on_literals_and_seq_constructors_are_scored(dafny_command: str, tmp_path: Path) -> None:
    """Rewritten for Dafny 2.3 in the helpers and in the clauses copied into harnesses; tests in `tests/`."""
    report = score(tmp_path, str(SCORE / "dafny4_forms.dfy"))
    for name, count in (("Describe", 2), ("Doubles", 1), ("Squares", 1)):
        m = method(report, name)
        assert [c["status"] for c in m["cases"]] == ["verified"] * count, m["cases"]
        assert m["completeness"] == 1.0 and m["pinned"] == count, m


def test_the_tests_own_tolerance_and_outputs_in_one_collection(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, str(SCORE / "tolerance.dfy"), "--tolerance", "0")
    ratio = method(report, "Ratio")["cases"]
    assert [c["status"] for c in ratio] == ["verified", "verified", "refuted"], ratio
    assert "the test's own tolerance 1e-05" in ratio[0]["note"] and "0.001" in ratio[1]["note"]
    divmod_ = method(report, "DivMod")["cases"]
    assert [(c["expected"], c["status"]) for c in divmod_] == [("q = 3, r = 1", "verified"),
                                                              ("q = 3, r = 2", "refuted")], divmod_


def test_tests_that_call_spec_functions_check_the_functions(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, str(SCORE / "functions.dfy"))
    fib = method(report, "Fib")
    assert [(c["expected"], c["status"]) for c in fib["cases"]] == [("result = 55", "verified"),
                                                                    ("result = 9", "refuted")], fib["cases"]
    assert fib["cases"][0]["determinacy"] == "pinned" and "its body is the specification" in fib["cases"][0]["note"]
    assert fib["problems"] == []  # `var e := Fib(3) + 1;` and an unchecked `Fib(4)` are no cases, nor unreadable
    even = method(report, "IsEven")
    assert [c["status"] for c in even["cases"]] == ["verified"] and even["completeness"] == 1.0
    half = method(report, "Half")["cases"]
    assert [(c["status"], c["clause"]) for c in half] == [("precondition-violated", "requires n % 2 == 0")]


def test_a_set_fold_with_let_such_that_is_decided(dafny_command: str, tmp_path: Path) -> None:
    cases = method(score(tmp_path, str(SCORE / "set_fold.dfy")), "UniqueProduct")["cases"]
    assert [c["status"] for c in cases] == ["verified", "verified", "refuted"], cases
    assert all("`var x :| ...` choice" in c["note"] for c in cases)


def test_a_property_that_calls_a_helper_of_the_test_file_is_read_with_its_body(dafny_command: str, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "sq.dfy").write_text("method Sq(x: int) returns (y: int)\n  ensures y == x * x\n{ y := x * x; }\n")
    (tmp_path / "tests" / "sq.dfy").write_text(
        'include "../sq.dfy"\nfunction Pos(n: int): bool { n > 0 }\nmethod Main() {\n'
        '  { var y := Sq(3); expect Pos(y); }\n  { var y := Sq(3); expect y > 0; }\n}\n')
    monkeypatch.chdir(tmp_path)
    sq = method(score(tmp_path, "sq.dfy"), "Sq")
    assert [c["status"] for c in sq["cases"]] == ["verified", "verified"], sq["cases"]
    # the test's own `Pos`, read in place as its body says (bot/testcases/inline.py), and nothing left unread
    assert sq["cases"][0]["expected"] == "(var n: int := y; n > 0)"
    assert "the test file's `Pos` read in place, as its definition says" in sq["cases"][0]["note"]
    assert sq["problems"] == []
