"""The dataset audit: labels, verdicts, discovery, and an end-to-end run with the real verifier."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.audit.dataset import DatasetError, find_json_tests, find_labels, find_tasks
from bot.audit.labels import LabelFileError, label_of, read_labels, tags_of
from bot.audit.model import Label, Verdict
from bot.audit.verdicts import spec_or_test, verdict
from bot.cli import main
from bot.symbolic.results import CaseResult, CaseStatus, MutantResult, MutantStatus, Undecided, method_score
from support.paths import DATA

FIXTURE = DATA / "audit"


def test_tags_and_labels() -> None:
    note = "Right postconditions\n\n[STRONG-POST]\n[STRONG-INV]\n//[WRONG]\n[CONFIRMED-WITH-TESTS]"
    assert tags_of(note) == ("[STRONG-POST]", "[STRONG-INV]", "[WRONG]", "[CONFIRMED-WITH-TESTS]")
    assert label_of(tags_of(note)) is Label.WRONG  # a wrong tag outranks a strong one
    assert label_of(("[WEAK-POST]", "[REQUIRED-PRE]")) is Label.WEAK
    assert label_of(("[MISUNDERSTANDING]",)) is Label.WRONG
    assert label_of(("[STRONG-POST]", "[OPTIONAL-PRE]")) is Label.STRONG
    assert label_of(("[STRONG-INV]", "[CONFIRMED-WITH-TESTS]")) is Label.UNLABELED  # not about the post
    labels = read_labels([{"id": 7, "note": "[WEAK-POST]"}, {"task_id": "8", "note": "nothing"}], "l.json")
    assert labels == {"7": (Label.WEAK, ("[WEAK-POST]",)), "8": (Label.UNLABELED, ())}
    with pytest.raises(LabelFileError, match="l.json"):
        read_labels({"7": "x"}, "l.json")


def _case(status: CaseStatus, *mutants: MutantStatus) -> CaseResult:
    reason = Undecided.TIMEOUT if status is CaseStatus.UNKNOWN else None
    return CaseResult("c", 1, "", "", "", "f", status, "", tuple(MutantResult("v", "d", m) for m in mutants), reason)


def test_verdicts() -> None:
    strong = method_score("f", "M", 1, (_case(CaseStatus.VERIFIED, MutantStatus.KILLED),))
    weak = method_score("f", "M", 1, (_case(CaseStatus.VERIFIED, MutantStatus.KILLED, MutantStatus.SURVIVED),))
    wrong = method_score("f", "M", 1, (_case(CaseStatus.VERIFIED), _case(CaseStatus.REFUTED),
                                       _case(CaseStatus.UNKNOWN)))
    timeout = method_score("f", "M", 1, (_case(CaseStatus.UNKNOWN),))
    undecided = method_score("f", "M", 1, (_case(CaseStatus.VERIFIED, MutantStatus.UNKNOWN),))
    unread = method_score("f", "M", 1, (), ("f:3: bad",))
    assert verdict(strong, 0.8) == (Verdict.STRONG, "")
    assert verdict(weak, 0.8) == (Verdict.WEAK, "")
    assert verdict(weak, 0.5) == (Verdict.STRONG, "")
    assert verdict(wrong, 0.8) == (Verdict.WRONG, "")
    assert verdict(timeout, 0.8) == (Verdict.INCONCLUSIVE, "no case decided: 1 unknown (timeout)")
    assert verdict(undecided, 0.8)[1] == "completeness unknown: all 1 mutants unknown"
    assert verdict(unread, 0.8) == (Verdict.INCONCLUSIVE, "no readable test case (1 unreadable)")
    # "spec or test?": one refuted case among verified ones only
    assert spec_or_test(method_score("f", "M", 1, (_case(CaseStatus.VERIFIED), _case(CaseStatus.REFUTED)))) == [1]
    assert spec_or_test(wrong) == []
    assert spec_or_test(method_score("f", "M", 1, (_case(CaseStatus.REFUTED), _case(CaseStatus.REFUTED)))) == []
    # a `requires` proved to reject a test's inputs: the spec and the test disagree, so the verdict is wrong, with
    # its cause, and the case is a "spec or test?" case however the others went
    rejected = method_score("f", "M", 1, (_case(CaseStatus.VERIFIED), _case(CaseStatus.PRECONDITION_VIOLATED),
                                          _case(CaseStatus.UNKNOWN)))
    assert verdict(rejected, 0.8) == (Verdict.WRONG, "the `requires` rejects the test inputs")
    assert spec_or_test(rejected) == [1]
    every = method_score("f", "M", 1, (_case(CaseStatus.PRECONDITION_VIOLATED),) * 2)
    assert verdict(every, 0.8)[0] is Verdict.WRONG and spec_or_test(every) == [0, 1]


def test_discovery(tmp_path: Path) -> None:
    tasks = find_tasks(FIXTURE)
    assert [t.task_id for t in tasks] == ["2", "105", "234", "432"]
    assert tasks[0].spec.name == "task_id_2.dfy" and tasks[0].spec.parent.name == "src"
    assert tasks[0].test is not None and tasks[0].test.parent.name == "test"
    assert find_labels(FIXTURE) == FIXTURE / "RQs" / "review-tagged.json"
    assert find_json_tests(FIXTURE) == FIXTURE / "DS" / "tests-all-task-test.json"
    with pytest.raises(DatasetError, match="no task files found"):
        find_tasks(tmp_path)


def test_audit_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["audit", str(FIXTURE), "--only", "999", "--dafny", "true"]) == 2
    assert "no such task" in capsys.readouterr().err


@pytest.mark.dafny
def test_audit_end_to_end(dafny_command: str, tmp_path: Path, warm_cache: Callable[[str], Path]) -> None:
    out = tmp_path / "out"
    argv = ["audit", str(FIXTURE), "--out", str(out), "--cache-dir", str(warm_cache("audit-fixture"))]
    assert main(argv) == 0
    results = json.loads((out / "results.json").read_text())
    by_id = {t["task_id"]: t for t in results["tasks"]}
    assert [t["task_id"] for t in results["tasks"]] == ["2", "105", "234", "432"]
    assert by_id["2"]["verdict"] == "weak" and by_id["2"]["label"] == "strong"
    assert {s["value"] for s in by_id["2"]["surviving_mutants"]} >= {"[4]", "[5]"}
    assert by_id["105"]["verdict"] == "strong"  # a recursive count over 6 elements, proved
    assert by_id["234"]["verdict"] == "wrong"
    assert [c["expected"] for c in by_id["234"]["failing_cases"]] == ["volume = 25"]
    assert by_id["432"]["verdict"] == "inconclusive" and by_id["432"]["label"] == "wrong"
    report = (out / "report.md").read_text()
    spec_or_test_section = report.split("## Spec or test?")[1].split("\n## ")[0]
    assert "CubeVolume" in spec_or_test_section and "volume = 25" in spec_or_test_section
    assert "takes 2" in report  # why 432 could not be read: the test passes three arguments
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert [r["verdict"] for r in rows] == ["weak", "strong", "wrong", "inconclusive"]
    # byte-identical on a second run (from the cache)
    again = tmp_path / "again"
    assert main(["audit", str(FIXTURE), "--out", str(again), "--cache-dir", str(warm_cache("audit-fixture"))]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")  # the CLI writes the page too
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "CubeVolume" in page
    for name in ("results.json", "results.csv", "report.md", "report.html"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_an_external_suggester_serves_the_audit_too(dafny_command: str, tmp_path: Path,
                                                    warm_cache: Callable[[str], Path]) -> None:
    script = tmp_path / "propose.py"
    # the converse in other words: offered only because the suggester proposed it, and only once proved
    script.write_text("print('ensures forall y :: InArray(a, y) && InArray(b, y) ==> y in result')\n"
                      "print('ensures |result| == 7')\n")
    out = tmp_path / "out"
    assert main(["audit", str(FIXTURE), "--only", "2", "--out", str(out), "--cache-dir",
                 str(warm_cache("audit-fixture")), "--suggester", f"{sys.executable} {script}"]) == 0
    (task,) = json.loads((out / "results.json").read_text())["tasks"]
    offered = {s["template"]: s["clause"] for s in task["suggestions"]}
    assert offered["suggester"] == "ensures forall y :: InArray(a, y) && InArray(b, y) ==> y in result"
    assert "converse" in offered and "|result| == 7" not in str(offered)  # refuted by the tests: never offered


@pytest.mark.dafny
@pytest.mark.dataset
def test_audit_on_the_development_dataset(dafny_command: str, dataset_root: Path, tmp_path: Path,
                                          warm_cache: Callable[[str], Path]) -> None:
    out = tmp_path / "out"
    argv = ["audit", str(dataset_root / "a57ce24"), "--only", "2,105,234,399", "--out", str(out),
            "--cache-dir", str(warm_cache("development-dataset"))]
    assert main(argv) == 0
    by_id = {t["task_id"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert by_id["2"]["verdict"] == "weak"
    assert any(len(json.loads(s["value"])) == 1 for s in by_id["2"]["surviving_mutants"])  # a dropped element
    assert by_id["105"]["verdict"] == "strong"
    assert by_id["234"]["verdict"] == "wrong" and "Spec or test?" in (out / "report.md").read_text()
    assert by_id["399"]["verdict"] == "strong"  # per-element bv32 forall, proved by cases
    # the weak task gets the paper's converse, proved to pin its cases up to order
    (best, *_) = by_id["2"]["suggestions"]
    assert best["clause"] == "ensures forall x :: InArray(a, x) && InArray(b, x) ==> x in result"
    assert best["pinned_up_to_order"] == best["pin_checked"] == 3
    assert "A verified suggestion was found for 1 of the 1 weak task(s)" in (out / "report.md").read_text()


@pytest.mark.dafny
def test_shards_merge_through_their_caches(dafny_command: str, tmp_path: Path,
                                          warm_cache: Callable[[str], Path]) -> None:
    """Each shard fills its own cache; a run over the combined caches verifies nothing new and gives the
    report a single run gives."""
    import shutil

    for k in (1, 2):
        argv = ["audit", str(FIXTURE), "--shard", f"{k}/2", "--out", str(tmp_path / f"s{k}"),
                "--cache-dir", str(tmp_path / f"cache{k}")]
        assert main(argv) == 0
    shard_ids = [[t["task_id"] for t in json.loads((tmp_path / f"s{k}" / "results.json").read_text())["tasks"]]
                 for k in (1, 2)]
    assert shard_ids == [["2", "234"], ["105", "432"]]
    merged = tmp_path / "merged-cache"
    for k in (1, 2):
        shutil.copytree(tmp_path / f"cache{k}", merged, dirs_exist_ok=True)
    assert main(["audit", str(FIXTURE), "--out", str(tmp_path / "all"), "--cache-dir", str(merged),
                 "--dafny", dafny_command]) == 0
    assert main(["audit", str(FIXTURE), "--out", str(tmp_path / "single"), "--cache-dir",
                 str(warm_cache("audit-fixture"))]) == 0
    assert (tmp_path / "all" / "report.md").read_bytes() == (tmp_path / "single" / "report.md").read_bytes()
    with pytest.raises(SystemExit) as bad:  # argparse's usage error: exit 2 with the rule
        main(["audit", str(FIXTURE), "--shard", "3/2"])
    assert bad.value.code == 2


@pytest.mark.dafny
def test_a_task_whose_tests_violate_its_requires_is_wrong_with_the_clause(dafny_command: str, tmp_path: Path) -> None:
    root = tmp_path / "ds"
    (root / "DS" / "src").mkdir(parents=True)
    (root / "DS" / "test").mkdir()
    spec = """method Root(n: int) returns (r: int)
  requires n >= 0
  requires n < 10
  ensures r * r <= n < (r + 1) * (r + 1)
{
  r := 0;
  while (r + 1) * (r + 1) <= n { r := r + 1; }
}
"""
    (root / "DS" / "src" / "task_id_7.dfy").write_text(spec)
    (root / "DS" / "test" / "task_id_7.dfy").write_text(spec + """
method RootTest(){
  var a := Root(16);
  assert a == 4;
  var b := Root(25);
  assert b == 5;
}
""")
    out = tmp_path / "out"
    assert main(["audit", str(root), "--out", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    task = json.loads((out / "results.json").read_text())["tasks"][0]
    assert (task["verdict"], task["cause"]) == ("wrong", "the `requires` rejects the test inputs"), task
    assert [(c["status"], c["clause"]) for c in task["failing_cases"]] == [
        ("precondition-violated", "requires n < 10")] * 2
    report = (out / "report.md").read_text()
    section = report.split("## Spec or test?")[1].split("\n## ")[0]
    assert "rejects these inputs" in section and "<code>requires n &lt; 10</code>" in section, section
