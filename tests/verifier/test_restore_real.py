"""The restoring suggestion of a weakened spec, with the real verifier: base's deleted or loosened clause is
offered back only when it is proved to reject the witness and to accept every test."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot import runner
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV
from bot.runner import TestFiles, build_jobs
from bot.settings import Settings
from bot.symbolic.program import Outcome
from bot.symbolic.results import Relation, SpecChange
from bot.symbolic.rounds import score_methods
from bot.symbolic.spec_change_run import Pair, spec_changes
from bot.symbolic.suggest.restore import Wanted, _witness, restored_job, restored_lines
from support.paths import DATA

pytestmark = pytest.mark.dafny

ABS = DATA / "spec_change"
TESTS = """
method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var b := Abs(5);
  expect b == 5;
}
"""
# base's second clause is wrong for negative inputs (a test says so); head deletes it and fixes that test
WRONG_BASE = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == x
{
  r := x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var c := Abs(-2);
  expect c == 2;
}
"""
# the second clause loosened in place: `r == -x` became `r >= 0`
LOOSENED = """method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r >= 0
{
  r := if x < 0 then -x else x;
}
""" + TESTS


def change(base: str, head: str, tmp_path: Path) -> SpecChange:
    settings = Settings.defaults()
    verifier = runner.open_verifier(settings, cache_dir=tmp_path / "cache")
    jobs = []
    for version, text in (("base", base), ("head", head)):
        root = tmp_path / version
        root.mkdir()
        (root / "abs.dfy").write_text(text, encoding="utf-8")
        jobs.append(build_jobs(root, ["abs.dfy"], TestFiles()).jobs)
    b, h = jobs
    options = settings.score_options()
    scores = score_methods([*b, *h], verifier.engine, verifier.dialect, options)
    (found,) = spec_changes([Pair(b[0], h[0], scores[0], scores[1])], verifier.engine, verifier.dialect, options)
    return found


def applied(head: str, c: SpecChange) -> str:
    """Head's text with the suggestion applied as GitHub would: its lines replace the `ensures` lines."""
    rows = head.split("\n")
    at = [k for k, row in enumerate(rows) if row.lstrip().startswith("ensures")]
    return "\n".join([*rows[: at[0]], *c.restore, *rows[at[-1] + 1:]])


def test_a_deleted_clause_is_restored_and_the_restored_text_is_base(tmp_path: Path) -> None:
    base, head = (ABS / "abs_base.dfy").read_text(), (ABS / "abs_weaker.dfy").read_text()
    c = change(base, head, tmp_path)
    assert (c.relation, c.accepted_by) == (Relation.WEAKER, "head") and c.inputs.startswith("x = -"), c
    assert c.restore == ("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==> r == -x")
    assert applied(head, c) == base


def test_a_restoration_its_rescoring_proved_well_formed_asks_no_check_of_its_spec_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the rescoring's background check checks the restored method's own clauses (rounds.py `_background_checks`):
    # a check of the spec alone would ask them again; where the rescoring did not prove them it is still asked (the
    # ill-formed suggestions of test_suggest_real.py)
    import bot.symbolic.suggest.search as search

    alone: list[str] = []
    check = search._check

    def recorded(job: Any, dialect: Any, keep_body: bool = False) -> Any:
        alone.append(job.method.name)
        return check(job, dialect, keep_body)

    monkeypatch.setattr(search, "_check", recorded)
    base, head = (ABS / "abs_base.dfy").read_text(), (ABS / "abs_weaker.dfy").read_text()
    c = change(base, head, tmp_path)
    assert c.restore == ("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==> r == -x")
    assert alone == []


def test_a_loosened_clause_is_restored_in_place(tmp_path: Path) -> None:
    base = (ABS / "abs_base.dfy").read_text()
    c = change(base, LOOSENED, tmp_path)
    assert c.weakens and c.restore == ("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==> r == -x"), c
    assert applied(LOOSENED, c) == base


def test_a_clause_a_test_refutes_is_not_offered_back(dafny_command: str, tmp_path: Path) -> None:
    """Base's deleted clause rejects the expected output of a test head accepts (Abs(-2) == 2): restoring it
    cannot accept every test, so there is no suggestion, though the weakening stands (and fixes that test)."""
    truth = tmp_path / "truth.dfy"
    truth.write_text("method T() { assert !(-2 < 0 ==> 2 == -2); }\n", encoding="utf-8")
    ran = subprocess.run([dafny_command, "/compile:0", "/nologo", str(truth)], capture_output=True, text=True,
                         check=False)
    assert ran.returncode == 0 and "1 verified, 0 errors" in ran.stdout, ran.stdout
    head = WRONG_BASE.replace("  ensures x < 0 ==> r == x\n", "").replace("r := x;", "r := if x < 0 then -x else x;")
    c = change(WRONG_BASE, head, tmp_path)
    assert c.weakens and c.fixes_test, c
    assert c.restore == ()
    # the edit itself was there to make: it is the proof that refuses it
    at_base, at_head = parse_file(WRONG_BASE, "abs.dfy"), parse_file(head, "abs.dfy")
    edit = restored_lines(at_base.methods()[0], at_head.methods()[0], at_head)
    assert edit is not None and edit[2] == ("  ensures x >= 0 ==> r == x", "  ensures x < 0 ==> r == x")


def test_the_witness_program_proves_rejection_only_where_the_clause_is_back(tmp_path: Path) -> None:
    """On x = -1, r = 0: head's own spec is not proved to reject it (it accepts it), the restored one is."""
    settings = Settings.defaults()
    verifier = runner.open_verifier(settings, cache_dir=tmp_path / "cache")
    jobs = {}
    for version, name in (("base", "abs_base.dfy"), ("head", "abs_weaker.dfy")):
        root = tmp_path / version
        root.mkdir()
        (root / "abs.dfy").write_text((ABS / name).read_text(), encoding="utf-8")
        (jobs[version],) = build_jobs(root, ["abs.dfy"], TestFiles()).jobs
    made = restored_job(jobs["head"], jobs["base"].method)
    assert made is not None
    score = score_methods([jobs["head"]], verifier.engine, verifier.dialect, settings.score_options())[0]
    w = Wanted(jobs["base"], jobs["head"], score, (IntV(-1),), (IntV(0),))
    outcomes = []
    for job in (jobs["head"], made[0]):
        programs = _witness(job, w, verifier.dialect)
        assert programs is not None
        results = verifier.engine.run(list(programs))
        outcomes.append([results[p].outcome for p in programs])
    assert Outcome.VERIFIED not in outcomes[0] and outcomes[1] == [Outcome.VERIFIED], outcomes
