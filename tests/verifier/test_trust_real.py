"""What Dafny 2.3 really does with each class of trusted input, and what the tool now says of it. Each hostile
spec below scored "verified" before (background verified, every case pinned, no axiom named): an attribute Dafny
skips a helper for, a helper reached only through a constant, a body-less ghost method called from a proof, a
Dafny 4 `expect` in a lemma, a method whose own checking is off."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.symbolic.trust import ALLOWED
from support.dafny import verify_text

pytestmark = pytest.mark.dafny


def _score(tmp_path: Path, name: str, text: str, *args: str, tests: str = "") -> dict[str, Any]:
    spec = tmp_path / name
    spec.write_text(text)
    more: list[str] = []
    if tests:
        (tmp_path / f"{name}.tests.dfy").write_text(tests)
        more = ["--tests", str(tmp_path / f"{name}.tests.dfy")]
    out = tmp_path / f"{name}.json"
    code = main(["score", str(spec), *more, "--format", "json", "--output", str(out), "--cache-dir",
                 str(tmp_path / "c"), *args])
    report: dict[str, Any] = json.loads(out.read_text())
    report["exit"] = code
    return report


# --- real Dafny: the allow-list leaves checking in place; other attributes switch it off ------------------------------

# one false helper per allowed attribute, the attribute where it is written in practice
ALLOWED_FALSE = {
    "opaque": "function {:opaque} A1(x: int): int ensures A1(x) == x + 1 { 2 * x }",
    "fuel": "function {:fuel 2, 3} A2(x: int): int ensures A2(x) == x + 1 { 2 * x }",
    "timeLimit": "function {:timeLimit 20} A3(x: int): int ensures A3(x) == x + 1 { 2 * x }",
    "timeLimitMultiplier": "function {:timeLimitMultiplier 2} A4(x: int): int ensures A4(x) == x + 1 { 2 * x }",
    "verify": "function {:verify true} A5(x: int): int ensures A5(x) == x + 1 { 2 * x }",
    "induction": "lemma {:induction false} A6(n: nat) ensures n * 2 == n + 1 { }",
    "trigger": "lemma A7(s: seq<int>) ensures forall i {:trigger s[i]} :: 0 <= i < |s| ==> s[i] > 0 { }",
    "split_here": "lemma A8(x: int) ensures x * 2 == x + 1 { assert {:split_here} true; }",
}


def test_a_false_helper_with_an_allowed_attribute_is_still_caught(dafny_command: str, tmp_path: Path) -> None:
    assert sorted(ALLOWED_FALSE) == sorted(ALLOWED)
    out = verify_text(dafny_command, tmp_path / "allowed.dfy", "\n".join(ALLOWED_FALSE.values()) + "\n")
    failing = {int(n) for n in re.findall(r"allowed\.dfy\((\d+),\d+\): Error", out)}
    assert failing == set(range(1, len(ALLOWED_FALSE) + 1)), out[-3000:]


@pytest.mark.parametrize("attribute", ["{:selective_checking}", "{:ignore}", "{:inline 1}", "{:verify false}"])
def test_other_attributes_let_a_false_helper_prove_false(dafny_command: str, tmp_path: Path, attribute: str) -> None:
    # the helper's `ensures` says Dbl(3) == 4, its body Dbl(3) == 6: the acceptance of 4 and its rejection both
    # verify, and so does `false`
    text = (f"function {attribute} Dbl(x: int): int ensures Dbl(x) == x + 1 {{ 2 * x }}\n"
            "method Accept() { assert Dbl(3) == 4; }\nmethod Reject() { assert !(Dbl(3) == 4); }\n"
            "method Boom() ensures false { assert Dbl(3) == 4 && Dbl(3) == 6; }\n")
    out = verify_text(dafny_command, tmp_path / "skipped.dfy", text)
    assert re.search(r"finished with [3-9] verified, 0 errors", out), out[-2000:]
    plain = verify_text(dafny_command, tmp_path / "plain.dfy", text.replace(attribute, ""))
    assert "plain.dfy(1," in plain and " 0 errors" not in plain  # without it, the helper's check fails


def test_a_body_less_ghost_method_is_an_axiom_and_const_hides_verify_false(dafny_command: str,
                                                                           tmp_path: Path) -> None:
    ghost = "ghost method Boom() ensures false\nlemma Bad() ensures false { Boom(); }\n"
    out = verify_text(dafny_command, tmp_path / "g.dfy", ghost)
    assert re.search(r"finished with [1-9]\d* verified, 0 errors", out)
    const = ("function method {:verify false} Half(x: int): int ensures Half(x) == x + 1 { x / 2 }\n"
             "const H: int -> int := Half\nlemma Bad() ensures false { assert H(2) == 3 && H(2) == 1; }\n")
    out = verify_text(dafny_command, tmp_path / "k.dfy", const)
    assert re.search(r"finished with [1-9]\d* verified, 0 errors", out)


# --- end to end: the axiom is named, or there is no verdict ----------------------------------------------------------

TWICE = """
method Twice(x: int) returns (r: int)
  ensures r == Dbl(x)
{ r := 2 * x; }
"""
TWICE_TEST = "method TwiceTest()\n{\n  var r := Twice(3);\n  expect r == 4;\n}\n"


@pytest.mark.parametrize("helpers, name, line, why", [
    ("function {:selective_checking} Dbl(x: int): int\n  ensures Dbl(x) == x + 1\n{ 2 * x }\n",
     "Dbl", 1, "{:selective_checking}"),
    ("function {:inline 1} Dbl(x: int): int\n  ensures Dbl(x) == x + 1\n{ 2 * x }\n", "Dbl", 1, "{:inline 1}"),
    ("function method {:verify false} Half(x: int): int\n  ensures Half(x) == x + 1\n{ 2 * x }\n"
     "const H: int -> int := Half\nfunction Dbl(x: int): int { H(x) }\n", "Half", 1, "{:verify false}"),
    ("ghost method Boom()\n  ensures false\nlemma Bad()\n  ensures false\n{ Boom(); }\n"
     "function Dbl(x: int): int { Bad(); 2 * x }\n", "Boom", 1, "body-less ghost method with `ensures`"),
])
def test_a_trusted_helper_is_named_and_fails_the_gate(dafny_command: str, tmp_path: Path, helpers: str,
                                                      name: str, line: int, why: str) -> None:
    # the test expects 4 for Twice(3): the body (and Dafny's own semantics) say 6; only the trusted helper says 4
    report = _score(tmp_path, "twice.dfy", helpers + TWICE, "--min-correctness", "0", tests=TWICE_TEST)
    (m,) = report["methods"]
    assert [(a["name"], a["line"], a["why"]) for a in m["axioms"]] == [(name, line, why)]
    assert m["axioms"][0]["file"] == str(tmp_path / "twice.dfy")
    # the axioms contradict each other on the case: never "verified, pinned"
    assert [c["status"] for c in m["cases"]] == ["inconsistent"] and m["correctness"] is None
    assert report["exit"] != 0


def test_expect_in_a_dafny4_lemma_leaves_no_verdict(dafny_command: str, tmp_path: Path) -> None:
    text = ("ghost function Dbl(x: int): int\n  ensures Dbl(x) == x + 1\n{ Bad(); 2 * x }\n\n"
            "lemma Bad()\n  ensures false\n{\n  expect false;\n}\n" + TWICE)
    report = _score(tmp_path, "lemma4.dfy", text, tests=TWICE_TEST)
    (m,) = report["methods"]
    assert m["background"]["status"] == "unknown"
    assert f"{tmp_path / 'lemma4.dfy'} line 8: `expect` in ghost code (lemma Bad)" in m["background"]["message"]
    assert m["correctness"] is None and all(c["status"] != "verified" for c in m["cases"])


WEAK = "method {:selective_checking} Twice(x: int) returns (r: int)\n  ensures r >= 2 * x\n{ r := 2 * x; }\n"


def test_a_method_whose_own_checking_is_off_gets_no_suggestion(dafny_command: str, tmp_path: Path) -> None:
    tests = "method TwiceTest()\n{\n  var r := Twice(3);\n  expect r == 6;\n}\n"
    off = _score(tmp_path, "weak.dfy", WEAK, "--suggest", tests=tests)["methods"][0]
    on = _score(tmp_path, "plain.dfy", WEAK.replace(" {:selective_checking}", ""), "--suggest",
                tests=tests)["methods"][0]
    # the same weak spec: with its checking on, a clause is suggested and the body is said to verify with it
    assert on["suggestions"] and on["suggestions"][0]["implementation"] == "verifies"
    assert off["suggestions"] == [] and [a["why"] for a in off["axioms"]] == ["{:selective_checking}"]
