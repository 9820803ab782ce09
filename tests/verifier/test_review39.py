"""Hostile review of the background trust, the test reading and the gate: each spec below was scored with a false
verdict (a verdict resting on an axiom nobody named), shown here against what real Dafny 2.3 does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.dafny.lexer import significant, tokenize
from bot.symbolic.trust import attributes
from support.dafny import verify_text

pytestmark = pytest.mark.dafny


def _score(tmp_path: Path, name: str, text: str, tests: str) -> dict[str, Any]:
    spec = tmp_path / name
    spec.write_text(text)
    (tmp_path / f"{name}.tests.dfy").write_text(tests.replace("SPEC", name))
    out = tmp_path / f"{name}.json"
    main(["score", str(spec), "--tests", str(tmp_path / f"{name}.tests.dfy"), "--format", "json", "--output",
          str(out), "--cache-dir", str(tmp_path / "c"), "--report-only"])
    report: dict[str, Any] = json.loads(out.read_text())
    return report


# --- an attribute written `{ :name}` (a space or a comment after the brace) -------------------------------------------

SPACED = ("function method {:verify false} Half(x: int): int ensures Half(x) == x + 1 { x / 2 }\n"
          "const { :ok} H: int -> int := Half\n"
          "method Twice(x: int) returns (r: int)\n  ensures r == H(x)\n{\n  r := x + 1;\n}\n")
TESTS = 'include "SPEC"\nmethod TestTwice() {\n  var r := Twice(3);\n  expect r == 4;\n}\n'


@pytest.mark.parametrize("spelling", ["{ :verify false}", "{/* c */:verify false}", "{\n:verify false}"])
def test_dafny_skips_a_helper_whatever_the_space_in_its_attribute(dafny_command: str, tmp_path: Path,
                                                                  spelling: str) -> None:
    text = (f"function {spelling} Dbl(x: int): int ensures Dbl(x) == x + 1 {{ 2 * x }}\n"
            "method Boom() ensures false { assert Dbl(3) == 4 && Dbl(3) == 6; }\n")
    out = verify_text(dafny_command, tmp_path / "spaced.dfy", text)
    assert "finished with 1 verified, 0 errors" in out, out[-2000:]  # `ensures false` proved: the helper skipped
    tokens = significant(tokenize(text))
    assert [(a.name, a.allowed) for a in attributes(tokens, text)] == [("verify", False)]


def test_a_constant_with_a_spaced_attribute_still_reaches_its_helper(dafny_command: str, tmp_path: Path) -> None:
    # before: the constant was not read at all (its name was not found after `{ :ok}`), so `Half` was not reached:
    # background "verified", no axiom, the case verified and pinned on Half's false `ensures`
    assert "2 verified, 0 errors" in verify_text(dafny_command, tmp_path / "plain.dfy", SPACED)
    method = _score(tmp_path, "spaced.dfy", SPACED, TESTS)["methods"][0]
    named = {(a["name"], a["why"]) for a in method["axioms"]}
    assert ("Half", "{:verify false}") in named and ("H", "{ :ok}") in named, method["axioms"]


# --- a member a class inherits from its trait, where a top-level declaration has the same name ---------------------

def _inherits(trait_h: str) -> str:
    return ("function H(x: int): int { x }\n"
            f"trait Tr {{\n  {trait_h}\n}}\n"
            "class C extends Tr {\n  constructor () {}\n  method Inc(x: int) returns (r: int)\n"
            "    ensures r == H(x)\n  {\n    r := x + 1;\n  }\n}\n")


INHERIT_TESTS = ('include "SPEC"\nmethod TestInc() {\n  var c := new C();\n  var r := c.Inc(3);\n'
                 '  expect r == 3;\n}\n')


def test_an_inherited_member_is_not_read_as_the_top_level_one(dafny_command: str, tmp_path: Path) -> None:
    # in C, `H` is Tr's (x + 1, in a form no evaluator computes): Dafny proves r == 4 and r != 3; the harness read
    # the clause at top level, where `H` is the other one (x): the case "verified, pinned" on an output the spec
    # rejects
    text = _inherits("function H(x: int): int { if forall y: int :: y + 0 == y then x + 1 else x }")
    truth = text + "method Truth() { var c := new C(); var r := c.Inc(3); assert r == 4 && r != 3; }\n"
    assert "2 verified, 0 errors" in verify_text(dafny_command, tmp_path / "truth.dfy", truth)
    method = _score(tmp_path, "inherits.dfy", text, INHERIT_TESTS)["methods"][0]
    assert [c["status"] for c in method["cases"]] == ["unsupported"], method["cases"]
    assert method["pinned"] == 0 and method["correctness"] is None


def test_an_inherited_helper_is_reached_past_a_top_level_one_of_its_name(dafny_command: str, tmp_path: Path) -> None:
    # Tr.H is skipped ({:verify false}); the background was "verified" with no axiom: only the top-level H was reached
    text = _inherits("function {:verify false} H(x: int): int ensures H(x) == x + 1 { x }")
    assert "1 verified, 0 errors" in verify_text(dafny_command, tmp_path / "truth.dfy", text)
    method = _score(tmp_path, "inherits.dfy", text, INHERIT_TESTS)["methods"][0]
    assert ("Tr.H", "{:verify false}") in {(a["name"], a["why"]) for a in method["axioms"]}, method["axioms"]


def test_a_helper_of_an_opened_module_is_reached_past_a_top_level_one_of_its_name(tmp_path: Path) -> None:
    # inside module A the top-level F is not visible: `F` is the opened M's, which Dafny skips
    from bot.dafny.parser import parse_file
    from bot.symbolic.background import axioms

    text = ("function F(x: int): int { x }\nmodule M {\n  function {:verify false} F(x: int): int ensures F(x) == 0"
            " { x }\n}\nmodule A {\n  import opened M\n  method Inc(x: int) returns (r: int) ensures r == F(x)\n}\n")
    file = parse_file(text, "opened.dfy")
    method = next(d for d in file.decls if d.name == "Inc")
    assert [(a.name, a.why) for a in axioms(method, [file])] == [("M.F", "{:verify false}")]


# --- a check hidden in a block's condition or in a method given the output ------------------------------------------

def test_a_check_in_a_condition_is_not_passed_over(dafny_command: str, tmp_path: Path) -> None:
    # the spec admits 5 only (Dafny proves it), and the test's `if r == 5 { expect false; }` then fails: the case was
    # "verified, pinned" on `expect r == 5` alone
    spec = "method Five(x: int) returns (r: int) ensures r == 5 { r := 5; }\n"
    truth = spec + "method Truth() { var r := Five(1); assert r == 5; }\n"
    assert "2 verified, 0 errors" in verify_text(dafny_command, tmp_path / "truth.dfy", truth)
    tests = ('include "SPEC"\nmethod TestFive() {\n  var r := Five(1);\n  expect r == 5;\n'
             '  if r == 5 { expect false; }\n}\n')
    report = _score(tmp_path, "five.dfy", spec, tests)["methods"][0]
    assert report["cases"] == [] and report["pinned"] == 0 and "`if r == 5`" in report["problems"][0]
