"""The command line: exit codes, messages naming the file, and a verifier that misbehaves."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bot.cli import NO_TESTS_NOTICE, NOTHING_TO_SCORE, main
from support.paths import ROOT

EXAMPLE = ROOT / "examples" / "shared_elements.dfy"


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "nope.dfy")]) == 2
    err = capsys.readouterr().err
    assert "nope.dfy" in err and "cannot read" in err


def test_malformed_dafny_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.dfy"
    bad.write_text("method M(x: int) returns (r: int)\n  ensures r == x\n{\n  r := x;\n")
    assert main(["score", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "fix the Dafny syntax" in err


def test_unknown_method_and_missing_tests_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--method", "Nope", "--dafny", sys.executable]) == 2
    assert "no method named `Nope`" in capsys.readouterr().err
    assert main(["score", str(EXAMPLE), "--tests", str(tmp_path / "t.toml")]) == 2
    assert "no such test file" in capsys.readouterr().err


def test_missing_verifier_says_how_to_install(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--dafny", str(tmp_path / "no-dafny")]) == 2
    assert "scripts/setup.sh" in capsys.readouterr().err


def _fake_verifier(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "dafny"
    script.write_text(
        "#!/usr/bin/env python3\nimport sys\n"
        "if '/version' in sys.argv or '--version' in sys.argv:\n    print('Dafny 2.3.0.10506'); sys.exit(1)\n" + body
    )
    script.chmod(0o755)
    return script


def test_crashing_verifier_gives_error_statuses_not_a_crash(tmp_path: Path) -> None:
    fake = _fake_verifier(tmp_path, "print('Unhandled Exception: System.NullReferenceException'); sys.exit(134)\n")
    out = tmp_path / "r.json"
    argv = ["score", str(EXAMPLE), "--dafny", str(fake), "--no-cache", "--format", "json", "--output", str(out)]
    assert main(argv) == 1  # nothing decided: the gate is not met (README "The `score` command")
    assert main([*argv, "--report-only"]) == 0
    m = json.loads(out.read_text())["methods"][0]
    assert [c["status"] for c in m["cases"]] == ["error"] * 3
    assert "NullReferenceException" in m["cases"][0]["message"]
    assert m["correctness"] is None and m["completeness"] is None


def test_garbage_output_is_an_error_with_the_text(tmp_path: Path) -> None:
    fake = _fake_verifier(tmp_path, "print('%%% not a verifier %%%')\n")
    out = tmp_path / "r.json"
    argv = ["score", str(EXAMPLE), "--dafny", str(fake), "--no-cache", "--format", "json", "--output", str(out)]
    assert main(argv) == 1
    assert main([*argv, "--report-only"]) == 0
    case = json.loads(out.read_text())["methods"][0]["cases"][0]
    assert case["status"] == "error" and "not a verifier" in case["message"]


def test_nothing_to_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.dfy"
    spec.write_text("lemma L(x: int)\n  ensures x + 0 == x\n{}\n")  # no test, and no method with outputs
    fake = _fake_verifier(tmp_path, "sys.exit(0)\n")
    assert main(["score", str(spec), "--dafny", str(fake), "--no-cache"]) == 1  # nothing measured: not a pass
    assert NOTHING_TO_SCORE in capsys.readouterr().err
    assert main(["score", str(spec), "--dafny", str(fake), "--no-cache", "--report-only"]) == 0
    assert NOTHING_TO_SCORE in capsys.readouterr().err


def test_a_spec_without_tests_is_said_once_and_fails_the_default_gate(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.dfy"
    spec.write_text("method M(x: int) returns (r: int)\n  ensures r == x\n")
    fake = _fake_verifier(tmp_path, "sys.exit(0)\n")  # says nothing: the background is not shown to verify
    out = tmp_path / "r.json"
    argv = ["score", str(spec), "--dafny", str(fake), "--no-cache", "--format", "json", "--output", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count(NO_TESTS_NOTICE) == 1 and NOTHING_TO_SCORE not in err
    m = json.loads(out.read_text())["methods"][0]
    # nothing was proved of the background: the every-input question has no answer, whatever the fake said
    assert m["method"] == "M" and m["cases"] == [] and m["everywhere"]["status"] == "unknown"
    assert main([*argv, "--report-only"]) == 0
    assert main([*argv, "--require-determined"]) == 1  # unknown is not determined


@pytest.mark.dafny
def test_one_bad_file_keeps_the_others(dafny_command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.dfy"
    bad.write_text("method {")
    out = tmp_path / "r.json"
    argv = ["score", str(EXAMPLE), str(bad), "--format", "json", "--output", str(out), "--cache-dir", str(tmp_path)]
    assert main(argv) == 2
    assert "bad.dfy" in capsys.readouterr().err
    assert json.loads(out.read_text())["methods"][0]["correctness"] == 1.0
