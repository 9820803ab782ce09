"""Audit baselines end to end with the real verifier: one label and one test changed between two audits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.audit.changes import HEADING
from bot.cli import main
from support.paths import DATA

FIXTURE = DATA / "audit"



@pytest.mark.dafny
def test_baseline_end_to_end(dafny_command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "dataset"
    shutil.copytree(FIXTURE, data)
    # few mutants and no pin check: the changes are what is tested here, and the verifier costs minutes
    cache = ["--cache-dir", str(tmp_path / "cache"), "--mutants", "2", "--no-pin"]
    assert main(["audit", str(data), "--out", str(tmp_path / "run1"), *cache]) == 0
    assert not (tmp_path / "run1" / "changes.json").exists()
    # one label: task 105 (unlabeled, scored strong) labelled weak
    labels_file = data / "RQs" / "review-tagged.json"
    labels = json.loads(labels_file.read_text())
    labels.append({"id": "105", "isVerified": True, "dafny_code": "", "note": "[WEAK-POST]"})
    labels_file.write_text(json.dumps(labels, indent=1))
    # one test: task 234's wrong expected volume (25 for a cube of 5) corrected
    test_file = data / "DS" / "test" / "task_id_234.dfy"
    text = test_file.read_text()
    assert text.count("out3==25;") == 1
    test_file.write_text(text.replace("out3==25;", "out3==125;"))
    capsys.readouterr()

    baseline = str(tmp_path / "run1" / "results.json")
    runs = {}
    for name, fail_on in (("run2", "never"), ("again", "never"), ("verdict", "verdict-change"),
                          ("disagreement", "new-disagreement")):
        out = tmp_path / name
        code = main(["audit", str(data), "--out", str(out), "--baseline", baseline, "--fail-on", fail_on, *cache])
        runs[name] = (code, capsys.readouterr().err)
    assert runs["run2"][0] == runs["again"][0] == 0
    assert runs["verdict"][0] == 1
    assert "audit: failing: 1 verdict changed since the baseline: task 234 (wrong → strong)" in runs["verdict"][1]
    assert runs["disagreement"][0] == 1
    assert ("audit: failing: 1 new disagreement with the labels since the baseline: task 105 (labelled weak, "
            "scored strong)") in runs["disagreement"][1]
    assert "audit: failing" not in runs["run2"][1]

    changes = json.loads((tmp_path / "run2" / "changes.json").read_text())
    named = {e["task_id"] for value in changes.values() if isinstance(value, list) for e in value
             if isinstance(e, dict) and "task_id" in e} | {*changes["tasks_added"], *changes["tasks_removed"]}
    assert named == {"105", "234"}, changes
    assert changes["verdict_changes"] == [{"task_id": "234", "label": "strong", "old": "wrong", "new": "strong"}]
    assert changes["label_changes"] == [{"task_id": "105", "old": "unlabeled", "new": "weak"}]
    assert changes["new_disagreements"] == [{"task_id": "105", "label": "weak", "verdict": "strong"}]
    assert changes["fixed_disagreements"] == [{"task_id": "234", "label": "strong", "verdict": "wrong"}]
    assert {(s["task_id"], s["metric"]) for s in changes["score_changes"]} >= {("234", "correctness")}
    assert changes["tasks_added"] == changes["tasks_removed"] == [] and changes["compared"] == 4
    assert changes["baseline"] == {"file": baseline, "date": ""}

    report = (tmp_path / "run2" / "report.md").read_text()
    section = report.split(HEADING)[1].split("\n## ")[0]
    assert report.index("Settings:") < report.index(HEADING) < report.index("## Coverage")
    assert "| 234 | strong | wrong | strong |" in section and "| 105 | weak | strong |" in section
    assert "| 2 |" not in section and "| 432 |" not in section
    # the same inputs give the same bytes
    for name in ("changes.json", "report.md", "results.json"):
        assert (tmp_path / "run2" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    # this run as the next baseline: nothing changed
    assert main(["audit", str(data), "--out", str(tmp_path / "run3"), "--baseline",
                 str(tmp_path / "run2" / "results.json"), "--fail-on", "verdict-change", *cache]) == 0
    assert "No changes since the baseline (4 tasks compared)." in (tmp_path / "run3" / "report.md").read_text()
    assert json.loads((tmp_path / "run3" / "changes.json").read_text())["empty"] is True
