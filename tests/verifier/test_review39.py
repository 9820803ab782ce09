"""Hostile review of the background trust, the test reading and the gate: each spec below was scored with a false
verdict (a verdict resting on an axiom nobody named), shown here against what real Dafny 2.3 does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.dafny.lexer import significant, tokenize
from bot.symbolic.trust import attributes

pytestmark = pytest.mark.dafny


def _dafny(dafny_command: str, path: Path, text: str) -> str:
    path.write_text(text)
    done = subprocess.run([dafny_command, "/compile:0", "/nologo", str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    return done.stdout


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
    out = _dafny(dafny_command, tmp_path / "spaced.dfy", text)
    assert "finished with 1 verified, 0 errors" in out, out[-2000:]  # `ensures false` proved: the helper skipped
    tokens = significant(tokenize(text))
    assert [(a.name, a.allowed) for a in attributes(tokens, text)] == [("verify", False)]


def test_a_constant_with_a_spaced_attribute_still_reaches_its_helper(dafny_command: str, tmp_path: Path) -> None:
    # before: the constant was not read at all (its name was not found after `{ :ok}`), so `Half` was not reached:
    # background "verified", no axiom, the case verified and pinned on Half's false `ensures`
    assert "2 verified, 0 errors" in _dafny(dafny_command, tmp_path / "plain.dfy", SPACED)
    method = _score(tmp_path, "spaced.dfy", SPACED, TESTS)["methods"][0]
    named = {(a["name"], a["why"]) for a in method["axioms"]}
    assert ("Half", "{:verify false}") in named and ("H", "{ :ok}") in named, method["axioms"]
