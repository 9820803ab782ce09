"""The command line's gate: the defaults `--help` states are the ones applied, `--report-only` only reports, a gate
that cannot be measured fails with the reason, input that cannot be read is exit 2, and errors come first, in words.

Exit codes (README "The `score` command"): 0 scored and the gate met (or `--report-only`), 1 the gate not met, 2 a
usage or input error. Where a score is needed the verifier is the real one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.runner import read_error
from bot.symbolic.gate import NO_TESTS

CUBE = """method Cube(n: int) returns (r: int)
  ensures r == n * n * n
{
  r := n * n * n;
}
"""
GOOD_TOML = 'method = "Cube"\n[[case]]\nargs = ["2"]\nexpected = "8"\n[[case]]\nargs = ["3"]\nexpected = "27"\n'
FAST = ["--no-suggest", "--mutants", "2"]


def _files(tmp_path: Path, spec: str, toml: str | None = None) -> list[str]:
    path = tmp_path / "cube.dfy"
    path.write_text(spec)
    args = [str(path), "--cache-dir", str(tmp_path / "cache"), *FAST]
    if toml is not None:
        (tmp_path / "cases.toml").write_text(toml)
        args += ["--tests", str(tmp_path / "cases.toml")]
    return args


@pytest.mark.dafny
def test_the_default_thresholds_apply_without_any_gate_flag(dafny_command: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A spec refuted by one of its two tests: `--help` says min-correctness defaults to 1.0, and so it does."""
    args = _files(tmp_path, CUBE, GOOD_TOML.replace('expected = "27"', 'expected = "28"'))
    assert main(["score", *args]) == 1
    err = capsys.readouterr().err
    assert f"gate: {tmp_path / 'cube.dfy'}: Cube: correctness 0.50 < 1.00" in err, err
    # another gate flag does not switch the correctness default off
    assert main(["score", *args, "--min-completeness", "0.8"]) == 1
    assert "correctness 0.50 < 1.00" in capsys.readouterr().err
    assert main(["score", *args, "--report-only"]) == 0
    assert "gate:" not in capsys.readouterr().err
    assert main(["score", *args, "--min-correctness", "0.5"]) == 0


@pytest.mark.dafny
def test_a_spec_that_meets_the_defaults_passes(dafny_command: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", *_files(tmp_path, CUBE, GOOD_TOML)]) == 0
    assert "gate:" not in capsys.readouterr().err


@pytest.mark.dafny
def test_an_ensures_that_does_not_resolve_fails_the_gate_with_the_reason(dafny_command: str, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, CUBE.replace("ensures r == n * n * n", "ensures r == n * n * z"), GOOD_TOML)
    for extra in ([], ["--fail-on-unknown"], ["--min-correctness", "0"]):
        assert main(["score", *args, *extra]) == 1, extra
        err = capsys.readouterr().err
        assert "Cube: nothing decided, so no threshold is met (no case decided: 2 error; first: " in err, err
        assert "unresolved identifier: z" in err, err  # the verifier's reason, whichever program said it
    assert main(["score", *args, "--report-only"]) == 0


@pytest.mark.dafny
def test_a_spec_without_tests_fails_the_gate(dafny_command: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, CUBE)
    assert main(["score", *args]) == 1
    assert f"gate: {tmp_path / 'cube.dfy'}: {NO_TESTS}" in capsys.readouterr().err
    assert main(["score", *args, "--report-only"]) == 0


@pytest.mark.dafny
def test_a_completeness_asked_for_and_not_measurable_fails(dafny_command: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Property checks only (`assert a > 0;`): the spec is proved to give outputs with the property (correctness
    1.00), but a property has no mutants, so no completeness is measured: 0.8 asked for is not met."""
    tests = "method CubeTest()\n{\n  var a := Cube(2);\n  assert a > 0;\n}\n"
    args = _files(tmp_path, CUBE + tests)
    assert main(["score", *args]) == 0  # min-completeness 0: not a completeness gate
    assert main(["score", *args, "--min-completeness", "0.8"]) == 1
    err = capsys.readouterr().err
    assert "Cube: completeness not measured (no case has a mutant to try (a property check states no output to " \
           "mutate)), so min-completeness 0.80 is not met" in err, err


@pytest.mark.parametrize("broken", ['method = "Cube"\n[[case]\nargs = ["2"]\n', "[[case]]\nargs = \n"])
@pytest.mark.parametrize("flags", [[], ["--min-completeness", "0.9", "--fail-on-unknown"], ["--report-only"]])
def test_a_tests_file_that_does_not_parse_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            broken: str, flags: list[str]) -> None:
    args = _files(tmp_path, CUBE, broken)
    assert main(["score", *args, "--dafny", sys.executable, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'cases.toml'}:") and "not valid TOML" in err, err
    assert "fix the test file there, or pass another with --tests" in err and "warning" not in err


def test_a_dfy_tests_file_that_does_not_parse_is_an_input_error(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cube_test.dfy").write_text("method CubeTest() {\n  var a := Cube(2);\n  assert a == \n")
    args = [*_files(tmp_path, CUBE), "--tests", str(tmp_path / "cube_test.dfy"), "--dafny", sys.executable]
    assert main(["score", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'cube_test.dfy'}:") and "cannot read the test file" in err, err


def test_a_spec_that_is_not_utf8_says_so_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "latin1.dfy"
    spec.write_bytes(b"// caf\xe9\n" + CUBE.encode())
    assert main(["score", str(spec), "--dafny", sys.executable]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {spec}: cannot read: not UTF-8 text (byte 0xe9 at offset 6 is not UTF-8); save the file "
                   "as UTF-8\n"), err


def test_a_tests_file_that_is_not_utf8_says_so_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, CUBE)
    (tmp_path / "cases.toml").write_bytes(GOOD_TOML.encode() + b"# \xff\n")
    assert main(["score", *args, "--tests", str(tmp_path / "cases.toml"), "--dafny", sys.executable]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'cases.toml'}: cannot read the test file: not UTF-8 text "
                          "(byte 0xff"), err
    assert "codec" not in err


def test_read_errors_are_words_without_errno() -> None:
    assert read_error(PermissionError(13, "Permission denied", "x.dfy")) == (
        "permission denied; make the file readable to this user (chmod +r) or give another")
    assert read_error(FileNotFoundError(2, "No such file or directory", "x")) == "no such file; check the path"
    assert read_error(OSError(28, "No space left on device")) == "no space left on device"
    assert "Errno" not in read_error(OSError(5, "Input/output error"))


@pytest.mark.parametrize("argv, message", [
    (["--min-correctness", "abc"], "error: argument --min-correctness: 'abc' is not a number; allowed: a number "
                                   "from 0 to 1, e.g. 0.9"),
    (["--format", "pdf"], "error: argument --format: invalid choice: 'pdf'"),
    (["--bogus"], "error: unrecognized arguments: --bogus"),
])
def test_flag_errors_say_the_message_first(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", "x.dfy", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert "usage:" not in err and len(err.splitlines()) == 2 and "--help" in err.splitlines()[1]


def test_report_only_contradicts_a_gate_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, CUBE, GOOD_TOML)
    for flag in (["--min-correctness", "1"], ["--min-completeness", "0.5"], ["--fail-on-unknown"],
                 ["--allow-axioms"]):
        assert main(["score", *args, "--report-only", *flag, "--dafny", sys.executable]) == 2
        err = capsys.readouterr().err
        assert err == f"error: --report-only applies no gate, and {flag[0]} asks for one; drop one of them\n", err
