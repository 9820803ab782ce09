"""bot.verifier: the real Dafny where it can show something, fake `dafny` scripts for what it cannot."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import time
from pathlib import Path

import pytest

from bot.dafny.types import IntT, SeqT, parse_type
from bot.dafny.values import CharV, IntV, SeqV
from bot.symbolic.counterexamples import decode
from bot.symbolic.modeltext import split_models
from bot.symbolic.program import Outcome, Program
from bot.verifier import (
    CRASHED,
    INSTALL_HINT,
    KILLED,
    NO_RESULT,
    Dafny2Backend,
    Dafny4Backend,
    VerifierInfo,
    VerifierNotFound,
    detect,
    filter_noise,
    is_transient,
    make_backend,
    parse_json_log,
    parse_version,
    probe_verify_options,
)
from support.paths import FAKE_DAFNY

FAKES = FAKE_DAFNY


def fake(script: str, version: str = "2.3.0.10506", major: int = 2) -> VerifierInfo:
    return VerifierInfo(command=(sys.executable, str(FAKES / script)), version=version, major=major)


def fake_with_settings(tmp_path: Path, script: str, settings: dict[str, str], major: int = 2) -> VerifierInfo:
    """A fake whose FAKE_DAFNY_* settings are set by a wrapper script: the verifier's environment is not
    inherited (bot.verifier.child_environment), so setting them in ours would not reach it."""
    wrapper = tmp_path / f"{Path(script).stem}-wrapper"
    exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in settings.items())
    wrapper.write_text(f'#!/bin/sh\n{exports}exec "{sys.executable}" "{FAKES / script}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    version = "2.3.0.10506" if major == 2 else "4.4.0"
    return VerifierInfo(command=(str(wrapper),), version=version, major=major)


def on_path(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put a `dafny` that runs `script` first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "dafny"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKES / script}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    """The real Dafny (conftest's dafny_command fails on CI when it is missing, skips elsewhere)."""
    return detect(dafny_command)


# ---------------------------------------------------------------------------------------------------
# Real Dafny

PRELUDE = """\
function F(x: int): int { x + 1 }
method Spec(x: int) returns (y: int) ensures y == F(x)
lemma Unproved() ensures false {}
"""

# z3 cannot factor a 64-bit semiprime in a second or two: a reliable time-out.
FACTOR = """\
method SpecScore_h3(x: bv64, y: bv64)
  requires 1 < x < 0x1_0000_0000 && 1 < y < 0x1_0000_0000
{
  assert x * y != 0x3fff_fff6_0000_0013;
}"""


@pytest.mark.dafny
def test_real_batch_verified_refuted_timeout(dafny: VerifierInfo) -> None:
    backend = make_backend(dafny)
    methods = [
        ("SpecScore_h1", "method SpecScore_h1() {\n  assert F(2) == 3;\n}"),
        ("SpecScore_h12", "method SpecScore_h12() {\n  ghost var y := F(2);\n  assert y == 4;\n}"),
        ("SpecScore_h3", FACTOR),
    ]
    results = backend.verify_batch(PRELUDE, methods, 1)

    # Only the harness methods are verified: not the prelude's failing lemma.
    assert set(results) == {"SpecScore_h1", "SpecScore_h12", "SpecScore_h3"}
    assert results["SpecScore_h1"].outcome is Outcome.VERIFIED
    refuted = results["SpecScore_h12"]
    assert refuted.outcome is Outcome.REFUTED
    # Lines are those of the program's own text, whatever the batch: the assert is on line 7.
    program = Program(PRELUDE, "SpecScore_h12", methods[1][1])
    assert program.text().splitlines()[6].strip() == "assert y == 4;"
    assert refuted.message == "line 7: assertion violation"
    timeout = results["SpecScore_h3"]
    assert timeout.outcome is Outcome.TIMEOUT, timeout
    assert "time limit 1 s" in timeout.message
    assert not any(is_transient(r) for r in results.values())
    assert "model_compress" not in "".join(r.message for r in results.values())


@pytest.mark.dafny
def test_real_resolution_error_fails_the_file(dafny: VerifierInfo) -> None:
    backend = make_backend(dafny)
    methods = [
        ("SpecScore_a", "method SpecScore_a() { assert G(1) == 1; }"),
        ("SpecScore_b", "method SpecScore_b() { assert F(1) == 2; }"),
    ]
    results = backend.verify_batch(PRELUDE, methods, 5)
    assert {r.outcome for r in results.values()} == {Outcome.ERROR}
    assert "unresolved identifier: G" in results["SpecScore_b"].message
    assert not is_transient(results["SpecScore_a"])  # a resolution error is worth caching


# ---------------------------------------------------------------------------------------------------
# Fake Dafny 2: what the real one will not do on demand


def test_hang_is_killed_by_the_wall_clock_limit(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    info = fake_with_settings(tmp_path, "dafny2_hang.py", {"FAKE_DAFNY_PIDFILE": str(pid_file)})
    backend = Dafny2Backend(info, wall_base=1.0, wall_per_method=0.0)
    started = time.monotonic()
    results = backend.verify_batch("", [("SpecScore_h1", "method SpecScore_h1() {}")], 1)
    assert time.monotonic() - started < 8
    result = results["SpecScore_h1"]
    assert result.outcome is Outcome.TIMEOUT
    assert result.message.startswith(KILLED + "1 s")
    assert is_transient(result)
    # The verifier's child (z3, in real life) died with it.
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_crash_is_an_error_with_the_output() -> None:
    backend = Dafny2Backend(fake("dafny2_crash.py"))
    results = backend.verify_batch("", [("A", "method A() {}"), ("B", "method B() {}")], 5)
    for result in results.values():
        assert result.outcome is Outcome.ERROR
        assert result.message.startswith(CRASHED + "exit code 134")
        assert "NullReferenceException" in result.message
        assert is_transient(result)


def test_odd_output_without_report_is_an_error() -> None:
    results = Dafny2Backend(fake("dafny2_odd.py")).verify_batch("", [("A", "method A() {}")], 5)
    result = results["A"]
    assert result.outcome is Outcome.ERROR
    assert "no /xml report" in result.message
    assert "Welcome to something that is not Dafny" in result.message
    assert is_transient(result)


def test_report_cut_short_keeps_what_concluded() -> None:
    backend = Dafny2Backend(fake("dafny2_partial.py"))
    methods = [("SpecScore_h1", "method SpecScore_h1() {}"), ("SpecScore_h2", "method SpecScore_h2() {}")]
    results = backend.verify_batch("", methods, 5)
    assert results["SpecScore_h1"].outcome is Outcome.VERIFIED
    assert results["SpecScore_h1"].seconds == 0.25
    assert results["SpecScore_h2"].outcome is Outcome.ERROR
    assert is_transient(results["SpecScore_h2"])


def test_missing_executable_is_an_error_not_an_exception(tmp_path: Path) -> None:
    info = VerifierInfo(command=(str(tmp_path / "nowhere" / "dafny"),), version="2.3.0", major=2)
    result = Dafny2Backend(info).verify_batch("", [("A", "method A() {}")], 5)["A"]
    assert result.outcome is Outcome.ERROR
    assert is_transient(result)


def test_dafny2_command_line() -> None:
    backend = Dafny2Backend(fake("x.py"), z3_path="/opt/z3")
    argv = backend.command(["SpecScore_h1", "SpecScore_h12"], 7, "report.xml")
    assert argv[2:] == [
        "/compile:0",
        "/nologo",
        "/errorTrace:0",
        "/errorLimit:1",
        "/timeLimit:7",
        "/proc:Impl$$*.__default.SpecScore__h1",
        "/proc:Impl$$*.__default.SpecScore__h12",
        "/z3exe:/opt/z3",
        "/xml:report.xml",
        "batch.dfy",
    ]
    assert backend.wall_limit(7, 3) == 30 + 21
    assert "2.3.0.10506" in backend.flags_id(7) and "/timeLimit:7" in backend.flags_id(7)
    assert "/errorLimit:1" in backend.flags_id(7)
    assert backend.flags_id(7) != backend.flags_id(8)
    assert backend.flags_id(7) != Dafny2Backend(fake("x.py")).flags_id(7)


def test_noise_filter() -> None:
    noisy = (
        "Prover error: line 18 column 28: unknown parameter 'model_compress'\n"
        "Legal parameters are:\n"
        "  auto_config (bool) (default: true)\n"
        "  well_sorted_check (bool) (default: false)\n"
        "a.dfy(5,36): Error: assertion violation\n"
        "Prover error: line 3825 column 28: unknown parameter 'model_compress'\n"
        "Legal parameters are:\n"
        "  unicode (bool)\n"
        "\n"
        "Dafny program verifier finished with 2 verified, 1 error\n"
    )
    assert filter_noise(noisy) == (
        "a.dfy(5,36): Error: assertion violation\n\nDafny program verifier finished with 2 verified, 1 error"
    )


# ---------------------------------------------------------------------------------------------------
# Version detection


@pytest.mark.parametrize(
    ("output", "version", "major"),
    [
        (
            "Dafny 2.3.0.10506\n*** Error: '/version': Filename extension '' is not supported.",
            "2.3.0.10506",
            2,
        ),
        ("4.4.0\n", "4.4.0", 4),
        ("4.4.0+a1b2c3d\n", "4.4.0+a1b2c3d", 4),
        ("\n3.13.1.50501\n", "3.13.1.50501", 3),
        ("Dafny 4.10.0\n", "4.10.0", 4),
    ],
)
def test_parse_version(output: str, version: str, major: int) -> None:
    assert parse_version(output) == (version, major)


@pytest.mark.parametrize(
    "output", ["Dafny: Error: unknown switch: --version\nUse /help for available options", "", "hello 1.2"]
)
def test_parse_version_rejects(output: str) -> None:
    assert parse_version(output) is None


def test_detect_dafny2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(tmp_path, "dafny2_versions.py", monkeypatch)
    info = detect()
    assert (info.version, info.major) == ("2.3.0.10506", 2)
    assert info.command == (str(tmp_path / "bin" / "dafny"),)
    assert isinstance(make_backend(info), Dafny2Backend)


def test_detect_dafny4(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(tmp_path, "dafny4.py", monkeypatch)
    info = detect()
    assert (info.version, info.major) == ("4.4.0+a1b2c3", 4)
    backend = make_backend(info, z3_path="/opt/z3")
    assert isinstance(backend, Dafny4Backend)
    assert backend.options is not None and "--filter-symbol" in backend.options


def test_detect_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(VerifierNotFound) as caught:
        detect()
    assert INSTALL_HINT in str(caught.value)


def test_detect_unreadable_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(tmp_path, "dafny2_odd.py", monkeypatch)
    with pytest.raises(VerifierNotFound) as caught:
        detect()
    assert "Could not read the version" in str(caught.value)
    assert INSTALL_HINT in str(caught.value)


# ---------------------------------------------------------------------------------------------------
# Dafny 4 (fake, in the documented shapes)


def dafny4(options: str | None = None) -> Dafny4Backend:
    opts = None if options is None else frozenset(options.split())
    return Dafny4Backend(fake("dafny4.py", version="4.4.0", major=4), options=opts)


def test_dafny4_command_line() -> None:
    names = ["SpecScore_h1", "SpecScore_h12"]
    argv = dafny4().command(names, 9, "log.json")
    assert argv[2:] == [
        "verify",
        "batch.dfy",
        "--verification-time-limit",
        "9",
        "--cores",
        "1",
        "--allow-warnings",
        "--log-format",
        "json;LogFileName=log.json",
        "--filter-symbol",
        "SpecScore_h1",
    ]
    # Before 4.5: no --filter-symbol nor --allow-warnings; --boogie-filter takes Boogie patterns.
    old = dafny4("--boogie-filter --cores --verification-time-limit").command(names[:1], 9, "log.json")
    assert "--allow-warnings" not in old and "--filter-symbol" not in old
    assert old[-4:] == ["--boogie-filter", "*.SpecScore_h1", "--boogie-filter", "*.SpecScore__h1"]
    # No common prefix: no filter (everything is verified, other symbols ignored).
    assert "--filter-symbol" not in dafny4().command(["A", "B"], 9, "log.json")
    with_z3 = Dafny4Backend(fake("dafny4.py", version="4.4.0", major=4), z3_path="/opt/z3")
    assert with_z3.command(["A"], 9, "l.json")[-6:-4] == ["--solver-path", "/opt/z3"]
    assert with_z3.flags_id(9) != dafny4().flags_id(9)


def test_parse_json_log_shape() -> None:
    log = {
        "verificationResults": [
            {"name": "M (correctness)", "outcome": "Errors", "runTime": "00:00:01.5000000", "vcResults": []},
            {"name": "M (well-formedness)", "outcome": "Correct", "runTime": "00:00:00.2500000"},
            {"name": "Mod.N (correctness)", "outcome": "TimedOut", "runTime": "1.00:00:02"},
            {"oops": 1},
        ]
    }
    assert parse_json_log(json.dumps(log) + "\n") == {
        "M": [("Errors", 1.5), ("Correct", 0.25)],
        "N": [("TimedOut", 86402.0)],
    }
    assert parse_json_log("not json") == {}


PRELUDE4 = "lemma Unproved() ensures false {}\n"


def test_dafny4_batch(tmp_path: Path) -> None:
    argv_file = tmp_path / "argv.json"
    info = fake_with_settings(tmp_path, "dafny4.py", {"FAKE_DAFNY_ARGV": str(argv_file)}, major=4)
    methods = [
        ("SpecScore_h1", "method SpecScore_h1()\n  requires true\n{\n}"),
        ("SpecScore_h2", "method SpecScore_h2() {\n  assert false; // fake: Errors\n}"),
        ("SpecScore_h3", "method SpecScore_h3() {\n  // fake: TimedOut\n}"),
    ]
    results = Dafny4Backend(info, options=None).verify_batch(PRELUDE4, methods, 5)
    assert set(results) == {"SpecScore_h1", "SpecScore_h2", "SpecScore_h3"}
    assert results["SpecScore_h1"].outcome is Outcome.VERIFIED
    assert results["SpecScore_h1"].seconds == pytest.approx(0.26)
    refuted = results["SpecScore_h2"]
    assert refuted.outcome is Outcome.REFUTED
    assert refuted.message == "line 4: assertion might not hold"  # line of the program's own text
    timeout = results["SpecScore_h3"]
    assert timeout.outcome is Outcome.TIMEOUT
    assert "timed out after 5 seconds" in timeout.message
    argv = json.loads(argv_file.read_text())
    assert argv[argv.index("--filter-symbol") + 1] == "SpecScore_h"


def test_dafny4_resolution_error() -> None:
    methods = [("A", "method A() {\n  G(); // fake: resolution\n}"), ("B", "method B() {}")]
    results = dafny4().verify_batch("", methods, 5)
    assert {r.outcome for r in results.values()} == {Outcome.ERROR}
    assert "unresolved identifier: G" in results["B"].message
    assert not is_transient(results["B"])


def test_dafny4_warnings_do_not_spoil_results() -> None:
    # Without --allow-warnings (not listed), a warning makes the run exit 2, but the log holds the answer.
    backend = dafny4("--filter-symbol --cores --verification-time-limit")
    results = backend.verify_batch("", [("A", "method A() {\n  // fake: warning\n}")], 5)
    assert results["A"].outcome is Outcome.VERIFIED


def test_dafny4_missing_method_in_log() -> None:
    # Names with no common prefix: no filter; a name the log does not mention is reported as such.
    results = dafny4().verify_batch("", [("A", "method A() {}"), ("B", "function B(): int { 1 }")], 5)
    assert results["A"].outcome is Outcome.VERIFIED
    assert results["B"].message == NO_RESULT and is_transient(results["B"])


# ---------------------------------------------------------------------------------------------------
# Counterexample models


def test_dafny2_command_line_with_models() -> None:
    backend = Dafny2Backend(fake("x.py"), z3_path="/opt/z3")
    plain = backend.command(["SpecScore_h1"], 7, "report.xml")
    assert backend.command(["SpecScore_h1"], 7, "report.xml", None) == plain
    with_models = backend.command(["SpecScore_h1"], 7, "report.xml", "model.txt")
    assert with_models == [*plain[:-2], "/mv:model.txt", *plain[-2:]]


def pin(name: str, x: int, spec: str, expected: str = "r == x + 1", returns: str = "r: int") -> tuple[str, str]:
    """A pin program's method: `x` fixed, the output left to the spec, the ensures asking for one output."""
    method = (
        f"method {name}(x: int) returns ({returns})\n  ensures {expected}\n{{\n"
        f"  assume {{:axiom}} x == {x};\n  assume {{:axiom}} {spec};\n  assert true;\n}}"
    )
    return name, method


@pytest.mark.dafny
def test_real_batch_models_go_to_their_own_methods(dafny: VerifierInfo) -> None:
    methods = [
        pin("SpecScore_p1", 10, "r == x + 1 || r == x + 1001"),
        pin("SpecScore_p2", 20, "r == x + 1"),  # proved: no model
        pin("SpecScore_p3", 30, "r == x + 1 || r == x + 1003"),
        pin("SpecScore_p4", 40, "r == x + 1 || r == x + 1004"),  # failing, but wants no model
        pin("SpecScore_p5", 3, "|r| == 2 && r[1] == x", "r == [3, 3]", "r: seq<int>"),
        pin("SpecScore_p6", 50, "r == x + 1 || r == x + 1006"),
    ]
    backend = make_backend(dafny)
    wanted = {"SpecScore_p1", "SpecScore_p2", "SpecScore_p3", "SpecScore_p5", "SpecScore_p6"}
    results = backend.verify_batch("", methods, 10, models=wanted)
    assert results["SpecScore_p2"].outcome is Outcome.VERIFIED and results["SpecScore_p2"].model == ""
    assert results["SpecScore_p4"].outcome is Outcome.REFUTED and results["SpecScore_p4"].model == ""
    for name, x, k in (("SpecScore_p1", 10, 1), ("SpecScore_p3", 30, 3), ("SpecScore_p6", 50, 6)):
        assert results[name].outcome is Outcome.REFUTED
        assert split_models(results[name].model) and len(split_models(results[name].model)) == 1
        assert decode(results[name].model, "r", IntT()) == IntV(x + 1000 + k)  # its own model
    other = decode(results["SpecScore_p5"].model, "r", SeqT(IntT()))
    assert isinstance(other, SeqV) and len(other.elems) == 2 and other.elems[1] == IntV(3)
    # the same batch without models: the same outcomes and messages, no models
    plain = backend.verify_batch("", methods, 10)
    assert {n: (r.outcome, r.message) for n, r in plain.items()} == {
        n: (r.outcome, r.message) for n, r in results.items()
    }
    assert all(r.model == "" for r in plain.values())


def dafny4_cex(tmp_path: Path, settings: dict[str, str] | None = None) -> tuple[Dafny4Backend, Path]:
    argv_file = tmp_path / "argv.json"
    info = fake_with_settings(
        tmp_path, "dafny4_counterexample.py", {"FAKE_DAFNY_ARGV": str(argv_file), **(settings or {})}, major=4
    )
    return Dafny4Backend(info, options=probe_verify_options(info)), argv_file


CEX_METHODS = [
    (
        "SpecScore_c1",
        "method SpecScore_c1(x: int) returns (r: int) {\n  assert false; // fake: Errors\n"
        "  // cex-initial: 3 == x\n  // cex: 3 == x && 1003 == r\n  // cex3: r : int = 1003\n}",
    ),
    ("SpecScore_c2", "method SpecScore_c2() {\n  assert true;\n}"),
    (
        "SpecScore_c3",
        'method SpecScore_c3(x: int) returns (t: string) {\n  assert false; // fake: Errors\n  // cex: "ab" == t\n}',
    ),
    ("SpecScore_c4", "method SpecScore_c4(x: int) returns (r: int) {\n  assert false; // fake: Errors\n}"),
]


def test_dafny4_counterexamples_per_method(tmp_path: Path) -> None:
    backend, argv_file = dafny4_cex(tmp_path)
    assert backend.can_extract_counterexamples
    results = backend.verify_batch("", CEX_METHODS, 5, models={"SpecScore_c1", "SpecScore_c2", "SpecScore_c3"})
    assert "--extract-counterexample" in json.loads(argv_file.read_text())
    assert decode(results["SpecScore_c1"].model, "r", IntT()) == IntV(1003)
    assert decode(results["SpecScore_c3"].model, "t", parse_type("string")) == SeqV((CharV("a"), CharV("b")))
    assert results["SpecScore_c2"].outcome is Outcome.VERIFIED and results["SpecScore_c2"].model == ""
    assert results["SpecScore_c4"].outcome is Outcome.REFUTED and results["SpecScore_c4"].model == ""

    plain = backend.verify_batch("", CEX_METHODS, 5)
    assert "--extract-counterexample" not in json.loads(argv_file.read_text())
    assert all(r.model == "" for r in plain.values())
    # the counterexample lines change no outcome and no message
    assert {n: (r.outcome, r.message) for n, r in plain.items()} == {
        n: (r.outcome, r.message) for n, r in results.items()
    }
    assert results["SpecScore_c1"].message == "line 4: assertion might not hold"


def test_dafny3_counterexample_for_the_first_failure(tmp_path: Path) -> None:
    backend, _ = dafny4_cex(tmp_path, {"FAKE_DAFNY_CEX_STYLE": "3"})
    results = backend.verify_batch("", CEX_METHODS, 5, models={"SpecScore_c1", "SpecScore_c3"})
    assert decode(results["SpecScore_c1"].model, "r", IntT()) == IntV(1003)
    assert results["SpecScore_c3"].model == ""  # Dafny 3 extracts the first failure's only


def test_dafny4_without_the_option_asks_for_no_counterexample(tmp_path: Path) -> None:
    backend, argv_file = dafny4_cex(
        tmp_path, {"FAKE_DAFNY_OPTIONS": "--filter-symbol --allow-warnings --cores --verification-time-limit"}
    )
    assert not backend.can_extract_counterexamples
    results = backend.verify_batch("", CEX_METHODS, 5, models={"SpecScore_c1"})
    assert "--extract-counterexample" not in json.loads(argv_file.read_text())
    assert results["SpecScore_c1"].outcome is Outcome.REFUTED and results["SpecScore_c1"].model == ""
    # help that could not be read: not assumed either
    assert not Dafny4Backend(fake("dafny4.py", version="4.4.0", major=4), options=None).can_extract_counterexamples
