"""Hostile review of the every-input questions and of the unread-case gate, with the real verifier: sequence outputs
compared element by element (strings, sequences of sequences) are never "determined" where the spec leaves an
element free, and a shared test file holding cases for two spec files fails neither."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

SEQS = """method Wrap(s: seq<int>) returns (r: seq<seq<int>>)
  ensures |r| == 1 && r[0] == s

method Pick(s: seq<seq<int>>) returns (r: seq<seq<int>>)
  requires |s| > 0
  ensures |r| == 1 && |r[0]| == |s[0]|

method Name(s: string) returns (r: string)
  ensures |r| == |s| + 1 && r[1..] == s

method Greet(s: string) returns (r: string)
  ensures r == "hi " + s
"""


def _everywhere(tmp_path: Path, text: str, *flags: str) -> tuple[int, dict[str, str]]:
    (tmp_path / "s.dfy").write_text(text)
    out = tmp_path / "out.json"
    code = main(["score", "s.dfy", "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--output", str(out),
                 "--no-suggest", *flags])
    return code, {str(m["method"]): str(m["everywhere"]["status"]) for m in json.loads(out.read_text())["methods"]}


@pytest.mark.dafny
def test_nested_and_string_outputs_are_determined_only_where_every_element_is(
        dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, status = _everywhere(tmp_path, SEQS, "--require-determined")
    # an inner element (Pick's r[0][0]) or a first character (Name's r[0]) the spec leaves free: never determined
    assert status["Pick"] != "determined" and status["Name"] != "determined", status
    # where each element is fixed, by an inner sequence's equality or by concatenation, the proof is found
    assert status["Wrap"] == "determined" and status["Greet"] == "determined", status
    assert code == 1  # Pick and Name do not meet require-determined


SHARED = """method = "A"
[[case]]
args = ["1"]
expected = "1"
[[case]]
method = "B"
args = ["1"]
expected = "2"
"""


@pytest.mark.dafny
def test_a_shared_test_file_for_two_spec_files_fails_neither(dafny_command: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.dfy").write_text("method A(x: int) returns (r: int)\n  ensures r == x\n")
    (tmp_path / "b.dfy").write_text("method B(x: int) returns (r: int)\n  ensures r == x + 1\n")
    (tmp_path / "shared.tests.toml").write_text(SHARED)
    code = main(["score", "a.dfy", "b.dfy", "--tests", "shared.tests.toml", "--cache-dir", str(tmp_path / "cache"),
                 "--no-suggest", "--format", "json", "--output", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert "cannot be read" not in err and code == 0, err
    # each case verified under its own method
    methods = {m["method"]: m for m in json.loads((tmp_path / "o.json").read_text())["methods"]}
    assert [c["status"] for c in methods["A"]["cases"]] == ["verified"], methods["A"]
    assert [c["status"] for c in methods["B"]["cases"]] == ["verified"], methods["B"]
    # a case naming a method neither file declares is still a failure
    (tmp_path / "shared.tests.toml").write_text(SHARED.replace('method = "B"', 'method = "Gone"'))
    code = main(["score", "a.dfy", "b.dfy", "--tests", "shared.tests.toml", "--cache-dir", str(tmp_path / "cache"),
                 "--no-suggest"])
    assert code == 1 and "no method `Gone`" in capsys.readouterr().err
