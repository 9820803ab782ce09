"""Hostile review of specs without tests (issue 40, part 1), with the real verifier: no spec without tests may be
called determined on every input (nor pass `--require-determined`) unless that is proved on a spec that is
well-formed, rests on no trusted axiom, and says something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main


def _score(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[int, dict[str, dict[str, object]]]:
    spec = tmp_path / name
    spec.write_text(text)
    out = tmp_path / f"{name}.json"
    code = main(["score", name, "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--output", str(out),
                 "--no-suggest", *flags])
    return code, {str(m["method"]): m for m in json.loads(out.read_text())["methods"]}


def _status(m: dict[str, object]) -> str:
    e = m["everywhere"]
    assert isinstance(e, dict)
    return str(e["status"])


# Dafny 2.3 names a module's procedures `_0_A.__default.M` (`_<height>_<module>`): the failed well-formedness
# check of `A.M`'s `ensures` (an index with no `requires` to keep it in range) was read as "nothing to prove"
ILL_FORMED_IN_MODULE = """module A {
  method M(a: seq<int>) returns (r: int)
    ensures r == a[0]
}
"""


@pytest.mark.dafny
def test_an_ill_formed_spec_in_a_module_is_not_determined(dafny_command: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, methods = _score(tmp_path, "ill.dfy", ILL_FORMED_IN_MODULE, "--require-determined")
    assert _status(methods["A.M"]) == "unknown", methods["A.M"]
    assert code == 1
    # the same clause at the top level was always caught: both say the same
    code, methods = _score(tmp_path, "top.dfy", ILL_FORMED_IN_MODULE.replace("module A {", "").replace("}\n", ""),
                           "--require-determined")
    assert _status(methods["M"]) == "unknown" and code == 1
    # a well-formed spec in a module is still asked (and proved determined)
    code, methods = _score(tmp_path, "ok.dfy", ILL_FORMED_IN_MODULE.replace("ensures", "requires |a| > 0 ensures"),
                           "--require-determined")
    assert _status(methods["A.M"]) == "determined" and code == 0


# Specs that state something no output can meet: "determined" holds only because no output is accepted at all
@pytest.mark.dafny
@pytest.mark.parametrize("spec", [
    "method M(x: int) returns (r: int)\n  ensures r > x && r < x\n",
    "method M(x: int) returns (r: int)\n  requires false\n  ensures r >= x\n",
], ids=["unsatisfiable-ensures", "requires-false"])
def test_a_spec_that_accepts_nothing_is_not_determined(dafny_command: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch, spec: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, methods = _score(tmp_path, "vacuous.dfy", spec, "--require-determined")
    assert _status(methods["M"]) == "unknown" and "accepts no output" in str(methods["M"]["everywhere"]), methods["M"]
    assert code == 1


@pytest.mark.dafny
def test_a_case_for_a_missing_method_is_not_hidden_by_an_untested_one(dafny_command: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.tests.toml").write_text('method = "Mx"\n[[case]]\nargs = ["1"]\nexpected = "1"\n')
    code, methods = _score(tmp_path, "c.dfy", "method M(x: int) returns (r: int)\n  ensures r == x\n",
                           "--require-determined")
    err = capsys.readouterr().err
    assert "no method `Mx`" in err, err  # what the tool said before specs without tests were scored
    assert "no test cases found" not in err


# Helpers the verifier never checks, or takes on trust: every one leaves every input unknown (these held)
TRUSTED_HELPERS = {
    "body-less": "function F(x: int): int\n  ensures F(x) == 0\n",
    "extern": "function {:extern} F(x: int): int\n  ensures F(x) == 0\n",
    "selective": "function {:selective_checking} F(x: int): int\n  ensures F(x) == 0\n{ x }\n",
    "ignore": "function {:ignore} F(x: int): int\n  ensures F(x) == 0\n{ x }\n",
    "inline": "function {:inline 3} F(x: int): int\n  ensures F(x) == 0\n{ x }\n",
    "assume-in-body": "function F(x: int): int\n  ensures F(x) == 0\n{ assume false; x }\n",
    "axiom-lemma": "function F(x: int): int { x }\nlemma {:axiom} L(x: int) ensures F(x) == 0\n",
}


@pytest.mark.dafny
@pytest.mark.parametrize("kind", sorted(TRUSTED_HELPERS))
def test_a_trusted_helper_leaves_every_input_unknown(dafny_command: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    uses = "(L(x); r >= F(x) && r <= 0)" if kind == "axiom-lemma" else "r >= F(x) && r <= 0"
    text = TRUSTED_HELPERS[kind] + f"method M(x: int) returns (r: int)\n  ensures {uses}\n"
    code, methods = _score(tmp_path, "t.dfy", text, "--require-determined")
    e = methods["M"]["everywhere"]
    assert isinstance(e, dict) and e["status"] == "unknown" and "trusted axioms" in str(e["reason"]), e
    assert code == 1


@pytest.mark.dafny
def test_a_helper_from_an_included_file_is_checked_too(dafny_command: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "g.dfy").write_text("function {:verify false} G(x: int): int\n  ensures G(x) == 0\n{ x }\n")
    code, methods = _score(tmp_path, "m.dfy", 'include "lib/g.dfy"\nmethod M(x: int) returns (r: int)\n'
                           "  ensures r >= G(x) && r <= 0\n", "--require-determined")
    assert _status(methods["M"]) == "unknown" and code == 1


# A function that does not terminate is an inconsistent axiom (`F(x) == F(x) + 1`): in a module, its failed check
# was reported as `_0_Lib.F`, tied to no declaration, and the background read as verified
NON_TERMINATING_IN_MODULE = """module Lib {
  function F(x: int): int { F(x) + 1 }
}
method M(x: int) returns (r: int)
  ensures r >= x && Lib.F(x) > 0
"""


@pytest.mark.dafny
def test_a_helper_in_a_module_that_does_not_verify_is_not_a_verified_background(
        dafny_command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, methods = _score(tmp_path, "nt.dfy", NON_TERMINATING_IN_MODULE, "--require-determined")
    assert _status(methods["M"]) == "unknown" and code == 1, methods["M"]
    assert methods["M"]["background"] != {"status": "verified", "message": ""}
    # tested: `r >= x` accepts every wrong output above the expected one; on the inconsistent helper every one
    # was "rejected" (completeness 1.00, pinned, determined)
    (tmp_path / "tested.tests.toml").write_text('method = "M"\n[[case]]\nargs = ["1"]\nexpected = "1"\n')
    code, methods = _score(tmp_path, "tested.dfy", NON_TERMINATING_IN_MODULE)
    assert methods["M"]["completeness"] != 1.0 and _status(methods["M"]) != "determined", methods["M"]
    assert code == 1


# A helper the spec does not reach still stands in every program's prelude: a function that does not terminate,
# named by a constant's initializer, is a ground contradiction (`K == F(0)`, `F(0) == F(0) + 1`), and its check is
# never asked (only what the spec reaches is checked)
INCONSISTENT_UNREACHED = """function method F(x: int): int { F(x) + 1 }
const K: int := F(0)
method M(x: int) returns (r: int)
  ensures r >= x
"""


@pytest.mark.dafny
def test_an_inconsistent_prelude_the_spec_does_not_reach_proves_nothing(dafny_command: str, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, methods = _score(tmp_path, "k.dfy", INCONSISTENT_UNREACHED, "--require-determined")
    assert _status(methods["M"]) != "determined", methods["M"]
    assert code == 1


@pytest.mark.dafny
def test_a_vacuous_tested_method_is_not_said_determined(dafny_command: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.tests.toml").write_text('method = "M"\n[[case]]\nargs = ["1"]\nexpected = "1"\n')
    code, methods = _score(tmp_path, "k.dfy", INCONSISTENT_UNREACHED)
    cases = methods["M"]["cases"]
    assert isinstance(cases, list) and [c["status"] for c in cases] == ["vacuous"] and code == 1
    assert _status(methods["M"]) != "determined", methods["M"]


@pytest.mark.dafny
@pytest.mark.parametrize("kind", ["dangling-symlink", "folder"])
def test_a_test_file_that_cannot_be_read_is_not_taken_for_none(dafny_command: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str], kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    tests = tmp_path / "c.tests.toml"
    if kind == "folder":
        tests.mkdir()
    else:
        tests.symlink_to(tmp_path / "gone" / "c.toml")
    code, _ = _score(tmp_path, "c.dfy", "method M(x: int) returns (r: int)\n  ensures r == x\n", "--require-determined")
    err = capsys.readouterr().err
    assert "c.tests.toml" in err and code != 0, err
