"""Names in a spec mean what Dafny means in the spec's own scope: a harness for a static member of a class runs at top
level, where a top-level declaration of the same name would take the place of the class's own (the case below was
`refuted`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

SPEC = """\
class C {
  static function Inc(x: int): int { x + 1 }
  static method Add1(x: int) returns (r: int)
    ensures r == Inc(x)
  {
    r := x + 1;
  }
  static const K: int := 5
  static method AddK(x: int) returns (r: int)
    ensures r == x + K
  {
    r := x + 5;
  }
  static method Shadowed(x: int) returns (r: int)
    ensures forall Inc :: Inc == x ==> r == Inc + 1
  {
    r := x + 1;
  }
}

function Inc(x: int): int { x + 2 }
const K: int := 100
const Limit: int := 7

class D {
  static method Cap(x: int) returns (r: int)
    ensures r == if x > Limit then Limit else x
  {
    r := if x > 7 then 7 else x;
  }
}

method Add1Test()
{
  var r := C.Add1(1);
  expect r == 2;
  var s := C.Shadowed(1);
  expect s == 2;
  var k := C.AddK(1);
  expect k == 6;
  var c := D.Cap(9);
  expect c == 7;
}
"""


@pytest.mark.dafny
def test_a_class_members_spec_means_its_own_members(dafny_command: str, tmp_path: Path) -> None:
    spec = tmp_path / "c.dfy"
    spec.write_text(SPEC)
    out = tmp_path / "r.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path / "k"),
                 "--report-only"]) == 0
    methods = {m["method"]: m for m in json.loads(out.read_text())["methods"]}
    assert methods["C.Add1"]["correctness"] == 1.0 and methods["C.Add1"]["completeness"] == 1.0
    # a constant of the class is the class's (the top-level `K` is 100); one the class does not declare is the
    # top level's
    assert methods["C.AddK"]["correctness"] == 1.0 and methods["D.Cap"]["correctness"] == 1.0
    # a member's name bound by the clause itself cannot be qualified safely: said, not guessed
    (case,) = methods["C.Shadowed"]["cases"]
    assert case["status"] == "unsupported" and "names both a member of C" in case["message"]


NESTED = """\
module A {
  function Mag(x: int): int { if x < 0 then -x else x }
  module B {
    function Twice(x: int): int { 2 * x }
    method Double(x: int) returns (r: int)
      ensures r == Twice(x)
    {
      r := 2 * x;
    }
    method Half(x: int) returns (r: int)
      ensures x >= 0 ==> r + r == x
  }
}

method Tests()
{
  var d := A.B.Double(3);
  expect d == 6;
  var w := A.B.Double(4);
  expect w == 9;
}
"""


@pytest.mark.dafny
def test_a_method_of_a_nested_module_is_scored_in_its_own_scope(dafny_command: str, tmp_path: Path) -> None:
    """Dafny 2.3 rejects `import opened A.B` (a qualified import needs a name) and finds `A` in a named one only
    once imported: each test case of a method in a nested module was an error, and its every-input question
    unknown."""
    spec = tmp_path / "n.dfy"
    spec.write_text(NESTED)
    out = tmp_path / "r.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path / "k"),
                 "--report-only", "--no-suggest"]) == 0
    methods = {m["method"]: m for m in json.loads(out.read_text())["methods"]}
    double = methods["A.B.Double"]
    assert [c["status"] for c in double["cases"]] == ["verified", "refuted"], double["cases"]
    assert double["everywhere"]["status"] == "determined", double["everywhere"]
    half = methods["A.B.Half"]["everywhere"]  # no test: on every input only, silent on odd and negative inputs
    assert half["status"] == "not-determined", half
