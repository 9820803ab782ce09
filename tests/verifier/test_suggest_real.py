"""Verified suggestions with the real verifier: one weak spec per template gets its clause, offered only with
what was proved; a spec no candidate can fix gets none; the running example gets the converse, pinned up to
order."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic.program import Program, Result
from bot.verifier.engine import Engine
from support.paths import DATA, ROOT

pytestmark = pytest.mark.dafny


def score(tmp_path: Path, spec: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir",
                 str(tmp_path / "cache"), "--report-only", *args]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.fixture(scope="module")
def weak(dafny_command: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    report = score(tmp_path_factory.mktemp("suggest"), DATA / "suggest" / "weak.dfy")
    return {m["method"]: m for m in report["methods"]}


@pytest.mark.parametrize(("method", "clause", "template"), [
    ("HasZero", "ensures (exists i :: 0 <= i < |s| && s[i] == 0) ==> r", "converse"),
    ("Doubled", "ensures |r| == |s|", "length"),
    ("Sum", "ensures r == a + b", "tight-bound"),
    ("Second", "ensures r == b", "equals-input"),
    ("Unique", "ensures forall i, j :: 0 <= i < j < |r| ==> r[i] != r[j]", "distinct"),
])  # fmt: skip
def test_each_template_fixes_its_weak_spec(weak: dict[str, dict[str, Any]], method: str, clause: str,
                                           template: str) -> None:
    m = weak[method]
    assert m["completeness"] is not None and (m["completeness"] < 1.0 or m["not_pinned"]), m
    best = m["suggestions"][0]
    assert (best["clause"], best["template"]) == (clause, template), m["suggestions"]
    # what was proved: every case accepted, and at least one wrong output the spec accepted (all of them) rejected
    assert best["cases"] == len(m["cases"]) and best["rejected"] >= 1
    assert best["pinned"] + best["pinned_up_to_order"] == best["pin_checked"] == len(m["cases"])


def test_iff_is_offered_beside_the_converse(weak: dict[str, dict[str, Any]]) -> None:
    clauses = [s["clause"] for s in weak["HasZero"]["suggestions"]]
    assert "ensures r <==> (exists i :: 0 <= i < |s| && s[i] == 0)" in clauses


def test_a_spec_no_candidate_fixes_gets_no_suggestion(weak: dict[str, dict[str, Any]]) -> None:
    twice = weak["Twice"]
    assert twice["completeness"] < 1.0 and twice["suggestions"] == []  # never an unproved one


def test_the_running_example_gets_the_converse_pinned_up_to_order(tmp_path: Path) -> None:
    m = score(tmp_path, ROOT / "examples" / "shared_elements.dfy")["methods"][0]
    best = m["suggestions"][0]
    assert best["clause"] == "ensures forall x :: InArray(a, x) && InArray(b, x) ==> x in result"
    assert best["pinned_up_to_order"] == best["pin_checked"] == 3 and best["rejected"] == 9


def test_suggest_false_searches_nothing(tmp_path: Path, dafny_command: str) -> None:
    m = score(tmp_path, DATA / "suggest" / "weak.dfy", "--method", "Sum", "--no-suggest")["methods"][0]
    assert m["suggestions"] == [] and m["completeness"] < 1.0


SUGGESTER = '''import json, sys
method = json.load(open(sys.argv[-1]))
assert method["method"] == "Twice" and method["returns"] == [{"name": "r", "type": "int"}], method
assert method["ensures"] == ["r >= x"] and method["wrong_outputs_accepted"], method
print("thinking...")
print("ensures r == x + 1")  # false on the tests: dropped before any proof
print("ensures r == 2 * x;")
print("ensures r >= 0")  # true on the tests, but it rejects no wrong output the spec accepted: never offered
'''


def test_an_external_suggesters_clauses_pass_the_same_proofs(tmp_path: Path, dafny_command: str) -> None:
    script = tmp_path / "suggest.py"
    script.write_text(SUGGESTER)
    m = score(tmp_path, DATA / "suggest" / "weak.dfy", "--method", "Twice", "--suggester",
              f"{sys.executable} {script}")["methods"][0]
    assert [(s["clause"], s["template"]) for s in m["suggestions"]] == [("ensures r == 2 * x", "suggester")]
    assert m["suggestions"][0]["implementation"] == "verifies"  # Twice's body: r := 2 * x


def test_the_implementation_is_checked_against_the_best_suggestion(weak: dict[str, dict[str, Any]]) -> None:
    assert weak["Sum"]["suggestions"][0]["implementation"] == "verifies"  # r := a + b with `ensures r == a + b`
    assert weak["Second"]["suggestions"][0]["implementation"] == "verifies"
    assert weak["Unique"]["suggestions"][0]["implementation"] == "no body"


def test_the_body_check_goes_alone_beside_the_rescoring_when_that_proves_the_spec_well_formed(
        tmp_path: Path, dafny_command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # one round trip at the end of the scoring, for the body alone
    runs: list[list[Program]] = []
    spans: list[list[float]] = []  # per run: when it was asked and when it answered
    real = Engine.run

    def recorded(self: Engine, programs: Sequence[Program], *rest: Any) -> dict[Program, Result]:
        runs.append(list(programs))
        span = [time.monotonic()]
        spans.append(span)
        try:
            return real(self, programs, *rest)
        finally:
            span.append(time.monotonic())

    monkeypatch.setattr(Engine, "run", recorded)
    import bot.symbolic.suggest.search as search

    alone: list[bool] = []  # per check of the method's own spec made: whether it keeps the body
    check = search._check

    def made(job: Any, dialect: Any, keep_body: bool = False) -> Any:
        alone.append(keep_body)
        return check(job, dialect, keep_body)

    monkeypatch.setattr(search, "_check", made)
    m = score(tmp_path, DATA / "suggest" / "weak.dfy", "--method", "Sum")["methods"][0]
    assert m["suggestions"][0]["clause"] == "ensures r == a + b"
    assert m["suggestions"][0]["implementation"] == "verifies"
    body = [k for k, run in enumerate(runs) if any(p.checks and "r := a + b;" in p.prelude for p in run)]
    assert len(body) == 1  # asked once
    # the strengthened spec's well-formedness: proved by its rescoring's background check, which checks the method's
    # own clauses too (with the file's proofs kept), so no check of the spec alone is made, beside it or after
    again = [k for k, run in enumerate(runs) if k != body[0] and any("ensures r == a + b" in p.prelude for p in run)]
    rescoring = [p for k in again for p in runs[k] if p.checks]
    assert rescoring and all("Sum" in p.checks for p in rescoring)
    # the method's one candidate: its body, which depends on the clause alone, is checked beside the rescoring's
    # rounds, not after their last one
    assert spans[body[0]][0] < spans[again[-1]][1]
    assert alone == [True, True]  # the body's check only (keep_body), made beside the rescoring and looked up after
    assert [p.checks for p in runs[body[0]]] == [("Sum",)]


def suggesting(tmp_path: Path, *clauses: str) -> str:
    """A suggester command that proposes these clauses, whatever the method."""
    script = tmp_path / "propose.py"
    script.write_text("".join(f"print({('ensures ' + c)!r})\n" for c in clauses))
    return f"{sys.executable} {script}"


def test_a_clause_dafny_would_reject_as_ill_formed_is_never_offered(tmp_path: Path, dafny_command: str) -> None:
    # `a[0]` with no `|a| > 0`: the tests' inputs are not empty, so the harness proves it; Dafny rejects the spec
    spec = tmp_path / "first.dfy"
    spec.write_text("method First(a: seq<int>) returns (r: int)\n  ensures r in a || |a| == 0\n{ r := a[0]; }\n"
                    "method T1() { var r := First([3, 4, 5]); expect r == 3; }\n"
                    "method T2() { var r := First([7, 1]); expect r == 7; }\n")
    m = score(tmp_path, spec, "--suggester", suggesting(tmp_path, "r == a[0]"))["methods"][0]
    assert m["completeness"] < 1.0 and m["suggestions"] == []


def test_when_the_best_ranked_clause_is_ill_formed_the_next_ones_body_is_checked(tmp_path: Path,
                                                                                dafny_command: str) -> None:
    # both clauses pin the output; the shorter ranks first but Dafny rejects it (`a[0]` on an empty `a`): its body
    # check, asked beside the well-formedness checks, is not the one reported; the guarded clause's is asked after
    spec = tmp_path / "first.dfy"
    spec.write_text("method First(a: seq<int>) returns (r: int)\n  ensures r in a || |a| == 0\n"
                    "{ if |a| > 0 { r := a[0]; } else { r := 0; } }\n"
                    "method T1() { var r := First([3, 4, 5]); expect r == 3; }\n"
                    "method T2() { var r := First([7, 1]); expect r == 7; }\n")
    m = score(tmp_path, spec, "--suggester", suggesting(tmp_path, "r == a[0]", "|a| > 0 ==> r == a[0]"))["methods"][0]
    assert [s["clause"] for s in m["suggestions"]] == ["ensures |a| > 0 ==> r == a[0]"]
    assert m["suggestions"][0]["implementation"] == "verifies"


def test_a_namesake_that_fails_refuses_the_clause_as_the_check_of_the_spec_alone_does(tmp_path: Path,
                                                                                      dafny_command: str) -> None:
    # `Other.Sum` is ill-formed; the check of Sum's spec alone verifies every procedure named Sum and refuses the
    # clause; the rescoring's background reads Sum's own only, so a file with a namesake still asks the check alone
    spec = tmp_path / "sum.dfy"
    spec.write_text("method Sum(a: int, b: int) returns (r: int)\n  ensures r <= a + b\n{ r := a + b; }\n"
                    "module Other {\n  method Sum(s: seq<int>) returns (r: int)\n    ensures r == s[0]\n}\n"
                    "method T1() { var r := Sum(2, 3); expect r == 5; }\n"
                    "method T2() { var r := Sum(-1, 7); expect r == 6; }\n")
    m = score(tmp_path, spec)["methods"][0]
    assert m["method"] == "Sum" and m["completeness"] < 1.0 and m["suggestions"] == [], m["suggestions"]
    alone = tmp_path / "alone.dfy"  # the same without the namesake: the clause is offered
    alone.write_text(spec.read_text().replace("module Other {\n  method Sum(s: seq<int>) returns (r: int)\n"
                                              "    ensures r == s[0]\n}\n", ""))
    m = score(tmp_path, alone)["methods"][0]
    assert [s["clause"] for s in m["suggestions"]] == ["ensures r == a + b"]


def test_a_clause_resting_on_an_unchecked_helper_is_never_offered(tmp_path: Path, dafny_command: str) -> None:
    # Half's `ensures` is false for odd x and trusted (no body): any clause about Half is provable of the tests
    spec = tmp_path / "half.dfy"
    spec.write_text("function Half(x: int): int\n  ensures Half(x) * 2 == x\n"
                    "method Halve(x: int) returns (r: int)\n  requires x >= 0\n  ensures r <= x\n"
                    "method T1() { var r := Halve(4); expect r == 2; }\n"
                    "method T2() { var r := Halve(10); expect r == 5; }\n")
    m = score(tmp_path, spec, "--suggester", suggesting(tmp_path, "r == Half(x)", "r * 2 == x"))["methods"][0]
    assert [s["clause"] for s in m["suggestions"]] == ["ensures r * 2 == x"]  # the one resting on nothing


def test_the_lean_rescoring_searches_no_witness_and_suggests_as_each_does(
    weak: dict[str, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A suggestion is ranked by what the pins prove; a witness of the strengthened spec changes none of it, so the
    lean strategy's rescoring confirms no other output, and its suggestions are `each`'s, field for field."""
    import bot.symbolic.suggest.search as search

    seen: list[bool] = []
    rescore = search.score_methods

    def recording(jobs: Any, engine: Any, dialect: Any, options: Any, *more: Any, **named: Any) -> Any:
        if not options.suggest:  # the rescoring (the first call scores the spec itself)
            seen.append(options.witnesses)
        return rescore(jobs, engine, dialect, options, *more, **named)

    monkeypatch.setattr(search, "score_methods", recording)
    # the server's z3 keeps the prelude with `lean` only; the checks whose counterexamples are read get it from a
    # reset either way (bot/verifier/prelude_reuse.py), so the wrong outputs a suggestion rejects are the same
    (tmp_path / "each").mkdir()
    each = score(tmp_path / "each", DATA / "suggest" / "weak.dfy", "--strategy", "each")
    assert seen == [True]  # `each` keeps its witness search: the measurement's old strategy
    seen.clear()
    (tmp_path / "lean").mkdir()
    lean = score(tmp_path / "lean", DATA / "suggest" / "weak.dfy")
    assert seen == [False]
    assert {m["method"]: m["suggestions"] for m in each["methods"]} == {
        m["method"]: m["suggestions"] for m in lean["methods"]} == {
        name: m["suggestions"] for name, m in weak.items()}
