"""Changes since a baseline: the pure comparison, its renderings, the refusals, and `--baseline` end to end."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.audit import request
from bot.audit.changes import (
    HEADING,
    MAX_BASELINE_BYTES,
    BaselineError,
    Disagreement,
    FailOn,
    Survivor,
    VerdictChange,
    changes_dict,
    changes_json,
    changes_md,
    compare,
    parse_baseline,
    should_fail,
)
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.report import AUDIT_SCHEMA_VERSION, disagreeing
from bot.cli import main
from bot.options import Invalid, clean_audit_baseline, clean_audit_fail_on
from support.paths import DATA

FIXTURE = DATA / "audit"


def task(tid: str, label: str = "unlabeled", verdict: str = "strong", correctness: float | None = 1.0,
         completeness: float | None = 1.0, survivors: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """A task of results.json, with the fields the comparison reads (and a few it does not)."""
    return {"task_id": tid, "file": f"src/task_id_{tid}.dfy", "method": "M", "label": label, "tags": [],
            "verdict": verdict, "cause": "", "evaluated": verdict != "inconclusive", "correctness": correctness,
            "completeness": completeness, "surviving_mutants": [
                {"case": "c", "inputs": i, "expected": "e", "value": v, "description": "d"} for i, v in survivors]}


def doc(*tasks: dict[str, Any], seed: int = 0, **settings: object) -> dict[str, Any]:
    return {"schema": AUDIT_SCHEMA_VERSION, "settings": {"seed": seed, "mutants": 5, **settings},
            "tasks": list(tasks)}


def raw(d: object) -> bytes:
    return json.dumps(d).encode()


# ---------------------------------------------------------------------------------------------------
# compare


def test_identical_runs_have_no_changes() -> None:
    run = doc(task("2", "strong", "weak", 1.0, 0.5, (("[1]", "[2]"),)), task("7"))
    changes = compare(run, run, "old/results.json")
    assert changes.empty and changes.compared == 2 and changes.tasks == ()
    md = changes_md(changes)
    assert md[0] == HEADING
    assert "No changes since the baseline (2 tasks compared)." in md
    assert any("<code>old/results.json</code>" in line for line in md)
    assert should_fail(changes, FailOn.NEW_DISAGREEMENT) == should_fail(changes, FailOn.VERDICT_CHANGE) == ""


def test_every_kind_of_change() -> None:
    old = doc(
        task("2", "strong", "weak", 1.0, 0.5, (("[1]", "[2]"), ("[3]", "[4]"))),
        task("10", "strong", "wrong", 0.5, None),
        task("11", "unlabeled", "strong"),
        task("12", "weak", "strong"),
        task("gone", "wrong", "wrong"),
    )
    new = doc(
        task("2", "strong", "weak", 1.0, 0.25, (("[3]", "[4]"), ("[5]", "[6]"))),  # survivors changed
        task("10", "strong", "strong", 1.0, 0.9),  # the test fixed: verdict and scores, a disagreement fixed
        task("11", "weak", "strong"),  # relabelled: a new disagreement
        task("12", "weak", "inconclusive", None, None),  # undecided: no longer a disagreement
        task("3", "wrong", "strong"),  # added, and disagreeing
    )
    c = compare(old, new)
    assert c.added == ("3",) and c.removed == ("gone",) and c.compared == 4
    assert c.verdicts == (VerdictChange("10", "strong", "wrong", "strong"),
                          VerdictChange("12", "weak", "strong", "inconclusive"))
    assert [(x.task_id, x.old, x.new) for x in c.labels] == [("11", "unlabeled", "weak")]
    assert [(s.task_id, s.metric, s.old, s.new) for s in c.scores] == [
        ("2", "completeness", 0.5, 0.25), ("10", "correctness", 0.5, 1.0), ("10", "completeness", None, 0.9),
        ("12", "correctness", 1.0, None), ("12", "completeness", 1.0, None)]
    assert c.new_disagreements == (Disagreement("3", "wrong", "strong"), Disagreement("11", "weak", "strong"))
    # 12 disagreed (weak, scored strong) and now has no decided verdict: the report no longer counts it
    assert c.fixed_disagreements == (Disagreement("10", "strong", "wrong"), Disagreement("12", "weak", "strong"))
    assert c.new_survivors == (Survivor("2", "[5]", "[6]"),)
    assert c.gone_survivors == (Survivor("2", "[1]", "[2]"),)
    assert c.tasks == ("2", "3", "10", "11", "12", "gone")
    assert not c.empty
    d = changes_dict(c)
    assert d["tasks_added"] == ["3"] and d["tasks_removed"] == ["gone"]
    assert d["new_disagreements"] == [{"task_id": "3", "label": "wrong", "verdict": "strong"},
                                      {"task_id": "11", "label": "weak", "verdict": "strong"}]
    assert d["new_surviving_mutants"] == [{"task_id": "2", "inputs": "[5]", "value": "[6]"}]
    md = "\n".join(changes_md(c))
    assert "Since the baseline: 2 new disagreements, 2 fixed disagreements, 2 verdicts changed" in md
    assert "| 10 | strong | wrong | strong |" in md
    assert "| 2 | completeness | 0.50 | 0.25 |" in md and "| 10 | completeness | n/a | 0.90 |" in md
    assert "**Tasks added:** 3." in md and "**Tasks removed:** gone." in md
    assert md.index("New disagreements") < md.index("Verdicts changed")  # most telling first


def test_disagreements_are_the_reports() -> None:
    """Every label × verdict pair: the changes call a task disagreeing exactly when the report does."""
    for label in Label:
        for verdict in Verdict:
            r = TaskResult("5", "f", "M", label, (), verdict, "", None, 0.0, False)
            c = compare(doc(), doc(task("5", label.value, verdict.value)))
            assert bool(c.new_disagreements) == bool(disagreeing([r])), (label, verdict)


def test_settings_changes_are_shown_but_change_no_result() -> None:
    c = compare(doc(task("1"), mutants=5, verifier="2.3"), doc(task("1"), mutants=3, verifier="2.3"))
    assert c.empty and [(s.key, s.old, s.new) for s in c.settings] == [("mutants", "5", "3")]
    assert any("Settings changed since the baseline: mutants <code>5</code> → <code>3</code>" in line
               for line in changes_md(c))


def test_scores_show_the_digits_that_tell_them_apart() -> None:
    c = compare(doc(task("1", completeness=0.801)), doc(task("1", completeness=0.803)))
    assert "| 1 | completeness | 0.801 | 0.803 |" in changes_md(c)


def test_the_baseline_file_and_date_are_named() -> None:
    old = doc(task("1"))
    old["date"] = "2024-05-02"
    lines = changes_md(compare(old, doc(task("1")), "nightly/results.json"))
    assert "Baseline: <code>nightly/results.json</code> of 2024-05-02; 1 task in both runs." in lines
    assert changes_md(compare(old, doc(task("1"))), heading=False)[0].startswith("Baseline: the baseline of")


def test_text_from_the_runs_is_escaped() -> None:
    hostile = "<img src=x>@team|**"
    c = compare(doc(task(hostile, survivors=(("`x`|@a", "<b>"),))), doc(task(hostile, "wrong")), "a|b<c>.json")
    md = "\n".join(changes_md(c))
    assert "<img" not in md and "<b>" not in md and "@team" not in md and "@a" not in md
    assert "&lt;img src=x&gt;" in md


def test_long_lists_are_cut_in_the_markdown_not_in_the_json() -> None:
    old = doc(*(task(str(i), "strong", "strong") for i in range(100)))
    new = doc(*(task(str(i), "strong", "wrong", 0.0) for i in range(100)))
    c = compare(old, new)
    md = changes_md(c)
    assert sum(line.startswith("| ") and "| wrong |" in line for line in md) == 2 * 30  # two tables of 30 rows
    assert "… and 70 more (see changes.json)." in md
    assert len(changes_dict(c)["verdict_changes"]) == 100


def test_same_inputs_same_bytes_whatever_the_order() -> None:
    tasks_old = [task(str(i), "strong", "weak" if i % 3 else "strong", 1.0, i / 100, (("[1]", str(i)),))
                 for i in range(40)]
    tasks_new = [task(str(i), "strong", "weak" if i % 4 else "strong", 1.0, i / 90, (("[2]", str(i)),))
                 for i in range(5, 45)]
    first = compare(doc(*tasks_old), doc(*tasks_new), "b.json")
    random.Random(1).shuffle(tasks_old)
    random.Random(2).shuffle(tasks_new)
    again = compare(doc(*tasks_old), doc(*tasks_new), "b.json")
    assert changes_json(first) == changes_json(again)
    assert changes_md(first) == changes_md(again)
    assert json.loads(changes_json(first)) == changes_dict(first)


def test_should_fail() -> None:
    c = compare(doc(task("1", "strong", "strong"), task("2", "weak", "weak")),
                doc(task("1", "strong", "weak"), task("2", "unlabeled", "weak")))
    assert should_fail(c, FailOn.NEVER) == ""
    assert should_fail(c, FailOn.VERDICT_CHANGE) == "1 verdict changed since the baseline: task 1 (strong → weak)"
    assert should_fail(c, FailOn.NEW_DISAGREEMENT) == (
        "1 new disagreement with the labels since the baseline: task 1 (labelled strong, scored weak)")
    relabelled = compare(doc(task("1", "unlabeled")), doc(task("1", "weak")))  # no verdict changed
    assert should_fail(relabelled, FailOn.VERDICT_CHANGE) == ""
    assert should_fail(relabelled, FailOn.NEW_DISAGREEMENT).startswith("1 new disagreement")
    many = compare(doc(*(task(str(i)) for i in range(15))), doc(*(task(str(i), verdict="weak") for i in range(15))))
    reason = should_fail(many, FailOn.VERDICT_CHANGE)
    assert reason.startswith("15 verdicts changed since the baseline: tasks 0 (strong → weak), 1 (strong → weak), ")
    assert reason.endswith(", 9 (strong → weak) and 5 more")


def test_fail_on_and_baseline_options() -> None:
    assert clean_audit_fail_on("Verdict_Change") is FailOn.VERDICT_CHANGE
    assert clean_audit_fail_on("never") is FailOn.NEVER
    with pytest.raises(Invalid, match="new-disagreement"):
        clean_audit_fail_on("always")
    assert clean_audit_baseline(" prev/results.json ") == "prev/results.json"
    assert clean_audit_baseline("") == ""
    with pytest.raises(Invalid):
        clean_audit_baseline("a\0b")


# ---------------------------------------------------------------------------------------------------
# refusals: the baseline may come from anywhere


def test_a_good_baseline_is_read() -> None:
    d = doc(task("1"), seed=3)
    assert parse_baseline(raw(d), 3) == d


@pytest.mark.parametrize(("data", "message"), [
    (raw({**doc(), "schema": AUDIT_SCHEMA_VERSION + 1}), f"schema {AUDIT_SCHEMA_VERSION + 1}, but this audit "
                                                         f"writes schema {AUDIT_SCHEMA_VERSION}"),
    (raw(doc(seed=4)), "made with seed 4, but this run's seed is 0"),
    (raw({"settings": {"seed": 0}, "tasks": []}), "schema: missing"),
    (raw([1, 2]), "the file: not a JSON object"),
    (b"{\"schema\": 2,", "not JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"{\"schema\": 1" + b"0" * 5000 + b"}", "not readable JSON"),
    (raw({**doc(), "schema": "2"}), "schema: '2' is not a whole number"),
    (raw({**doc(), "settings": []}), "settings: not a JSON object"),
    (raw({**doc(), "settings": {}}), "settings.seed: missing"),
    (raw({**doc(), "settings": {"seed": True}}), "settings.seed: true is not a whole number"),
    (raw({**doc(), "tasks": {}}), "tasks: not a JSON array"),
    (raw(doc(task("1"), 5)), "tasks[1]: not a JSON object"),
    (raw(doc(task("1"), {**task("2"), "verdict": "great"})), "tasks[1].verdict: 'great' is not one of"),
    (raw(doc({**task("1"), "label": None})), "tasks[0].label: null is not a string"),
    (raw(doc({**task("1"), "task_id": 1})), "tasks[0].task_id: 1 is not a string"),
    (raw(doc({**task("1"), "task_id": ""})), "tasks[0].task_id: empty"),
    (raw(doc({**task("1"), "task_id": "x" * 200_000})), "tasks[0].task_id: longer than"),
    (raw(doc(task("1"), task("1"))), "tasks[1].task_id: '1' appears twice"),
    (raw(doc({**task("1"), "correctness": "1.0"})), "tasks[0].correctness: '1.0' is not a number or null"),
    (raw(doc({**task("1"), "completeness": 2})), "tasks[0].completeness: 2 is not a number from 0 to 1"),
    (b'{"schema": 2, "settings": {"seed": 0}, "tasks": [{"task_id": "1", "label": "weak", "verdict": "weak",'
     b' "correctness": NaN}]}', "tasks[0].correctness: NaN is not a number from 0 to 1"),
    (raw(doc({**task("1"), "surviving_mutants": {}})), "tasks[0].surviving_mutants: not a JSON array"),
    (raw(doc({**task("1"), "surviving_mutants": [{"inputs": "[1]", "value": 2}]})),
     "tasks[0].surviving_mutants[0].value: 2 is not a string"),
])  # fmt: skip
def test_a_bad_baseline_is_refused_naming_the_field(data: bytes, message: str) -> None:
    with pytest.raises(BaselineError) as e:
        parse_baseline(data, 0)
    assert message in str(e.value)


def test_a_huge_baseline_is_refused_unread() -> None:
    with pytest.raises(BaselineError, match="larger than"):
        parse_baseline(b" " * (MAX_BASELINE_BYTES + 1), 0)


def test_compare_refuses_another_seed_or_schema() -> None:
    with pytest.raises(BaselineError, match="seed 1, this run with seed 0"):
        compare(doc(seed=1), doc())
    with pytest.raises(BaselineError, match="schema 1, this run 2"):
        compare({**doc(), "schema": 1}, {**doc(), "schema": 2})


def test_the_changes_come_first_in_report_md() -> None:
    changes = compare(doc(task("1")), doc(task("1", verdict="weak")), "b.json")
    text = request.report_markdown([], {"seed": 0}, changes)
    assert text.startswith("# Dafny Spec Score: dataset audit\n\nSettings:")
    assert text.index("Settings:") < text.index(HEADING) < text.index("## Coverage")
    assert request.report_markdown([], {"seed": 0}, None) == request.report_md([], {"seed": 0})


# ---------------------------------------------------------------------------------------------------
# the command: refusals before anything is verified


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["settings"].update(seed=9), "made with seed 9, but this run's seed is 0"),
    (lambda d: d.update(schema=1), "results of schema 1"),
])  # fmt: skip
def test_the_command_refuses_another_seed_or_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     edit: Any, message: str) -> None:
    baseline = doc(task("2"))
    edit(baseline)
    (tmp_path / "old.json").write_text(json.dumps(baseline))
    out = tmp_path / "out"
    argv = ["audit", str(FIXTURE), "--baseline", str(tmp_path / "old.json"), "--out", str(out), "--dafny",
            str(tmp_path / "no-such-dafny")]  # never started: the baseline is refused first
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: baseline {tmp_path / 'old.json'}: " in err and message in err
    assert not out.exists()


def test_the_command_refuses_an_unreadable_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", str(FIXTURE), "--out", str(tmp_path / "out"), "--dafny", str(tmp_path / "no-such-dafny")]
    assert main([*base, "--baseline", str(tmp_path / "missing.json")]) == 2
    assert f"baseline {tmp_path / 'missing.json'}: cannot read it: No such file" in capsys.readouterr().err
    assert main([*base, "--baseline", str(tmp_path)]) == 2  # a folder
    assert f"baseline {tmp_path}: cannot read it" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"schema": 2, "settings": {"seed": 0}, "tasks": [{"task_id": 5}]}')
    assert main([*base, "--baseline", str(tmp_path / "bad.json")]) == 2
    assert "bad.json: tasks[0].task_id: 5 is not a string" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:  # argparse's usage error for an unknown choice
        main([*base, "--fail-on", "sometimes"])
    assert bad.value.code == 2
