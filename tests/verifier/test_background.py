"""Verdicts relative to a checked background: the helpers a spec reaches are verified as written (a false `ensures`
leaves the method without a verdict, and fails the gate), what cannot be checked is named as a trusted axiom (the
gate fails unless `allow-axioms`), and a case whose spec, assumed of the expected output, proves `false` is
`inconsistent`. Each spec below was scored 1.00 (and pinned) before the background was checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.dafny.parser import parse_file
from bot.report.load import methods_from_list
from bot.symbolic.background import axioms, reached, read_check
from bot.symbolic.compare import compare
from bot.symbolic.gate import pr_gate
from bot.symbolic.results import Axiom, BackgroundStatus, Gate, gate_failures
from support.paths import FAKE_DAFNY

FALSE_HELPER = """\
function Bound(n: int): int
  ensures Bound(n) > n && Bound(n) < n
{ n }

function Twice(n: int): int { 2 * n }

method Clamp(x: int) returns (r: int)
  ensures r >= 0 && Bound(x) != 0
{ r := 0; }

method Double(x: int) returns (r: int)
  ensures r == Twice(x)
{ r := 2 * x; }

method Test()
{
  var r := Clamp(5);
  expect r == 0;
  var d := Double(4);
  expect d == 8;
}
"""

CONTRADICTORY_AXIOM = """\
function Norm(x: int): int
  ensures Norm(x) >= 0 && Norm(x) < 0

method Abs(x: int) returns (r: int)
  ensures r >= 0 && Norm(x) == 0
{ r := if x < 0 then -x else x; }

method AbsTest()
{
  var r := Abs(-3);
  expect r == 3;
}
"""

ASSUME_IN_SPEC = """\
method Inc(x: int) returns (r: int)
  ensures assume false; r == x + 1
{ r := x + 1; }

method IncTest()
{
  var r := Inc(1);
  expect r == 2;
}
"""

TRUSTED_BUT_TRUE = """\
function {:verify false} Succ(x: int): int
  ensures Succ(x) == x + 1
{ x + 1 }

lemma SuccMore(x: int)
  ensures Succ(x) > x
{ }

method Next(x: int) returns (r: int)
  ensures r == Succ(x)
{ r := x + 1; }

method NextTest()
{
  var r := Next(1);
  expect r == 2;
}
"""


def score(tmp_path: Path, name: str, text: str, *args: str) -> dict[str, Any]:
    spec = tmp_path / name
    spec.write_text(text)
    out = tmp_path / f"{name}.json"
    code = main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path / "c"),
                 *args])
    report: dict[str, Any] = json.loads(out.read_text())
    report["exit"] = code
    return report


def method(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [m for m in report["methods"] if m["method"] == name]
    return found


# --- pure: what a spec reaches, and what is trusted ---------------------------------------------------------------


def test_reach_is_transitive_and_by_name() -> None:
    f = parse_file(FALSE_HELPER + "predicate P(x: int) { Q(x) }\npredicate Q(x: int) { x > 0 }\n"
                   "method M(x: int) returns (r: bool) ensures r == P(x)\n", "f.dfy")
    assert [d.name for _, d in reached(f.find("M"), [f])] == ["P", "Q"]  # type: ignore[arg-type]
    assert [d.name for _, d in reached(f.find("Clamp"), [f])] == ["Bound"]  # type: ignore[arg-type]
    assert reached(f.find("Test"), [f]) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("text, why", [
    ("function F(x: int): int\n  ensures F(x) > x\n", "body-less function with `ensures`"),
    ("lemma L(x: int)\n  ensures x * x >= 0\n", "body-less lemma with `ensures`"),
    ("function {:verify false} F(x: int): int { x }\n", "{:verify false}"),
    ("function {:axiom} F(x: int): int { x }\n", "{:axiom}"),
    ("function {:extern} F(x: int): int { x }\n", "{:extern}"),
    ("function F(x: int): int { assume x > 0; x }\n", "`assume` in its body"),
])
def test_each_kind_of_trusted_declaration_is_named(text: str, why: str) -> None:
    f = parse_file(text + "method M(x: int) returns (r: int)\n  ensures r == F(x)\n  ensures L(x) == L(x)\n", "s.dfy")
    (axiom,) = axioms(f.find("M"), [f])  # type: ignore[arg-type]
    assert axiom.why == why and axiom.line == 1 and axiom.file == "s.dfy"


def test_checked_or_harmless_declarations_are_not_axioms() -> None:
    f = parse_file("function F(x: int): int\nfunction {:verify true} G(x: int): int { x }\n"
                   "function {:opaque} H(x: int): int\n  ensures H(x) == x\n{ x }\n"
                   "method M(x: int) returns (r: int)\n  ensures r == F(x) + G(x) + H(x)\n", "s.dfy")
    assert axioms(f.find("M"), [f]) == ()  # type: ignore[arg-type]
    own = parse_file(ASSUME_IN_SPEC, "s.dfy")
    assert axioms(own.find("Inc"), [own]) == (Axiom("Inc", 2, "s.dfy", "`assume` in its spec"),)  # type: ignore[arg-type]


# --- with the real verifier --------------------------------------------------------------------------------------


@pytest.mark.dafny
def test_a_helper_whose_ensures_is_false_leaves_no_verdict(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "clamp.dfy", FALSE_HELPER)
    clamp, double = method(report, "Clamp"), method(report, "Double")
    assert clamp["background"]["status"] == "failed" and "Bound: line 1:" in clamp["background"]["message"]
    assert [(c["status"], c["reason"]) for c in clamp["cases"]] == [("unknown", "background")]
    assert clamp["correctness"] is None and clamp["cases"][0]["mutants"] == []
    # the other method of the file reaches only a helper that verifies: its verdicts stand
    assert double["background"] == {"status": "verified", "message": ""}
    assert double["correctness"] == 1.0 and double["completeness"] == 1.0
    # the gate: always a failure, whatever allow-unscored says
    (head_clamp, _) = methods_from_list([clamp, double], "head")
    assert head_clamp.background is BackgroundStatus.FAILED
    assert any("do not verify" in f for f in gate_failures([head_clamp], Gate(0.0, 0.0)))
    verdict = pr_gate(compare([head_clamp], []), Gate(0.0, 0.0), allow_unscored=True)
    assert not verdict.passed and "do not verify (Bound: line 1:" in verdict.failures[0]
    assert score(tmp_path, "clamp2.dfy", FALSE_HELPER, "--min-correctness", "0")["exit"] != 0


@pytest.mark.dafny
def test_a_contradictory_axiom_makes_the_case_inconsistent(dafny_command: str, tmp_path: Path) -> None:
    report = score(tmp_path, "abs.dfy", CONTRADICTORY_AXIOM)
    m = method(report, "Abs")
    assert m["axioms"] == [{"name": "Norm", "file": str(tmp_path / "abs.dfy"), "line": 1,
                            "why": "body-less function with `ensures`"}]
    assert [c["status"] for c in m["cases"]] == ["inconsistent"] and m["correctness"] is None
    assert m["cases"][0]["mutants"] == [] and m["cases"][0]["determinacy"] is None


@pytest.mark.dafny
def test_assume_in_an_ensures_is_named_and_caught(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, "inc.dfy", ASSUME_IN_SPEC), "Inc")
    assert [a["why"] for a in m["axioms"]] == ["`assume` in its spec"]
    assert [c["status"] for c in m["cases"]] == ["inconsistent"]


@pytest.mark.dafny
def test_trusted_axioms_keep_their_verdicts_but_fail_the_gate_unless_allowed(dafny_command: str,
                                                                              tmp_path: Path) -> None:
    report = score(tmp_path, "next.dfy", TRUSTED_BUT_TRUE, "--min-correctness", "1")
    m = method(report, "Next")
    assert m["background"]["status"] == "verified" and m["correctness"] == 1.0
    assert [(a["name"], a["why"]) for a in m["axioms"]] == [("Succ", "{:verify false}")]
    assert report["exit"] != 0
    allowed = score(tmp_path, "next2.dfy", TRUSTED_BUT_TRUE, "--min-correctness", "1", "--allow-axioms")
    assert allowed["exit"] == 0
    (head,) = methods_from_list([m], "head")
    verdict = pr_gate(compare([head], []), Gate(1.0, 0.0, allow_axioms=True))
    assert verdict.passed and "relative to 1 trusted axiom" in verdict.warnings[0]


@pytest.mark.dafny
def test_a_lemma_whose_proof_fails_is_caught_once_reached(dafny_command: str, tmp_path: Path) -> None:
    text = """\
function Sq(x: int): int { x * x }

lemma SqGrows(x: int)
  requires x > 1
  ensures Sq(x) > 2 * x + 5
{ }

predicate Big(x: int) { SqGrows(x); Sq(x) > x }

method Square(x: int) returns (r: int)
  requires x > 1
  ensures r == Sq(x) && Big(x)
{ r := x * x; }

method SquareTest()
{
  var r := Square(3);
  expect r == 9;
}
"""
    m = method(score(tmp_path, "sq.dfy", text), "Square")
    assert m["background"]["status"] == "failed" and "SqGrows" in m["background"]["message"]
    assert [c["reason"] for c in m["cases"]] == ["background"]


# --- the backends and the engine ----------------------------------------------------------------------------------


def test_dafny4_checks_the_whole_file_and_names_the_failing_symbol(tmp_path: Path) -> None:
    import shlex
    import stat
    import sys

    from bot.symbolic.background import BACKGROUND_METHOD, BACKGROUND_NAME
    from bot.symbolic.program import Outcome
    from bot.verifier import Dafny4Backend, VerifierInfo

    fakes = FAKE_DAFNY
    argv_file = tmp_path / "argv.json"
    wrapper = tmp_path / "dafny"
    wrapper.write_text(f"#!/bin/sh\nexport FAKE_DAFNY_ARGV={shlex.quote(str(argv_file))}\n"
                       f'exec "{sys.executable}" "{fakes / "dafny4.py"}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    backend = Dafny4Backend(VerifierInfo((str(wrapper),), "4.4.0", 4), options=None)
    prelude = "lemma Good() {}\nlemma Bad() ensures false {\n  assert false; // fake: Errors\n}\n"
    results = backend.verify_batch(prelude, [(BACKGROUND_NAME, BACKGROUND_METHOD)], 5, checks=("Bad",))
    result = results[BACKGROUND_NAME]
    report = read_check(result.message)
    assert result.outcome is Outcome.REFUTED and report.finished
    assert report.checks == {"Bad": ["line 3: assertion might not hold"], "Good": [""]}
    assert "--filter-symbol" not in json.loads(argv_file.read_text())  # the whole file: one prefix cannot name it
    clean = backend.verify_batch("lemma Good() {}\n", [(BACKGROUND_NAME, BACKGROUND_METHOD)], 5, checks=("Good",))
    assert clean[BACKGROUND_NAME].outcome is Outcome.VERIFIED


def test_the_engine_verifies_a_background_check_alone_and_says_which_declarations() -> None:
    from collections.abc import Collection, Sequence

    from bot.symbolic.program import Outcome, Program, Result
    from bot.verifier import VerifierInfo
    from bot.verifier.engine import Engine

    calls: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    class Backend:
        info = VerifierInfo(("dafny",), "2.3.0.10506", 2)

        def flags_id(self, time_limit: int) -> str:
            return f"fake {time_limit}"

        def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                         models: Collection[str] = frozenset(), checks: Sequence[str] = ()) -> dict[str, Result]:
            calls.append((tuple(n for n, _ in methods), tuple(checks)))
            return {n: Result(Outcome.VERIFIED) for n, _ in methods}

    plain = [Program("P", f"h{i}", f"method h{i}() {{}}") for i in range(3)]
    check = Program("P", "bg", "method bg() {}", checks=("F", "G"))
    results = Engine(Backend(), jobs=1).run([*plain, check])  # type: ignore[arg-type]
    assert all(r.outcome is Outcome.VERIFIED for r in results.values())
    assert sorted(calls) == [(("bg",), ("F", "G")), (("h0", "h1", "h2"), ())]
    # the declarations checked are part of the cache key: another set is another program
    assert check.key("v") != Program("P", "bg", "method bg() {}", checks=("F",)).key("v") != plain[0].key("v")


# --- a guessed expectation may confirm a spec, never refute it ------------------------------------------------------

GUESSED = """\
method Swap(a: int, b: int) returns (result: seq<int>)
  ensures result == [b, a]
{ result := [b, a]; }

method SwapTest()
{
  var e1: seq<int> := [20, 10];
  var res1 := Swap(10, 20);
  print res1;
  var e2: seq<int> := [17, 15];
  var res2 := Swap(17, 15);
  print res2;
}
"""


@pytest.mark.dafny
def test_a_guessed_expectation_confirms_but_never_refutes(dafny_command: str, tmp_path: Path) -> None:
    m = method(score(tmp_path, "swap.dfy", GUESSED), "Swap")
    first, second = m["cases"]
    assert first["status"] == "verified" and "never compared" in first["note"]  # the guess confirmed
    # [17, 15] for Swap(17, 15) is rejected by the spec (it returns [15, 17]): the guess, not the spec, is wrong
    assert (second["status"], second["reason"]) == ("unknown", "guessed-expectation")
    assert "refutes nothing" in second["message"] and m["correctness"] == 1.0


# --- what a hostile review found: each a false 1.00 / pinned before --------------------------------------------------

TWICE = """
method Twice(x: int) returns (r: int)
  ensures r == Dbl(x) + 100
{ r := 2 * x; }

method TwiceTest()
{
  var r := Twice(3);
  expect r == 6;
}
"""


@pytest.mark.parametrize("helpers, status", [
    # a ghost method a lemma calls: its false `ensures` is checked too
    ("ghost method Boom() ensures false { }\nlemma Bad() ensures false { Boom(); }\n"
     "function Dbl(x: int): int ensures Dbl(x) == x + 1 { Bad(); 2 * x }\n", "no verdict"),
    # names Dafny spells otherwise in Boogie (`'` as `_k`)
    ("function Dbl'(x: int): int ensures Dbl'(x) == x + 1 { 2 * x }\n"
     "function Dbl(x: int): int { Dbl'(x) }\n", "no verdict"),
    # a co-lemma, whose only procedure is its prefix lemma's (`L#`)
    ("copredicate P(x: int) { P(x) }\ncolemma L(x: int) ensures false { }\n"
     "function Dbl(x: int): int ensures Dbl(x) == x + 1 { L(x); 2 * x }\n", "no verdict"),
    # a loop without a body in a proof: Dafny trusts it (and warns)
    ("lemma Bad() ensures false {\n  var i := 0;\n  while i != 5 invariant i % 2 == 0\n}\n"
     "function Dbl(x: int): int ensures Dbl(x) == x + 1 { Bad(); 2 * x }\n", "inconsistent"),
    # `{:verify (false)}`
    ("lemma {:verify (false)} Bad() ensures false { }\n"
     "function Dbl(x: int): int ensures Dbl(x) == x + 1 { Bad(); 2 * x }\n", "inconsistent"),
])
@pytest.mark.dafny
def test_hidden_contradictions_are_caught(dafny_command: str, tmp_path: Path, helpers: str, status: str) -> None:
    report = score(tmp_path, "twice.dfy", helpers + TWICE, "--min-correctness", "1", "--allow-axioms")
    m = method(report, "Twice")
    assert m["correctness"] is None and m["completeness"] is None and report["exit"] != 0
    if status == "no verdict":
        assert m["background"]["status"] == "failed"
    else:
        assert [c["status"] for c in m["cases"]] == ["inconsistent"]


@pytest.mark.dafny
def test_a_false_helper_of_the_same_name_in_another_module_is_not_charged(dafny_command: str,
                                                                          tmp_path: Path) -> None:
    text = ("module A {\n  function Dbl(x: int): int ensures Dbl(x) == x + 1 { 2 * x }\n}\n"
            "function Dbl(x: int): int { 2 * x }\n" + TWICE.replace("Dbl(x) + 100", "Dbl(x)"))
    m = method(score(tmp_path, "twice.dfy", text), "Twice")
    assert m["background"]["status"] == "verified" and m["correctness"] == 1.0


def test_a_check_that_did_not_finish_is_never_verified() -> None:
    from bot.symbolic.background import background_status

    f = parse_file("function F(x: int): int ensures F(x) == x { x }\nfunction G(x: int): int ensures G(x) == x "
                   "{ x }\nmethod M(x: int) returns (r: int) ensures r == G(x)\n", "s.dfy")
    m = f.find("M")
    assert m is not None
    # a run cut short with a failure of F only: G was never reported, so M's background is not known
    cut = read_check("check F: failed: line 1: postcondition violation")
    assert background_status(m, [f], cut)[0] is BackgroundStatus.UNKNOWN
    done = read_check("check F: failed: line 1: postcondition violation\ncheck-run: finished")
    # G has a body and an `ensures`: Dafny 2.3 always reports a check of it, so a finished run without one did
    # not check it (an attribute Dafny skips it for, say)
    assert background_status(m, [f], done) == (BackgroundStatus.UNKNOWN, "G: Dafny reported no check of it")
    plain = parse_file("function G(x: int): int { x }\nmethod M(x: int) returns (r: int) ensures r == G(x)\n", "s.dfy")
    assert background_status(plain.decls[1], [plain], done)[0] is BackgroundStatus.VERIFIED  # nothing to prove
    # a crash's output that happens to look like `name: message` is not a check
    assert read_check("Error: out of memory\nG: failed") == read_check("")


@pytest.mark.dafny
def test_a_false_helper_in_an_included_file_is_named_with_its_file(dafny_command: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "helpers.dfy").write_text("function Dbl(x: int): int\n  ensures Dbl(x) == x + 1\n{ 2 * x }\n")
    monkeypatch.chdir(tmp_path)
    report = score(tmp_path, "main.dfy", 'include "helpers.dfy"\n' + TWICE.replace("Dbl(x) + 100", "Dbl(x)"))
    m = method(report, "Twice")
    assert m["background"]["status"] == "failed"
    assert "Dbl: helpers.dfy line 1: postcondition violation" in m["background"]["message"]


@pytest.mark.dafny
def test_an_ill_formed_spec_says_why_nothing_was_proved(dafny_command: str, tmp_path: Path) -> None:
    text = ("function Half(n: int): int\n  requires n % 2 == 0\n{ n / 2 }\n\n"
            "method HalfOf(n: int) returns (r: int)\n  ensures r == Half(n)\n{ r := n / 2; }\n\n"
            "method HalfOfTest()\n{\n  var r := HalfOf(3);\n  expect r == 1;\n}\n")
    m = method(score(tmp_path, "half.dfy", text), "HalfOf")
    (case,) = m["cases"]
    # `Half(3)` is outside its `requires`: the spec is not well-formed there, and the case says so, with the line
    assert case["status"] == "unknown" and "the spec itself is not well-formed: line 6:" in case["message"]
    assert m["background"]["status"] == "verified"  # the helper itself is fine


def test_a_constant_whose_initializer_assumes_is_an_axiom_when_reached() -> None:
    text = ("const K: int := assume false; 5\nconst J: int := assume false; 6\n"
            "function F(x: int): int { x + K }\n"
            "method M(x: int) returns (r: int)\n  ensures r == F(x)\n")
    f = parse_file(text, "s.dfy")
    # K is reached through F; J is named by nothing the spec reaches
    assert axioms(f.find("M"), [f]) == (Axiom("K", 1, "s.dfy", "`assume` in its initializer"),)  # type: ignore[arg-type]


def test_a_type_declared_witness_star_is_an_axiom_when_named() -> None:
    # Dafny 4 syntax (2.3 does not parse it): a value of an empty type proves anything
    text = "type Empty = x: int | false witness *\nmethod M(e: Empty) returns (r: int)\n  ensures r == 1\n"
    f = parse_file(text, "s.dfy")
    (axiom,) = axioms(f.find("M"), [f])  # type: ignore[arg-type]
    assert (axiom.name, axiom.line, axiom.why) == ("Empty", 1, "`witness *`: whether it has values is not checked")
