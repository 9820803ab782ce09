"""The audit's output files: markdown report against a golden file, CSV and JSON read back, determinism."""

from __future__ import annotations

import csv
import dataclasses
import difflib
import io
import json
import os
import random
import re
from dataclasses import replace

import pytest

from bot.audit.html_report import report_html
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.report import (
    CSV_HEADER,
    MAX_WEAK_SURVIVORS,
    NO_TOLERANCE,
    NOT_EXPOSED,
    SHOWN_ABOVE,
    SPEC_OR_TEST_HINT,
    everywhere_counts,
    report_md,
    results_csv,
    results_json,
)
from bot.audit.verdicts import verdict
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Determinacy,
    Everywhere,
    EverywhereStatus,
    MutantResult,
    MutantStatus,
    Undecided,
    method_score,
)
from support.paths import GOLDEN

SETTINGS: dict[str, object] = {"seed": 0, "mutants": 5, "time_limit": 20, "weak_below": 0.8, "tolerance": 1e-6}
WEAK_BELOW = 0.8

K, S, INC = MutantStatus.KILLED, MutantStatus.SURVIVED, MutantStatus.UNKNOWN


def mutant(value: str, status: MutantStatus, message: str = "") -> MutantResult:
    reason = Undecided.TIMEOUT if status is MutantStatus.UNKNOWN else None
    return MutantResult(value, f"replaced by {value}", status, message, reason)


def case(
    name: str,
    status: CaseStatus,
    inputs: str,
    expected: str,
    mutants: tuple[MutantResult, ...] = (),
    text: str = "",
    message: str = "",
    line: int = 10,
) -> CaseResult:
    text = text or f"// {name}\nexpect M(...) == {expected.removeprefix('result = ')};"
    return CaseResult(name, line, inputs, expected, text, "test/task.dfy", status, message, mutants)


def task(
    task_id: str,
    method: str,
    label: Label,
    cases: tuple[CaseResult, ...],
    tags: tuple[str, ...] = (),
    problems: tuple[str, ...] = (),
    tolerance: float = 0.0,
    real: bool = False,
) -> TaskResult:
    score = method_score(f"src/task_id_{task_id}.dfy", method, 3, cases, problems)
    v, cause = verdict(score, WEAK_BELOW)
    return TaskResult(task_id, score.file, method, label, tags, v, cause, score, tolerance, real and tolerance > 0)


def unscored(task_id: str, label: Label, cause: str) -> TaskResult:
    return TaskResult(
        task_id, f"src/task_id_{task_id}.dfy", "", label, (), Verdict.INCONCLUSIVE, cause, None, 0.0, False
    )


def fixture() -> list[TaskResult]:
    verified = CaseStatus.VERIFIED
    # labelled strong, scored weak: 7 survivors (more than the weak section shows) and 2 kills
    weak_strong = task(
        "2", "SharedElements", Label.STRONG,
        (
            case("test_1", verified, "a = [1, 2], b = [2]", "result = [2]",
                 (mutant("[]", S), mutant("[2, 2]", S), mutant("[3]", K), mutant("[1]", S))),
            case("test_2", verified, "a = [5], b = [5]", "result = [5]",
                 (mutant("[]", S), mutant("[5, 5]", S), mutant("[6]", K), mutant("[0]", S), mutant("[-5]", S))),
        ),
        tags=("[STRONG-POST]",),
    )  # fmt: skip
    # labelled strong, one case refuted among verified ones: spec or test?
    cube = task(
        "10", "CubeVolume", Label.STRONG,
        (
            case("test_1", verified, "n = 3", "result = 27", (mutant("28", K),)),
            case("test_2", CaseStatus.REFUTED, "n = 5", "result = 25",
                 text="var r := CubeVolume(5);\nassert r == 25;",
                 message="test/task_id_10.dfy(14,11): Error: assertion might not hold"),
            case("test_3", verified, "n = 2", "result = 8", (mutant("9", K),)),
        ),
        tags=("[STRONG-POST]", "[CONFIRMED-WITH-TESTS]"),
    )  # fmt: skip
    # labelled wrong, scored strong: nothing exposed the misunderstanding
    wrong_strong = task(
        "3",
        "IsPrime",
        Label.WRONG,
        (case("test_1", verified, "n = 7", "result = true", (mutant("false", K),)),),
        tags=("[MISUNDERSTANDING]",),
    )
    # unlabeled and not evaluated: no readable case
    unreadable = task(
        "4", "Lost", Label.UNLABELED, (),
        problems=("test/task_id_4.dfy:5: bad", "test/task_id_4.dfy:6: bad", "test/task_id_4.dfy:7: bad"),
    )  # fmt: skip
    # labelled weak, scored wrong (two refuted cases, so not spec-or-test), hostile user text everywhere
    hostile = task(
        "7", "Pipe|`Tick`@user", Label.WEAK,
        (
            case("a|b", CaseStatus.REFUTED, "s = \"x|y\"", "result = \"<script>alert(1)</script>\"",
                 text="var r := M(\"x|y\");\n// ``` not a fence end\nassert r == \"@user `q`\";",
                 message="Error: @user <b>boom</b> | `tick`"),
            case("test_2", CaseStatus.REFUTED, "s = \"\"", "result = \"\"", message="Error: nope"),
        ),
        tags=("[WEAK-POST]", "[@user|<i>]"),
    )  # fmt: skip
    # labelled wrong, scored weak, with a real tolerance applied
    wrong_weak = task(
        "12", "Area", Label.WRONG,
        (
            case("test_1", verified, "r = 1.0", "result = 3.14159",
                 (mutant("4.0", S), mutant("0.0", K), mutant("3.0", INC, "timeout: 20 s"))),
        ),
        tags=("[WRONG]",), tolerance=1e-6, real=True,
    )  # fmt: skip
    # labelled weak, scored strong
    weak_strong_ = task(
        "15",
        "MaxOf",
        Label.WEAK,
        (case("test_1", verified, "a = [1, 9]", "result = 9", (mutant("8", K), mutant("10", K))),),
        tags=("[WEAK-POST]",),
    )
    # labelled strong, not evaluated; and a task id that is not a number
    parse_error = unscored("5", Label.STRONG, "spec does not parse: line 3: unexpected `}`")
    other = unscored("x1", Label.UNLABELED, "no method under test found in the test file")
    # unlabeled, one case refuted among verified ones: spec or test, listed after the strong-labelled ones
    unlabeled_refuted = task(
        "1", "Fib", Label.UNLABELED,
        (
            case("test_1", CaseStatus.REFUTED, "n = 4", "result = 5", message="Error: assertion might not hold"),
            case("test_2", verified, "n = 1", "result = 1"),
        ),
    )  # fmt: skip
    agree = task(
        "21",
        "Double",
        Label.STRONG,
        (case("test_1", verified, "n = 2", "result = 4", (mutant("5", K),)),),
        tags=("[STRONG-POST]",),
    )
    results = [
        weak_strong,
        cube,
        wrong_strong,
        unreadable,
        hostile,
        wrong_weak,
        weak_strong_,
        parse_error,
        other,
        unlabeled_refuted,
        agree,
    ]
    random.Random(7).shuffle(results)  # renderers must order by task id themselves
    return results


def _expect_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="")
        return
    expected = path.read_text(encoding="utf-8") if path.is_file() else ""
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), str(path), "actual"))
        pytest.fail(f"{name} differs from the golden file (UPDATE_GOLDEN=1 regenerates it):\n{diff}", pytrace=False)


def test_fixture_verdicts_are_what_the_report_expects() -> None:
    verdicts = {r.task_id: (r.verdict, r.cause) for r in fixture()}
    assert verdicts["2"] == (Verdict.WEAK, "")
    assert verdicts["10"] == (Verdict.WRONG, "")
    assert verdicts["3"] == (Verdict.STRONG, "")
    assert verdicts["4"] == (Verdict.INCONCLUSIVE, "no readable test case (3 unreadable)")
    assert verdicts["12"] == (Verdict.WEAK, "")


def test_report_md_matches_golden() -> None:
    _expect_golden("audit_report.md", report_md(fixture(), SETTINGS))


def test_results_json_and_csv_match_golden() -> None:
    _expect_golden("audit_results.json", results_json(fixture(), SETTINGS))
    _expect_golden("audit_results.csv", results_csv(fixture()))


def test_outputs_are_deterministic() -> None:
    results = fixture()
    shuffled = list(reversed(results))
    reordered = dict(reversed(list(SETTINGS.items())))
    assert report_md(results, SETTINGS) == report_md(results, SETTINGS) == report_md(shuffled, reordered)
    assert results_json(results, SETTINGS) == results_json(results, SETTINGS) == results_json(shuffled, reordered)
    assert results_csv(results) == results_csv(results) == results_csv(shuffled)


def test_json_is_valid_and_ordered_by_numeric_task_id() -> None:
    text = results_json(fixture(), SETTINGS)
    assert text.endswith("}\n")
    doc = json.loads(text)
    assert doc["schema"] == 2
    assert doc["settings"] == SETTINGS
    tasks = {t["task_id"]: t for t in doc["tasks"]}
    assert [t["task_id"] for t in doc["tasks"]] == ["1", "2", "3", "4", "5", "7", "10", "12", "15", "21", "x1"]
    cube = tasks["10"]
    assert (cube["verdict"], cube["label"], cube["evaluated"]) == ("wrong", "strong", True)
    assert cube["tags"] == ["[STRONG-POST]", "[CONFIRMED-WITH-TESTS]"]
    assert cube["failing_cases"] == [{
        "case": "test_2", "status": "refuted", "inputs": "n = 5", "expected": "result = 25",
        "text": "var r := CubeVolume(5);\nassert r == 25;", "clause": "",
        "message": "test/task_id_10.dfy(14,11): Error: assertion might not hold",
    }]  # fmt: skip
    assert [c["status"] for c in cube["cases"]] == ["verified", "refuted", "verified"]
    assert len(tasks["2"]["surviving_mutants"]) == 7
    assert tasks["2"]["surviving_mutants"][0] == {
        "case": "test_1", "inputs": "a = [1, 2], b = [2]", "expected": "result = [2]", "value": "[]",
        "description": "replaced by []",
    }  # fmt: skip
    assert tasks["12"]["unknown"] == {"mutant timeout": 1}
    assert (tasks["12"]["tolerance"], tasks["12"]["tolerance_applied"]) == (1e-6, True)
    assert tasks["4"]["problems"] == [
        "test/task_id_4.dfy:5: bad",
        "test/task_id_4.dfy:6: bad",
        "test/task_id_4.dfy:7: bad",
    ]
    assert (tasks["4"]["evaluated"], tasks["4"]["cause"]) == (False, "no readable test case (3 unreadable)")
    unscored = tasks["5"]
    assert (unscored["correctness"], unscored["cases"], unscored["failing_cases"]) == (None, [], [])


def test_csv_parses_back_to_the_rows() -> None:
    rows = list(csv.reader(io.StringIO(results_csv(fixture()))))
    assert tuple(rows[0]) == CSV_HEADER
    assert ",".join(CSV_HEADER) == (
        "task_id,file,method,label,verdict,correctness,completeness,cases,verified,refuted,unknown_cases,"
        "killed,survived,unknown_mutants,tolerance_applied,cause,everywhere"
    )
    by_id = {r[0]: dict(zip(CSV_HEADER, r, strict=True)) for r in rows[1:]}
    assert [r[0] for r in rows[1:]] == ["1", "2", "3", "4", "5", "7", "10", "12", "15", "21", "x1"]
    assert by_id["2"] == {
        "task_id": "2", "file": "src/task_id_2.dfy", "method": "SharedElements", "label": "strong",
        "verdict": "weak", "correctness": "1.0000", "completeness": "0.2222", "cases": "2", "verified": "2",
        "refuted": "0", "unknown_cases": "0", "killed": "2", "survived": "7", "unknown_mutants": "0",
        "tolerance_applied": "false", "cause": "", "everywhere": "",
    }  # fmt: skip
    assert (by_id["10"]["correctness"], by_id["10"]["completeness"]) == ("0.6667", "")
    assert by_id["7"]["method"] == "Pipe|`Tick`@user"  # the CSV keeps user text as it is
    assert (by_id["12"]["tolerance_applied"], by_id["12"]["unknown_mutants"]) == ("true", "1")
    assert by_id["5"]["cases"] == "" and by_id["5"]["cause"] == "spec does not parse: line 3: unexpected `}`"
    assert by_id["4"]["cases"] == "0" and by_id["4"]["cause"] == "no readable test case (3 unreadable)"


def _section(md: str, title: str) -> str:
    start = md.index(f"\n## {title}\n")
    end = md.find("\n## ", start + 1)
    return md[start : end if end != -1 else len(md)]


def test_report_sections_carry_the_evidence() -> None:
    md = report_md(fixture(), SETTINGS)
    assert "Settings: seed 0, mutants per case 5, time limit 20 s, weak below completeness 0.8," in md
    coverage = _section(md, "Coverage")
    assert "Evaluated 8 of 11 tasks (73%)." in coverage
    assert "| no readable test case | 1 | 4 |" in coverage
    assert "| spec does not parse | 1 | 5 |" in coverage
    confusion = _section(md, "Verdicts × human labels")
    assert "| strong | 1 | 1 | 1 | 1 | 4 |" in confusion
    assert "| Total | 3 | 2 | 3 | 3 | 11 |" in confusion
    assert "Agreement: 1 of 7 labelled and evaluated tasks (14%)" in confusion
    disagreements = _section(md, "Disagreements")
    order = [int(m) for m in re.findall(r"^### Task (\d+)", disagreements, re.M)]
    assert order == [2, 3, 7, 10, 12, 15]
    assert SPEC_OR_TEST_HINT in disagreements
    assert NOT_EXPOSED[Label.WRONG] in disagreements and NOT_EXPOSED[Label.WEAK] in disagreements
    spec_or_test = _section(md, "Spec or test?")
    assert re.findall(r"^### Task (\w+)", spec_or_test, re.M) == ["10", "1"]  # labelled strong first
    assert "<code>result = 25</code>" in spec_or_test and "assert r == 25;" in spec_or_test
    # a weak task's wrong outputs: one row per case, inputs once, at most MAX_WEAK_SURVIVORS outputs, shown once
    assert "| test\\_1 | <code>a = [1, 2], b = [2]</code> | <code>result = [2]</code> | <code>[]</code>, " \
        "<code>[2, 2]</code>, <code>[1]</code> |" in disagreements
    assert disagreements.count("<code>result = [2]</code>") == 1
    assert f"… and {7 - MAX_WEAK_SURVIVORS} more wrong outputs the spec accepts" in disagreements
    weak = _section(md, "Weak specs")
    assert re.findall(r"^### Task (\d+)", weak, re.M) == ["2", "12"]
    assert weak.count(SHOWN_ABOVE) == 2 and "| Case |" not in weak  # both are disagreements: not repeated
    assert "tasks 12 (1e-06)." in _section(md, "Tolerance")
    per_task = _section(md, "Per task")
    assert len(re.findall(r"^\| (\w+) \|", per_task, re.M)) == 11 + 1  # header + one row per task


def test_report_escapes_user_text() -> None:
    md = report_md(fixture(), SETTINGS)
    fenced = re.findall(r"^(`{3,})dafny\n(.*?)^\1$", md, re.M | re.S)
    outside = re.sub(r"^(`{3,})dafny\n.*?^\1$", "", md, flags=re.M | re.S)
    assert "<script>" not in outside and "<b>" not in outside and "<i>" not in outside
    assert re.search(r"@(?!\u200d)", outside) is None  # every @ outside code is escaped
    for line in outside.splitlines():
        if line.startswith("|"):
            # a table row has as many unescaped pipes as its header: none come from user text
            assert len(re.findall(r"(?<!\\)\|", line)) in (4, 5, 6, 7, 8, 9), line
    # the case text with a ``` run is in a longer fence, kept verbatim
    assert ("````", 'var r := M("x|y");\n// ``` not a fence end\nassert r == "@user `q`";\n') in fenced


def test_report_of_nothing() -> None:
    md = report_md([], {})
    assert "Evaluated 0 of 0 tasks (n/a)." in md
    assert "Agreement: no task is both labelled and evaluated." in md
    assert NO_TOLERANCE in md
    assert "Settings: seed n/a," in md
    assert json.loads(results_json([], {})) == {"schema": 2, "settings": {}, "tasks": []}
    assert results_csv([]) == ",".join(CSV_HEADER) + "\n"


def test_a_task_weak_only_by_a_pin_witness_shows_the_witness_once() -> None:
    """No mutant survived, but the pin check found another output the spec accepts: that output is the evidence,
    under Disagreements, and neither Weak specs nor Pinned outputs repeat it."""
    pinned_wrong = dataclasses.replace(
        case("test_1", CaseStatus.VERIFIED, "a = [1, 2]", "result = [1, 2]", (mutant("[]", K),)),
        determinacy=Determinacy.NOT_PINNED, witness="[2, 1]", witness_source="solver")
    r = task("9", "Sort", Label.STRONG, (pinned_wrong,))
    assert r.verdict is Verdict.WEAK
    md = report_md([r], SETTINGS)
    disagreements = _section(md, "Disagreements")
    assert "No wrong output was recorded." not in md
    row = "| test\\_1 | <code>a = [1, 2]</code> | <code>result = [1, 2]</code> | <code>[2, 1]</code> |"
    assert row in disagreements
    assert md.count("<code>[2, 1]</code>") == 1
    assert SHOWN_ABOVE in _section(md, "Weak specs")
    assert "tasks 9 (<code>Sort</code>): the wrong outputs are under Weak specs." in _section(md, "Pinned outputs")


def test_every_input_counts_and_witnesses() -> None:
    """The audit's every-input column and counts: a witness on a spec labelled strong is named with its input and
    outputs; unknowns are counted by the kind of their reason, names and values left out."""
    verified = CaseStatus.VERIFIED
    base = [task("1", "Abs", Label.STRONG, (case("test_1", verified, "x = 3", "r = 3"),)),
            task("2", "Max", Label.WEAK, (case("test_1", verified, "a = 1, b = 2", "m = 2"),)),
            task("3", "Sort", Label.STRONG, (case("test_1", verified, "a = [2, 1]", "r = [1, 2]"),)),
            task("4", "Fill", Label.UNLABELED, (case("test_1", verified, "a = [2]", "r = [2]"),))]
    said = [Everywhere(EverywhereStatus.NOT_DETERMINED, "x = -1", ("0", "1")),
            Everywhere(EverywhereStatus.DETERMINED),
            Everywhere(EverywhereStatus.UNKNOWN, reason="`a` holds arrays: not supported yet"),
            Everywhere(EverywhereStatus.UNKNOWN, reason="`b` holds arrays: not supported yet")]
    tasks = [replace(r, score=replace(r.score, everywhere=e)) for r, e in zip(base, said, strict=True)
             if r.score is not None]
    counts = everywhere_counts(tasks)
    assert (counts["determined"], counts["not-determined"], counts["unknown"]) == (1, 1, 2)
    assert counts["labelled strong, not determined"] == 1
    md = report_md(tasks, SETTINGS)
    section = _section(md, "Every input")
    assert "Of 4 specs: 1 determined, 0 determined-up-to-order, 0 determined-as-set, 1 not-determined, 2 unknown" \
        in section and "Labelled strong with a witness: 1." in section
    assert "- task 1 (<code>Abs</code>, labelled strong): not determined on every input: for x = -1 the spec " \
        "accepts both 0 and 1" in section
    assert "- … holds arrays: not supported yet: 2" in section
    rows = list(csv.reader(io.StringIO(results_csv(tasks))))
    assert [r[-1] for r in rows[1:]] == ["not-determined", "determined", "unknown", "unknown"]
    assert json.loads(results_json(tasks, SETTINGS))["tasks"][0]["everywhere"] == {
        "status": "not-determined", "inputs": "x = -1", "outputs": ["0", "1"], "reason": ""}
    assert "On every input: for <code>x = -1</code> the spec accepts both" in report_html(tasks, SETTINGS)
