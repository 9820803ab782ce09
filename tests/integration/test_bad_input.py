"""Hostile or broken input never ends in a traceback: huge and deeply nested literals, FIFOs and devices
given as files, unwritable output and cache places, option values the engine cannot use, and a step
summary cut at the 1 MiB limit."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot import cli, runner
from bot.audit.dataset import DatasetError, find_json_tests, find_labels, read_json
from bot.cli import main
from bot.config import Config, ConfigError
from bot.dafny.lexer import LexError, tokenize
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.types import (
    MAX_TYPE_NESTING,
    BvT,
    DafnyType,
    IntT,
    RealT,
    SeqT,
    TupleT,
    TypeTooDeep,
    Unsupported,
    parse_type,
)
from bot.dafny.values import MAX_LITERAL_DIGITS, ValueParseError, parse_value
from bot.github.commands import SUMMARY_LIMIT_BYTES, SUMMARY_TRUNCATED, append_summary
from bot.runner import CACHE_UNUSABLE
from bot.testcases.dfy_methods import read_dfy_tests
from bot.testcases.discover import SourceKind, TestSource, read_source, read_text
from bot.testcases.textfiles import NotRegularFile, toml_nesting_line
from bot.testcases.toml_cases import read_toml_cases
from support.paths import ROOT

EXAMPLE = ROOT / "examples" / "shared_elements.dfy"
BIG = "7" * 5000  # past Python's 4,300-digit limit on int <-> str conversion

SPEC = "method Double(x: int) returns (r: int)\n  ensures r == 2 * x\n"


def _fake_verifier(tmp_path: Path, body: str = "print('%%% not a verifier %%%')\n") -> Path:
    script = tmp_path / "dafny"
    script.write_text(
        "#!/usr/bin/env python3\nimport sys\n"
        "if '/version' in sys.argv or '--version' in sys.argv:\n    print('Dafny 2.3.0.10506'); sys.exit(1)\n" + body
    )
    script.chmod(0o755)
    return script


# ---- literals of more than 4,300 digits


@pytest.mark.parametrize(
    ("text", "t", "digits"),
    [(BIG, IntT(), 5000), ("-" + BIG, IntT(), 5000), ("0x" + "f" * 5000, IntT(), 5000),
     ("1." + BIG, RealT(), 5001), (f"[1, {BIG}]", SeqT(IntT()), 5000), (BIG, BvT(8), 5000)],
)
def test_huge_number_literals_are_refused_with_their_length(text: str, t: DafnyType, digits: int) -> None:
    with pytest.raises(ValueParseError, match=rf"literal too long \({digits} digits; at most {MAX_LITERAL_DIGITS}\)"):
        parse_value(text, t)


def test_literals_up_to_the_limit_still_read() -> None:
    assert parse_value("9" * MAX_LITERAL_DIGITS, IntT()).v == 10**MAX_LITERAL_DIGITS - 1  # type: ignore[union-attr]
    assert parse_value("7", BvT(10**30)).v == 7  # type: ignore[union-attr]  # no 2**width computed


def test_malformed_and_endless_literals_are_value_parse_errors() -> None:
    with pytest.raises(ValueParseError, match="malformed number '0x'"):
        parse_value("0x", IntT())
    with pytest.raises(ValueParseError, match="nested more than 100 levels deep"):
        parse_value("(" * 5000 + "1" + ")" * 5000, IntT())
    with pytest.raises(ValueParseError, match="nested more than 100 levels deep"):
        parse_value("-" * 5000 + "1", IntT())
    with pytest.raises(ValueParseError):
        parse_value("(" * 5000 + "1, x", TupleT((IntT(), IntT())))
    # a quotient of long reals grows past what can be printed
    with pytest.raises(ValueParseError, match="real literal too large"):
        parse_value(" / ".join(["0." + "3" * 900] * 10), RealT())


def test_a_huge_literal_in_a_test_method_costs_only_its_own_case(tmp_path: Path) -> None:
    src = SPEC + "method Test() {\n  var a := Double(3);\n  assert a == 6;\n"
    src += "  var b := Double(" + BIG + ");\n  assert b == 1;\n}\n"
    read = read_dfy_tests(parse_file(src, "t.dfy"))
    assert [c.line for c in read.cases] == [4]
    [problem] = read.problems
    assert str(problem).startswith("t.dfy:6: ") and "literal too long (5000 digits" in str(problem)
    assert len(str(problem)) < 400  # the literal is not quoted in full


def test_a_huge_literal_in_the_cli_is_a_problem_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "big.dfy"
    spec.write_text(SPEC + "method Test() {\n  var b := Double(" + BIG + ");\n  assert b == 1;\n}\n")
    fake = _fake_verifier(tmp_path)
    # (only reporting: the method has nothing to decide, which a gate would fail)
    assert main(["score", str(spec), "--dafny", str(fake), "--no-cache", "--format", "json", "--report-only"]) == 0
    [method] = json.loads(capsys.readouterr().out)["methods"]
    [problem] = method["problems"]
    assert problem.startswith(f"{spec}:4: ") and "literal too long (5000 digits" in problem


def test_huge_numbers_in_a_toml_case_file_are_problems_naming_the_line() -> None:
    spec = parse_file(SPEC, "s.dfy")
    as_toml_int = read_toml_cases(f'method = "Double"\n[[case]]\nargs = [{BIG}]\nexpected = 1\n', "s.tests.toml", spec)
    assert not as_toml_int.cases
    assert [str(p) for p in as_toml_int.problems] == [
        f"s.tests.toml:3: not read: a TOML integer literal too long (5000 digits; at most {MAX_LITERAL_DIGITS})"
    ]
    as_text = read_toml_cases(f'method = "Double"\n[[case]]\nargs = ["{BIG}"]\nexpected = 1\n', "s.tests.toml", spec)
    [problem] = as_text.problems
    assert str(problem).startswith("s.tests.toml:2: ") and "literal too long (5000 digits" in str(problem)
    hex_int = read_toml_cases(f'method = "Double"\n[[case]]\nargs = [0x{"f" * 5000}]\nexpected = 1\n', "t", spec)
    assert "too many digits" in str(hex_int.problems[0])
    exponent = read_toml_cases('method = "Double"\n[[case]]\nargs = [1]\nexpected = 1e999999999\n', "t", spec)
    assert "literal too long" in str(exponent.problems[0])  # never written out as a billion digits


# ---- arrays nested about 500 deep


def test_deeply_nested_toml_case_file_is_one_problem_naming_the_file() -> None:
    spec = parse_file(SPEC, "s.dfy")
    text = 'method = "Double"\n[[case]]\nargs = [' + "[" * 500 + "]" * 500 + "]\nexpected = 1\n"
    read = read_toml_cases(text, "s.tests.toml", spec)
    assert [str(p) for p in read.problems] == [
        "s.tests.toml:3: not read: arrays or tables nested more than 100 levels deep"
    ]
    inline = 'method = "Double"\n[[case]]\npost = ' + "{a = " * 600 + "1" + "}" * 600 + "\n"
    assert "nested more than 100" in str(read_toml_cases(inline, "s.tests.toml", spec).problems[0])


def test_toml_nesting_skips_strings_and_comments() -> None:
    assert toml_nesting_line('a = "' + "[" * 200 + '"\n# ' + "[" * 200 + "\nb = '''\n" + "{" * 200 + "'''\n") is None
    assert toml_nesting_line("a = 1\nb = " + "[" * 101) == 2


def test_deeply_nested_config_file_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    config = tmp_path / ".dafny-spec-score.toml"
    env = {"GITHUB_WORKSPACE": str(tmp_path), "INPUT_MODE": "audit", "INPUT_AUDIT_ROOT": "."}
    for text in ("specs = " + "[" * 500 + "]" * 500, "specs = " + "{a = " * 600 + "1" + "}" * 600):
        config.write_text(text + "\n")
        with pytest.raises(ConfigError, match=re.escape(f"{config}:1: not valid TOML: arrays or tables nested")):
            Config.from_environ(env)
    for text, what in ((f"mutants = {BIG}", "too many digits"), (f"seed = 0x{'f' * 5000}", "too large"),
                       ("min-correctness = 0x" + "f" * 300, "out of range")):
        config.write_text(text + "\n")
        with pytest.raises(ConfigError, match=what):
            Config.from_environ(env)


# ---- command-line options the engine cannot use


@pytest.mark.parametrize(
    "argv",
    [["--time-limit", "0"], ["--time-limit", "-3"], ["--time-limit", "100000"], ["--tolerance", "nan"],
     ["--tolerance", "inf"], ["--tolerance", "-0.1"], ["--tolerance", "abc"]],
)
@pytest.mark.parametrize("command", ["score", "audit"])
def test_unusable_option_values_are_argparse_errors(
    command: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, str(EXAMPLE), *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[0]}" in err and "Traceback" not in err


def test_output_into_a_missing_folder_creates_it(tmp_path: Path) -> None:
    spec = tmp_path / "s.dfy"
    spec.write_text(SPEC)
    out = tmp_path / "new" / "deeper" / "r.json"
    assert main(["score", str(spec), "--dafny", str(_fake_verifier(tmp_path)), "--no-cache", "--format", "json",
                 "--output", str(out), "--report-only"]) == 0
    # the report is there: the spec without tests, with no case, and nothing known on every input from the fake
    methods = json.loads(out.read_text())["methods"]
    assert [(m["cases"], m["everywhere"]["status"]) for m in methods] == [([], "unknown")]


def test_output_that_cannot_be_written_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.dfy"
    spec.write_text(SPEC)
    blocker = tmp_path / "file"
    blocker.write_text("")
    fake = str(_fake_verifier(tmp_path))
    for out in (blocker / "r.json", tmp_path):
        assert main(["score", str(spec), "--dafny", fake, "--no-cache", "--output", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --output {out}: ") and "Traceback" not in err


def test_cache_dir_that_cannot_be_used_scores_without_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    fake = _fake_verifier(tmp_path)
    for cache in (blocker, blocker / "sub"):
        out = tmp_path / "r.json"
        argv = ["score", str(EXAMPLE), "--dafny", str(fake), "--format", "json", "--output", str(out), "--report-only"]
        assert main([*argv, "--cache-dir", str(cache)]) == 0
        err = capsys.readouterr().err
        assert CACHE_UNUSABLE.split("{")[0] in err and str(cache) in err and "scoring without a cache" in err
        assert '"status": "error"' in out.read_text()  # scored all the same


def test_cache_writes_that_fail_later_warn_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = runner.usable_cache(tmp_path / "cache")
    assert cache is not None
    (tmp_path / "cache").rmdir()
    (tmp_path / "cache").write_text("")  # the folder became a file mid-run
    from bot.symbolic.program import Outcome, Result

    cache.put("a" * 16, Result(Outcome.VERIFIED, "", 0.1))
    cache.put("b" * 16, Result(Outcome.VERIFIED, "", 0.1))
    assert capsys.readouterr().err.count("scoring without a cache") == 1


def test_audit_out_that_cannot_be_written_fails_before_verifying(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    dataset = ROOT / "tests" / "data" / "audit" / "DS"
    fake = _fake_verifier(tmp_path, "raise SystemExit('the verifier must not run')\n")
    argv = ["audit", str(dataset), "--labels", "none", "--dafny", str(fake), "--no-cache"]
    assert main([*argv, "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err
    assert f"error: --out {blocker / 'out'}: cannot create the output folder" in err and "Traceback" not in err


# ---- files that are not regular files


def _run_cli(*args: str, memory_mb: int = 512) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # /dev/zero read to the end would eat all memory before the fix
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, capture_output=True, text=True, timeout=60,
        preexec_fn=limit,
    )


def test_a_fifo_or_a_device_as_a_spec_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.dfy"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a FIFO"), (Path("/dev/zero"), "a device"), (tmp_path, "a folder")):
        run = _run_cli("score", str(path), "--dafny", sys.executable)
        assert run.returncode == 2, run.stderr
        assert f"{path}: cannot read: {kind}" in run.stderr and "Traceback" not in run.stderr


def test_a_fifo_given_with_tests_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.tests.toml"
    os.mkfifo(fifo)
    run = _run_cli("score", str(EXAMPLE), "--tests", str(fifo), "--dafny", sys.executable)
    assert run.returncode == 2, run.stderr
    assert f"{fifo}: not a regular file" in run.stderr


def test_test_file_reader_refuses_fifos(tmp_path: Path) -> None:
    fifo = tmp_path / "x.tests.toml"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="a FIFO"):
        read_text(str(fifo))
    crlf = tmp_path / "crlf.dfy"
    crlf.write_bytes(b"a\r\nb\rc\n")
    assert read_text(str(crlf)) == "a\nb\nc\n"  # universal newlines, as Path.read_text


# ---- the last line of defence


def test_an_unexpected_exception_is_one_line_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(args: object) -> int:
        raise RuntimeError("first line\nsecond line")

    monkeypatch.setattr(cli, "cmd_score", boom)
    assert main(["score", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: first line second line" in err and "Traceback" not in err

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_score", interrupted)
    assert main(["score", str(EXAMPLE)]) == 130


def test_sigterm_stops_a_run_as_ctrl_c_does(tmp_path: Path) -> None:
    """`kill` or `timeout` (SIGTERM) mid-run (bot/signals.py): as for Ctrl-C, the verifier run in flight is answered,
    no other starts, and the tool says so in one line, exit 143. Before, Python's default ended it at once, with no
    exit handler run: the verifier's server folders stayed behind."""
    run_log = tmp_path / "runs"
    dafny = tmp_path / "dafny"  # each run hangs 3 s (its settings set here: the verifier inherits no environment)
    dafny.write_text(f"#!/bin/sh\nexport FAKE_DAFNY_HANG=3 FAKE_DAFNY_RUNLOG={run_log}\n"
                     f'exec "{sys.executable}" "{ROOT / "tests" / "fake_dafny" / "dafny2_hang.py"}" "$@"\n')
    dafny.chmod(0o755)
    # one verifier run at a time: every run started has written its time before the signal
    run = subprocess.Popen([sys.executable, "-m", "bot", "score", str(EXAMPLE), "--dafny", str(dafny), "--no-cache",
                            "--jobs", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not run_log.exists() and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert run_log.exists(), run.communicate(timeout=30)
        signalled = time.time()
        run.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        run.send_signal(signal.SIGTERM)  # a second one, while the run in flight ends, does not cut that short
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 143, err
    assert err.splitlines()[-1] == "terminated" and err.count("terminated") == 1 and "Traceback" not in err
    lines = run_log.read_text().split()
    started = [float(line) for line in lines if line != "end"]
    assert started and max(started) < signalled  # no verifier run began after it
    assert lines.count("end") == len(started)  # and the one in flight was answered, not left running


def test_sigterm_to_the_action_stops_the_servers_it_started_early_and_leaves_nothing_behind(
        tmp_path: Path, dafny_command: str) -> None:
    """SIGTERM to entrypoint.py: the servers it started early (bot/github/early.py) are stopped and their folders
    removed. Its first request to GitHub never gets an answer here, so that the stop comes once the early start made
    its folders, whatever the machine's load."""
    scratch, workspace = tmp_path / "tmp", tmp_path / "repo"
    scratch.mkdir()
    workspace.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {
        "number": 7, "base": {"sha": "a" * 40, "repo": {"full_name": "o/r"}},
        "head": {"sha": "b" * 40, "repo": {"full_name": "o/r"}}}}))
    with socket.socket() as silent:  # accepts connections (the kernel's backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path)), "TMPDIR": str(scratch),
               "GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r",
               "GITHUB_WORKSPACE": str(workspace), "GITHUB_API_URL": f"http://127.0.0.1:{silent.getsockname()[1]}",
               "INPUT_GITHUB_TOKEN": "ghs_secret_token_value", "DAFNY_SPEC_SCORE_CACHE": str(tmp_path / "cache")}
        run = subprocess.Popen([sys.executable, str(ROOT / "entrypoint.py")], cwd=workspace, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 60
            while not any(p.name.startswith("specscore-server-") for p in scratch.iterdir()) \
                    and time.monotonic() < deadline and run.poll() is None:
                time.sleep(0.05)
            assert any(scratch.iterdir()), run.communicate(timeout=30)
            run.send_signal(signal.SIGTERM)
            out, _ = run.communicate(timeout=60)
        finally:
            run.kill()
    assert run.returncode == 143, out
    assert out.splitlines()[-1].startswith("::error::dafny-spec-score was terminated before it finished"), out
    assert "ghs_secret_token_value" not in out
    # the servers stopped and the tool's folders removed at exit (mono's own probe file, CASESENSITIVETEST..., may
    # stay when a server is killed while mono starts)
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("specscore-")]


# ---- the step summary at its limit


def test_a_cut_summary_closes_its_details_and_says_it_was_cut(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("", encoding="utf-8")
    row = "| a.dfy | M | 1.00 | 0.80 |\n"
    rows = row * (SUMMARY_LIMIT_BYTES // len(row))
    markdown = f"## Scores\n\n<details><summary>Outer</summary>\n\n<details open>\n\n{rows}\n</details>\n</details>\n"
    assert append_summary(summary, markdown)
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT_BYTES
    assert text.count("<details") == text.count("</details>") == 2
    assert text.endswith("\n</details>\n</details>\n" + SUMMARY_TRUNCATED)  # the note is outside the fold
    assert "was cut" in SUMMARY_TRUNCATED


def test_a_cut_summary_closes_an_open_code_fence(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("", encoding="utf-8")
    markdown = "<details>\n\n```\n" + "x = 1\n" * SUMMARY_LIMIT_BYTES + "```\n</details>\n"
    assert append_summary(summary, markdown)
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT_BYTES
    assert text.endswith("x = 1\n```\n\n</details>\n" + SUMMARY_TRUNCATED)


# ---- crashes found by fuzzing (tests/unit/test_fuzz.py), each pinned down here


def test_non_ascii_digits_are_no_numbers() -> None:
    # `str.isdigit` holds for `²` and `١`, which int() then refuses: Dafny's digits are ASCII
    for text in ("²", "١", "1²"):
        with pytest.raises(ValueParseError):
            parse_value(text, IntT())
    assert [t.kind.value for t in tokenize("x²")] == ["ident"]


def test_a_char_escape_does_not_run_across_lines() -> None:
    # `'\U{1F600` closed by a `}'` on a later line made one token of both lines: every later line was off
    with pytest.raises(LexError, match="line 1, column 10: malformed character literal"):
        tokenize("var c := '\\U{1F600\nx}'; var d := 1;")
    assert tokenize("'\\U{1F600}'")[0].text == "'\\U{1F600}'"


def _nested(kind: str, n: int) -> str:
    return {
        "seq": "seq<" * n + "int" + ">" * n,
        "array": "array<" * n + "int" + ">" * n,
        "parens": "(" * n + "int" + ")" * n,
        "tuple": "(int, " * n + "int" + ")" * n,
        "mixed": "seq<(" * n + "int" + ")>" * n,
    }[kind]


@pytest.mark.parametrize("kind", ["seq", "array", "parens", "tuple", "mixed"])
def test_a_type_nested_too_deeply_is_a_type_error_not_a_recursion_error(kind: str) -> None:
    with pytest.raises(TypeTooDeep, match=f"type nested more than {MAX_TYPE_NESTING} levels deep"):
        parse_type(_nested(kind, 5000))
    levels = 2 if kind == "mixed" else 1  # `seq<(` is two levels
    with pytest.raises(TypeTooDeep):
        parse_type(_nested(kind, MAX_TYPE_NESTING // levels + 1))
    assert not isinstance(parse_type(_nested(kind, MAX_TYPE_NESTING // levels)), Unsupported)


def test_a_type_too_deep_in_a_signature_is_a_parse_error_naming_the_line() -> None:
    deep = _nested("seq", 3000)
    with pytest.raises(DafnyParseError, match=r"f\.dfy:2:13: type nested more than 100 levels deep"):
        parse_file(f"// a spec\nmethod M(x: {deep}) returns (r: int)\n", "f.dfy")
    with pytest.raises(DafnyParseError, match=r"f\.dfy:1:30: type nested more than 100 levels deep"):
        parse_file(f"method M(x: int) returns (r: {_nested('tuple', 3000)})\n", "f.dfy")
    with pytest.raises(DafnyParseError, match=r"f\.dfy:1:21: type nested more than 100 levels deep"):
        parse_file(f"function F(x: int): {_nested('parens', 3000)}\n", "f.dfy")
    [decl] = parse_file(f"method M(x: {_nested('seq', 100)}) returns (r: int)\n", "f.dfy").decls
    assert not isinstance(decl.params[0].type, Unsupported)


def test_a_type_too_deep_in_an_array_literal_is_a_value_parse_error() -> None:
    with pytest.raises(ValueParseError, match="array<int> literal: element type nested more than 100 levels deep"):
        parse_value(f"new {_nested('seq', 5000)}[0]", parse_type("array<int>"))


@pytest.mark.parametrize("kind", ["seq", "parens", "tuple"])
def test_a_spec_with_a_type_too_deep_fails_in_the_cli_naming_file_and_line(tmp_path: Path, kind: str) -> None:
    spec = tmp_path / "deep.dfy"
    signature = f"method M(x: {_nested(kind, 5000)}) returns (r: int)"
    spec.write_text(f"// a spec\n{signature}\n  ensures r == 0\n{{ r := 0; }}\n")
    run = _run_cli("score", str(spec), "--dafny", str(_fake_verifier(tmp_path)))
    assert run.returncode == 2, run.stderr
    assert f"{spec}:2:13: type nested more than 100 levels deep" in run.stderr
    assert "Traceback" not in run.stderr and "Recursion" not in run.stderr and "unexpected" not in run.stderr


# ---- a dataset's JSON nested too deeply or with numbers too long for Python


def _dataset(tmp_path: Path, tagged: str) -> Path:
    root = tmp_path / "DS"
    (root / "src").mkdir(parents=True)
    (root / "src" / "task_id_1.dfy").write_text(SPEC + "{ r := 2 * x; }\n")
    (root / "review-tagged.json").write_text(tagged)
    return root


@pytest.mark.parametrize(
    ("tagged", "message"),
    [("[" * 100_000, "arrays or objects nested too deeply"),
     ('[{"note": "x", "task_id": 1, "deep": ' + "[" * 100_000 + "]" * 100_000 + "}]",
      "arrays or objects nested too deeply"),
     ('[{"note": "x", "task_id": ' + BIG + "}]",
      "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits")],
    ids=["open-brackets", "deep-in-a-record", "huge-integer"],  # the texts would be the ids (and fill the env)
)
def test_a_label_file_python_cannot_hold_is_a_dataset_error(tmp_path: Path, tagged: str, message: str) -> None:
    root = _dataset(tmp_path, tagged)
    labels = root / "review-tagged.json"
    assert find_labels(root) == labels  # maybe the label file: reported, not skipped
    with pytest.raises(DatasetError, match=re.escape(f"{labels}: cannot read JSON: {message}")):
        read_json(labels)
    run = _run_cli("audit", str(root), "--out", str(tmp_path / "out"), "--dafny", str(_fake_verifier(tmp_path)),
                   "--no-cache")
    assert run.returncode == 2, run.stderr
    assert f"error: {labels}: cannot read JSON: {message}" in run.stderr
    assert "Traceback" not in run.stderr and "unexpected" not in run.stderr
    assert "set_int_max_str_digits" not in run.stderr  # Python's advice to programmers


def test_a_test_json_python_cannot_hold_is_skipped_when_searched_and_an_error_when_read(tmp_path: Path) -> None:
    root = _dataset(tmp_path, "[]")
    deep = root / "mbpp_tests.json"
    deep.write_text('{"1": {"test_cases": ' + "[" * 100_000 + "}}")
    assert find_json_tests(root) is None
    with pytest.raises(DatasetError, match=re.escape(f"{deep}: cannot read JSON: arrays or objects nested too deeply")):
        read_json(deep)


def test_modules_nested_too_deeply_are_a_parse_error_naming_the_line() -> None:
    with pytest.raises(DafnyParseError, match=r"f\.dfy:65:\d+: declarations nested more than 64 levels deep"):
        parse_file("module A {\n" * 65 + "}" * 65, "f.dfy")
    assert parse_file("module A {\n" * 64 + "method M() {}\n" + "}" * 64, "f.dfy").decls[0].name == "M"


def test_lone_surrogates_from_json_escapes_never_reach_reports() -> None:
    spec = parse_file((ROOT / "tests/data/tests_io/mbpp/src/task_id_7.dfy").read_text(), "task_id_7.dfy")
    doc = json.loads((ROOT / "tests/data/tests_io/mbpp/tests.json").read_text())
    doc["7"]["method_signature"] = "\udc80" + doc["7"]["method_signature"]
    doc["7"]["test_cases"]["test_\udc81"] = "var a := new int[] [1];\nvar r := last(a, 1);\nassert r == 0; // \udc82"
    text = json.dumps(doc)  # ASCII, with `\udc80` escapes
    read = read_source(TestSource(SourceKind.MBPP_JSON, "t.json", "7"), text, spec)
    printed = [str(p) for p in read.problems] + [c.name + c.text for c in read.cases]
    assert printed and all(s.encode("utf-8") for s in printed)
    assert any("\ufffd" in s for s in printed)  # the test name `test_\udc81`



def test_a_huge_bitvector_width_is_an_unsupported_type() -> None:
    from bot.dafny.types import BvT, Unsupported, parse_type

    assert parse_type("bv32") == BvT(32)
    assert isinstance(parse_type("bv99999999999"), Unsupported)


def test_an_unreadable_audit_json_is_a_usage_error_before_verifying(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ds" / "src").mkdir(parents=True)
    (tmp_path / "ds" / "src" / "task_id_1.dfy").write_text("method M(x: int) returns (r: int) ensures r == x\n")
    bad = tmp_path / "bad.json"
    bad.write_text("[" * 100_000)
    code = main(["audit", str(tmp_path / "ds"), "--tests", "json", "--json", str(bad), "--out",
                 str(tmp_path / "out"), "--dafny", str(tmp_path / "no-such-dafny")])
    err = capsys.readouterr().err
    assert code == 2 and "bad.json" in err and "nested too deeply" in err and "defect" not in err
