"""mutation-report.json: valid against the published mutation-testing report schema (version 2), with
every status mapped, unique ids, locations inside the sources, and the same bytes for the same inputs."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from bot import __version__
from bot.audit import request
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.mutation_report import mutation_report, mutator_name, render_mutation_report, status_of
from bot.cli import main
from bot.symbolic.results import CaseResult, CaseStatus, KillProof, MutantResult, MutantStatus, Undecided, method_score
from support.paths import DATA

SCHEMA_DIR = DATA / "mutation-testing-report-schema"
SETTINGS: dict[str, object] = {"mutants": 5, "pin": True, "seed": 0, "tests": "both", "time_limit": 20,
                               "tolerance": 0.001, "verifier": "2.3.0.10506", "weak_below": 0.8}

SPEC = """// a spec
method SharedElements(a: array<int>, b: array<int>) returns (result: seq<int>)
  requires a.Length > 0
  ensures forall x :: x in result ==> x in a[..] && x in b[..]
  ensures forall i, j :: 0 <= i < j < |result|
            ==> result[i] != result[j];
{
  result := [];
}
"""
CUBE = "method CubeVolume(l: int) returns (volume: int)\n  ensures volume == l * l * l\n{\n  volume := l * l * l;\n}\n"


def schema() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SCHEMA_DIR / "mutation-testing-report-schema.json").read_text(encoding="utf-8"))
    Draft7Validator.check_schema(doc)
    return doc


def assert_valid(report: dict[str, Any]) -> None:
    errors = sorted(Draft7Validator(schema()).iter_errors(report), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def m(value: str, description: str, status: MutantStatus, reason: Undecided | None = None, message: str = "",
      killed_by: KillProof | None = None) -> MutantResult:
    return MutantResult(value, description, status, message, reason, killed_by)


def case(name: str, line: int, source: str, *mutants: MutantResult,
         status: CaseStatus = CaseStatus.VERIFIED) -> CaseResult:
    return CaseResult(name, line, "a = [3, 4], b = [4, 3]", "result = [3, 4]", "", source, status, "", mutants)


def task(task_id: str, file: str, method: str, *cases: CaseResult) -> TaskResult:
    score = method_score(file, method, 2, cases) if cases else None
    verdict = Verdict.WEAK if cases else Verdict.INCONCLUSIVE
    return TaskResult(task_id, file, method, Label.UNLABELED, (), verdict, "" if cases else "no case", score, 0.0,
                      False)


TEST_2 = "method SharedElementsTest() {\n  var r := SharedElements([3, 4], [4, 3]);\n  expect r == [3, 4];\n}\n"


def synthetic() -> tuple[list[TaskResult], dict[str, str]]:
    every_status = case(
        "SharedElementsTest#1", 4, "test/task_id_2.dfy",
        m("[4]", "result[0]: 3 -> 4", MutantStatus.KILLED, killed_by=KillProof.REJECTION),
        m("[3]", "result: dropped element 1", MutantStatus.SURVIVED),
        m("[4, 3]", "result: swapped elements 0 and 1", MutantStatus.KILLED, killed_by=KillProof.PIN),
        m("[3, 4, 5]", "result: inserted 5 at 2", MutantStatus.UNKNOWN, Undecided.TIMEOUT, "timed out after 20 s"),
        m("[3, 5]", "result[1]: 4 -> 5", MutantStatus.UNKNOWN, Undecided.STUCK, "stuck on ensures forall x"),
        m("[3, 6]", "result[1]: 4 -> 6", MutantStatus.UNKNOWN, Undecided.PRECONDITION),
        m("[3, 7]", "result[1]: 4 -> 7", MutantStatus.UNKNOWN, Undecided.HINT_FAULT, "a hint failed"),
        m("[3, 8]", "result[1]: 4 -> 8", MutantStatus.UNKNOWN, Undecided.VERIFIER, "dafny crashed"),
        m("[3, 9]", "result[1]: 4 -> 9", MutantStatus.UNKNOWN),
    )
    json_tests = "DS/tests.json"  # one test file shared by two tasks, with the same case names in both
    results = [
        task("234", "src/task_id_234.dfy", "CubeVolume",
             case("test_1", 30, json_tests, m("28", "volume: 27 -> 28", MutantStatus.KILLED)),
             case("test_2", 31, json_tests, status=CaseStatus.REFUTED)),
        task("2", "src/task_id_2.dfy", "SharedElements", every_status,
             case("test_1", 10, json_tests, m("[3]", "result: dropped element 1", MutantStatus.SURVIVED))),
        task("7", "src/task_id_7.dfy", ""),  # not scored: listed without mutants
        task("8", "src/task_id_8.dfy", "Gone", case("T#1", 1, "test/task_id_8.dfy",
                                                      m("1", "r: 0 -> 1", MutantStatus.KILLED))),  # unreadable
        task("9", "src/task_id_9.dfy", "Broken", case("T#1", 1, "test/task_id_9.dfy",
                                                        m("1", "r: 0 -> 1", MutantStatus.KILLED))),  # no parse
    ]
    sources = {"src/task_id_2.dfy": SPEC, "src/task_id_234.dfy": CUBE, "src/task_id_7.dfy": "// nothing\n",
               "src/task_id_9.dfy": "method Broken(\n  ensures (\n", "test/task_id_2.dfy": TEST_2}
    return results, sources


def test_synthetic_report_is_valid_and_maps_every_status() -> None:
    results, sources = synthetic()
    report = mutation_report(results, sources, SETTINGS)
    assert_valid(report)
    assert report["schemaVersion"] == "2" and report["thresholds"] == {"high": 80, "low": 60}
    assert report["framework"] == {"name": "dafny-spec-score", "version": __version__,
                                   "dependencies": {"dafny": "2.3.0.10506"}}
    assert report["config"] == SETTINGS
    assert set(report["files"]) == {"src/task_id_2.dfy", "src/task_id_234.dfy", "src/task_id_7.dfy",
                                    "src/task_id_8.dfy", "src/task_id_9.dfy"}
    assert report["files"]["src/task_id_7.dfy"]["mutants"] == []
    assert report["files"]["src/task_id_8.dfy"]["source"] == ""  # unread: still in the report
    spec = report["files"]["src/task_id_2.dfy"]
    assert spec["language"] == "dafny" and spec["source"] == SPEC
    got = [(x["status"], x["statusReason"].split(":")[0], x["mutatorName"]) for x in spec["mutants"]]
    assert got == [
        ("Killed", "rejection proved", "replaced value"),
        ("Survived", "acceptance proved", "dropped element"),
        ("Killed", "rejection follows from the case's pin check", "swapped elements"),
        ("Ignored", "undecided (timeout)", "inserted element"),
        ("Ignored", "undecided (stuck)", "replaced value"),
        ("Ignored", "undecided (precondition-undecided)", "replaced value"),
        ("RuntimeError", "undecided (hint-fault)", "replaced value"),
        ("RuntimeError", "undecided (verifier-error)", "replaced value"),
        ("Ignored", "undecided (unknown)", "replaced value"),
        ("Survived", "acceptance proved", "dropped element"),
    ]
    first = spec["mutants"][0]
    # a wrong output, not an edit of the spec: no replacement, and the description says what was tried and proved
    assert first["id"] == "2:SharedElementsTest#1:1" and "replacement" not in first
    assert first["description"] == ("wrong output [4] for a = [3, 4], b = [4, 3] (the test expects result = [3, 4]; "
                                    "result[0]: 3 -> 4): the spec rejects it")
    assert spec["mutants"][1]["description"].endswith("): the spec accepts it")
    assert spec["mutants"][3]["description"].endswith("): nothing was proved")
    # each test file's source, when it could be read
    assert report["testFiles"]["test/task_id_2.dfy"]["source"] == TEST_2
    assert "source" not in report["testFiles"]["DS/tests.json"]
    assert first["killedBy"] == first["coveredBy"] == ["2:SharedElementsTest#1"]
    assert "killedBy" not in spec["mutants"][1] and spec["mutants"][1]["coveredBy"] == ["2:SharedElementsTest#1"]
    assert spec["mutants"][3]["statusReason"] == "undecided (timeout): timed out after 20 s"


def viewer_score(mutants: list[dict[str, Any]]) -> float | None:
    """The viewers' mutation score of a file: detected / (detected + undetected), None (N/A) without either."""
    detected = sum(x["status"] in ("Killed", "Timeout") for x in mutants)
    undetected = sum(x["status"] in ("Survived", "NoCoverage") for x in mutants)
    return detected / (detected + undetected) if detected + undetected else None


def test_a_wrong_case_counts_against_the_score_and_never_reads_as_na() -> None:
    results, sources = synthetic()
    wrong_only = task("5", "src/task_id_5.dfy", "CubeVolume", case("T#1", 2, "test/t5.dfy", status=CaseStatus.REFUTED),
                      case("T#2", 3, "test/t5.dfy", status=CaseStatus.PRECONDITION_VIOLATED))
    report = mutation_report([*results, wrong_only], {**sources, "src/task_id_5.dfy": CUBE}, SETTINGS)
    assert_valid(report)
    assert viewer_score(report["files"]["src/task_id_5.dfy"]["mutants"]) == 0.0  # the audit says wrong: 0%, not N/A
    cube = report["files"]["src/task_id_234.dfy"]["mutants"]
    assert viewer_score(cube) == 0.5  # one killed mutant, one refuted case
    (refuted,) = [x for x in cube if x["mutatorName"] == "expected output rejected"]
    assert refuted["id"] == "234:test_2:wrong" and refuted["status"] == "Survived"
    assert refuted["description"].endswith("the spec is wrong here") and "killedBy" not in refuted
    names = {x["mutatorName"] for x in report["files"]["src/task_id_5.dfy"]["mutants"]}
    assert names == {"expected output rejected", "test inputs rejected"}


def test_ids_are_unique_and_tests_are_related() -> None:
    results, sources = synthetic()
    report = mutation_report(results, sources, SETTINGS)
    mutants = [x for f in report["files"].values() for x in f["mutants"]]
    ids = [x["id"] for x in mutants]
    assert len(ids) == len(set(ids)) == 14  # 13 mutants and task 234's refuted case
    tests = [t for f in report["testFiles"].values() for t in f["tests"]]
    test_ids = [t["id"] for t in tests]
    assert len(test_ids) == len(set(test_ids)) == 6
    for x in mutants:
        assert set(x["coveredBy"]) <= set(test_ids) and set(x.get("killedBy", [])) <= set(test_ids)
    shared = report["testFiles"]["DS/tests.json"]["tests"]
    assert [(t["id"], t["name"]) for t in shared] == [
        ("2:test_1", "test_1 (task 2)"), ("234:test_1", "test_1 (task 234)"), ("234:test_2", "test_2 (task 234)")]
    assert [t["name"] for t in report["testFiles"]["test/task_id_2.dfy"]["tests"]] == ["SharedElementsTest#1"]
    assert shared[0]["location"] == {"start": {"line": 10, "column": 1}}
    # two cases of one task with the same name still get distinct ids, the same ones every time
    twice = case("T#1", 1, "t.dfy", m("1", "r: 0 -> 1", MutantStatus.KILLED))
    again = mutation_report([task("5", "f.dfy", "M", twice, twice)], {}, SETTINGS)
    assert [x["id"] for x in again["files"]["f.dfy"]["mutants"]] == ["5:T#1:1", "5:T#1:1~2"]
    assert [x["killedBy"] for x in again["files"]["f.dfy"]["mutants"]] == [["5:T#1"], ["5:T#1~2"]]


def located(source: str, location: dict[str, dict[str, int]]) -> str:
    """The text a location covers (1-based, end exclusive), checking that it lies inside the source."""
    lines = source.split("\n")
    start, end = location["start"], location["end"]
    assert 1 <= start["line"] <= end["line"] <= len(lines)
    assert 1 <= start["column"] <= len(lines[start["line"] - 1]) + 1
    assert 1 <= end["column"] <= len(lines[end["line"] - 1]) + 1
    assert (start["line"], start["column"]) <= (end["line"], end["column"])

    def offset(p: dict[str, int]) -> int:
        return sum(len(x) + 1 for x in lines[: p["line"] - 1]) + p["column"] - 1

    return source[offset(start) : offset(end)]


def test_locations_point_at_one_clause_about_the_output() -> None:
    results, sources = synthetic()
    report = mutation_report(results, sources, SETTINGS)
    spec = report["files"]["src/task_id_2.dfy"]
    first = located(SPEC, spec["mutants"][0]["location"])
    assert first == "ensures forall x :: x in result ==> x in a[..] && x in b[..]"
    assert spec["mutants"][0]["location"]["start"] == {"line": 4, "column": 3}
    # a clause about the inputs only is passed over for the first that names an output
    src = "method Abs(n: int) returns (r: int)\n  ensures n == n\n  ensures r >= 0\n  ensures r == n || r == -n\n"
    only = mutation_report([task("3", "a.dfy", "Abs", case("T#1", 1, "t.dfy", m("1", "r: 0 -> 1",
                                                                                 MutantStatus.SURVIVED)))],
                           {"a.dfy": src}, SETTINGS)
    assert located(src, only["files"]["a.dfy"]["mutants"][0]["location"]) == "ensures r >= 0"
    assert located(CUBE, report["files"]["src/task_id_234.dfy"]["mutants"][0]["location"]) == (
        "ensures volume == l * l * l")
    # a source that does not parse: the method's line, whole; an unread one: line 1, column 1
    broken = report["files"]["src/task_id_9.dfy"]
    assert located(broken["source"], broken["mutants"][0]["location"]) == "  ensures ("
    assert report["files"]["src/task_id_8.dfy"]["mutants"][0]["location"] == {
        "start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 1}}


def test_same_inputs_same_bytes() -> None:
    results, sources = synthetic()
    text = render_mutation_report(results, sources, SETTINGS)
    assert text == render_mutation_report(results, sources, SETTINGS) and text.endswith("}\n")
    shuffled = list(results)
    random.Random(1).shuffle(shuffled)
    assert render_mutation_report(shuffled, sources, dict(reversed(list(SETTINGS.items())))) == text
    assert json.loads(text) == mutation_report(results, sources, SETTINGS)


def test_thresholds_names_and_statuses() -> None:
    results, sources = synthetic()
    assert mutation_report(results, sources, {"weak_below": 0.5})["thresholds"] == {"high": 50, "low": 30}
    assert mutation_report(results, sources, {"weak_below": 0.1})["thresholds"] == {"high": 10, "low": 0}
    assert mutation_report(results, sources, {"weak_below": 2})["thresholds"] == {"high": 100, "low": 80}
    assert mutation_report(results, sources, {})["thresholds"] == {"high": 80, "low": 60}
    assert mutator_name("result: appended 'x'") == "appended character"
    assert mutator_name("count: 7 -> 8") == "replaced value"
    assert mutator_name("moved 3 things") == "moved things"  # unknown forms: the words without numbers
    assert status_of(MutantResult("1", "d", MutantStatus.KILLED)) == ("Killed", "rejection proved: the spec rejects "
                                                                                "this output")


def test_write_reports_writes_it_even_when_a_source_is_unreadable(tmp_path: Path) -> None:
    results, sources = synthetic()
    root = tmp_path / "dataset"
    for name, text in sources.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "src/task_id_7.dfy").write_bytes(b"\xff\xfe not utf-8")
    request.write_reports(tmp_path / "out", results, SETTINGS, root=root)
    written = json.loads((tmp_path / "out" / "mutation-report.json").read_text(encoding="utf-8"))
    assert_valid(written)
    assert written["files"]["src/task_id_2.dfy"]["source"] == SPEC
    assert written["files"]["src/task_id_7.dfy"]["source"] == ""  # undecodable
    assert written["files"]["src/task_id_8.dfy"]["source"] == ""  # missing


@pytest.mark.dafny
@pytest.mark.dataset
def test_mutation_report_on_the_development_dataset(dafny_command: str, dataset_root: Path, tmp_path: Path,
                                                    warm_cache: Callable[[str], Path]) -> None:
    root = dataset_root / "a57ce24"
    # four quick tasks (strong, wrong, strong, weak), two mutants per case, no pin check: well under a minute
    argv = ["audit", str(root), "--only", "69,234,399,576", "--mutants", "2", "--no-pin",
            "--cache-dir", str(warm_cache("development-dataset")), "--out"]
    assert main([*argv, str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "mutation-report.json").read_text(encoding="utf-8")
    report = json.loads(text)
    assert_valid(report)
    assert len(report["files"]) == 4
    statuses = set()
    for path, f in report["files"].items():
        assert f["source"] == (root / path).read_text(encoding="utf-8")
        for x in f["mutants"]:
            assert located(f["source"], x["location"]).startswith("ensures")
            statuses.add(x["status"])
    assert {"Killed", "Survived"} <= statuses  # task 576 is weak: its spec accepts wrong outputs
    # the wrong task's refuted cases count against its file's score: it never reads better than the audit
    wrong = [f["mutants"] for f in report["files"].values()
             if any(x["mutatorName"] == "expected output rejected" for x in f["mutants"])]
    assert wrong and all(viewer_score(x) is not None and viewer_score(x) < 1.0 for x in wrong)
    ids = [x["id"] for f in report["files"].values() for x in f["mutants"]]
    assert len(ids) == len(set(ids))
    # the same run again (from the cache): the same bytes
    assert main([*argv, str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "mutation-report.json").read_text(encoding="utf-8") == text
