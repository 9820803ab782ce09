"""The heap as the test leaves it: an array the method modifies whose state after the call the test does not give is
arbitrary after the call in every program, not unchanged. Assuming it unchanged proved a rejection of a correct spec
(the case below was `refuted` before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main

pytestmark = pytest.mark.dafny


def score(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    """The methods of the JSON report of `text` scored as a spec file."""
    spec = tmp_path / "spec.dfy"
    spec.write_text(text)
    out = tmp_path / "r.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path / "c"),
                 "--report-only"]) == 0
    methods: list[dict[str, Any]] = json.loads(out.read_text())["methods"]
    return methods

SPEC = """\
method ZeroFirst(a: array<int>) returns (r: int)
  requires a.Length > 0
  modifies a
  ensures a[0] == 0 && r == old(a[0])
{
  r := a[0];
  a[0] := 0;
}

method ZeroFirstTest()
{
  var a := new int[] [5, 6];
  var r := ZeroFirst(a);
  expect r == 5;
  var b := new int[] [7, 8];
  var s := ZeroFirst(b);
  expect s == 7 && b[..] == [0, 8];
}
"""


def test_an_array_left_open_after_the_call_is_arbitrary(dafny_command: str, tmp_path: Path) -> None:
    open_case, stated = score(tmp_path, SPEC)[0]["cases"]
    # never refuted from an assumption the test did not make; the note says why nothing was proved
    assert open_case["status"] == "unknown" and "`a` after the call is not given" in open_case["note"]
    # the state the test gives is used as given
    assert stated["status"] == "verified" and stated["note"] == ""


ALIAS = """\
method Same(a: array<int>, b: array<int>) returns (same: bool)
  ensures same == (a == b)
{
  same := a == b;
}

method SameTest()
{
  var x := new int[] [1];
  var s := Same(x, x);
  expect s == true;
  var y := new int[] [1];
  var z := new int[] [1];
  var t := Same(y, z);
  expect t == false;
  var w := y;
  var u := Same(y, w);
  expect u == true;
}
"""


def test_arrays_are_as_identical_or_distinct_as_the_test_makes_them(dafny_command: str, tmp_path: Path) -> None:
    (method,) = score(tmp_path, ALIAS)
    # one array passed twice is one array (both were `refuted` when every pair was assumed distinct); arrays
    # allocated apart are distinct; one array under two names (`var w := y;`) is not followed: unreadable
    assert [c["status"] for c in method["cases"]] == ["verified", "verified"]
    assert "`w` and `y` are one array" in method["problems"][0]


SAME_ARRAY = """\
method Same(a: array<int>) returns (r: array<int>)
  ensures r == a
{
  r := a;
}

method Fresh(a: array<int>) returns (r: array<int>)
  ensures fresh(r) && r[..] == a[..]
{
  r := new int[a.Length];
  forall i | 0 <= i < a.Length { r[i] := a[i]; }
}

method SameTest()
{
  var a := new int[] [1, 2];
  var r := Same(a);
  expect r[..] == [1, 2];
  var b := new int[] [3, 4];
  var s := Fresh(b);
  expect s[..] == [3, 4];
  var c := new int[] [5, 6];
  var t := Fresh(c);
  expect t[..] == [5, 7];
}
"""


def test_an_array_output_is_known_by_its_contents_not_assumed_new(dafny_command: str, tmp_path: Path) -> None:
    methods = {m["method"]: m["cases"] for m in score(tmp_path, SAME_ARRAY)}
    # the test gives the contents of `r`, not that it is a new array: `r == a` is not refuted (it was)
    assert [c["status"] for c in methods["Same"]] == ["unknown"]
    # contents still decide: the right ones are accepted (a new array is one with them), wrong ones rejected
    assert [c["status"] for c in methods["Fresh"]] == ["verified", "refuted"]


REFERENCE = """\
method Same(a: array<int>) returns (r: array<int>)
  ensures r == a
{
  r := a;
}

method SameTest()
{
  var a := new int[] [1, 2];
  var r := Same(a);
  expect r == a;
  var e := new int[] [1, 2];
  var s := Same(e);
  var f := new int[] [1, 2];
  expect s == f;
}
"""


def test_reference_and_contents_are_different_expectations(dafny_command: str, tmp_path: Path) -> None:
    (method,) = score(tmp_path, REFERENCE)
    # `r == a` is Dafny's reference equality: the output is that argument, and the spec is proved to accept it
    (case,) = method["cases"]
    assert case["status"] == "verified" and "says which array the output is" in case["note"]
    # `s == f` with an array the call never saw says something no output can be: unreadable, with the reason
    (problem,) = method["problems"]
    assert "compares arrays by reference" in problem


def test_facts_never_take_an_open_array_for_its_state_before_the_call(dafny_command: str, tmp_path: Path) -> None:
    """An array the method changes and the test does not check after the call is arbitrary there: no ground fact
    may read its state before the call as its state after it (that fact was false and the case a hint fault)."""
    (bump,) = score(tmp_path, """method Bump(a: array<int>) returns (changed: bool, n: int)
  modifies a
  ensures forall i :: 0 <= i < a.Length ==> a[i] == old(a[i]) + 1
  ensures changed == (a.Length > 0) && n == a.Length
method T() {
  var b := new int[] [1, 2];
  var c2, n2 := Bump(b);
  assert n2 == 2;
}
""")
    cases = bump["cases"]
    assert [(c["status"], c["reason"]) for c in cases] != [("unknown", "hint-fault")], cases
    assert "hint" not in cases[0]["message"], cases
