"""bot.verifier.server: Dafny 2.x's DafnyServer.exe kept alive gives the command line's results (the real Dafny),
and a server that dies or hangs never gives a wrong one (the real one killed, and stand-in servers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.assembly import open_verifier
from bot.outcomes import Outcome, Result
from bot.settings import Settings
from bot.verifier import (
    KILLED,
    Dafny2Backend,
    DafnyServerBackend,
    VerifierInfo,
    detect,
    find_server,
    is_transient,
    make_backend,
)
from bot.verifier.server import launcher, needs_command_line, parse_answer

PRELUDE = """\
function F(x: int): int { x + 1 }
function G(x: int): int requires x > 0 { x }
method Pre(x: int) requires x > 10
lemma Unproved() ensures false {}
"""

# z3 cannot factor a 64-bit semiprime in a second or two: a reliable time-out.
FACTOR = """\
method SpecScore_slow(x: bv64, y: bv64)
  requires 1 < x < 0x1_0000_0000 && 1 < y < 0x1_0000_0000
{
  assert x * y != 0x3fff_fff6_0000_0013;
}"""

MIXED = [
    ("SpecScore_ok", "method SpecScore_ok() {\n  assert F(2) == 3;\n}"),
    ("SpecScore_assert", "method SpecScore_assert() {\n  ghost var y := F(2);\n  assert y == 4;\n}"),
    ("SpecScore_post", "method SpecScore_post(x: int) returns (r: int)\n  ensures r == x\n  ensures r > x\n"
                       "{\n  r := x;\n}"),
    ("SpecScore_call", "method SpecScore_call() {\n  Pre(3);\n}"),
    ("SpecScore_fpre", "method SpecScore_fpre() {\n  ghost var z := G(0);\n  assert true;\n}"),
    ("SpecScore_pin", "method SpecScore_pin(x: int, r: int)\n  requires x == 10 && (r == x + 1 || r == x + 1001)\n"
                      "{\n  assert r == 11;\n}"),
    ("SpecScore_pinseq", "method SpecScore_pinseq(x: int, r: seq<int>)\n  requires x == 3 && |r| == 2 && r[1] == x\n"
                         "{\n  assert r == [3, 3];\n}"),
    ("SpecScore_vacuity", "method SpecScore_vacuity(x: int)\n{\n  assume {:axiom} x == 3;\n  assert false;\n"
                          "  assert true;\n}"),
    ("SpecScore_empty", "method SpecScore_empty() {\n}"),  # nothing to prove: no result either way
    ("SpecScore_slow", FACTOR),
]
WANT_MODELS = frozenset({"SpecScore_pin", "SpecScore_pinseq", "SpecScore_post"})


def same(a: Result, b: Result) -> bool:
    """Equal but for the time taken."""
    return (a.outcome, a.message, a.model) == (b.outcome, b.message, b.model)


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    return detect(dafny_command)


@pytest.fixture(scope="module")
def server(dafny: VerifierInfo) -> Iterator[DafnyServerBackend]:
    backend = make_backend(dafny)
    if not isinstance(backend, DafnyServerBackend):
        pytest.skip("no DafnyServer.exe next to this Dafny's Dafny.exe")
    yield backend
    backend.close()
    assert backend.server_pids() == []


# ---------------------------------------------------------------------------------------------------
# The real Dafny: the same answers as the command line


@pytest.mark.dafny
def test_a_mixed_batch_gets_the_command_lines_results(dafny: VerifierInfo, server: DafnyServerBackend) -> None:
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, MIXED, 2, WANT_MODELS)
    got = server.verify_batch(PRELUDE, MIXED, 2, WANT_MODELS)
    assert set(got) == set(expected)
    for name in expected:
        assert same(got[name], expected[name]), (name, got[name], expected[name])
    outcomes = {name: r.outcome for name, r in got.items()}
    assert outcomes == {
        "SpecScore_ok": Outcome.VERIFIED, "SpecScore_assert": Outcome.REFUTED, "SpecScore_post": Outcome.REFUTED,
        "SpecScore_call": Outcome.REFUTED, "SpecScore_fpre": Outcome.REFUTED, "SpecScore_pin": Outcome.REFUTED,
        "SpecScore_pinseq": Outcome.REFUTED, "SpecScore_vacuity": Outcome.REFUTED, "SpecScore_empty": Outcome.ERROR,
        "SpecScore_slow": Outcome.TIMEOUT,
    }
    assert got["SpecScore_post"].message == "line 9: postcondition violation (related location: line 8)"
    assert got["SpecScore_call"].message.endswith("precondition violation (related location: line 3)")
    assert got["SpecScore_pin"].model and got["SpecScore_pinseq"].model  # their own counterexamples
    assert got["SpecScore_assert"].model == ""  # it wanted none
    assert server.server_pids(), "the batch went to the command line, not to a server"


@pytest.mark.dafny
def test_a_second_request_on_the_same_server_gets_the_same_models(
    dafny: VerifierInfo, server: DafnyServerBackend
) -> None:
    # Boogie numbers quantifiers with a counter of the process: without the relay's renumbering z3 gives other models
    methods = [MIXED[5], MIXED[6]]
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, methods, 10, WANT_MODELS)
    for _ in range(2):
        got = server.verify_batch(PRELUDE, methods, 10, WANT_MODELS)
        assert all(same(got[n], expected[n]) for n in expected), got


@pytest.mark.dafny
def test_resolution_errors_are_the_command_lines(dafny: VerifierInfo, server: DafnyServerBackend) -> None:
    methods = [("SpecScore_a", "method SpecScore_a() { assert H(1) == 1; }"), MIXED[0]]
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, methods, 5)
    got = server.verify_batch(PRELUDE, methods, 5)
    assert all(same(got[n], expected[n]) for n in expected)
    assert "unresolved identifier: H" in got["SpecScore_a"].message and not is_transient(got["SpecScore_a"])


@pytest.mark.dafny
def test_a_changed_program_with_the_same_names_is_verified_again(server: DafnyServerBackend) -> None:
    # Measured: DafnyServer's own cache answers this second program with the first one's `verified`.
    method = [("SpecScore_x", "method SpecScore_x() {\n  assert P(3);\n}")]
    first = server.verify_batch("const C := 3\npredicate P(x: int) { x == C }", method, 5)
    pids = server.server_pids()
    second = server.verify_batch("const C := 4\npredicate P(x: int) { x == C }", method, 5)
    assert server.server_pids() == pids  # the same server answered both
    assert first["SpecScore_x"].outcome is Outcome.VERIFIED
    assert second["SpecScore_x"].outcome is Outcome.REFUTED
    assert second["SpecScore_x"].message == "line 5: assertion violation"


@pytest.mark.dafny
def test_a_server_whose_state_a_program_changed_is_not_used_again(server: DafnyServerBackend) -> None:
    # measured: after this spec, the built-in `nat`'s quantifiers carry another `:qid` in every later program
    changing = "method Spec(a: array<int>) returns (p: int)\n  ensures p == |(set i | 0 <= i < a.Length :: a[i])|\n"
    server.verify_batch(PRELUDE, [MIXED[0]], 5)
    before = server.server_pids()
    assert before  # the server that verified a batch stays
    got = server.verify_batch(changing, [("SpecScore_t", "method SpecScore_t() {\n  assert true;\n}")], 5)
    assert got["SpecScore_t"].outcome is Outcome.VERIFIED
    assert not set(before) & set(server.server_pids())  # that one does not
    # the spec's next batches go to the command line: a server for each would cost more than a process
    again = server.verify_batch(changing, [("SpecScore_u", "method SpecScore_u() {\n  assert 1 < 2;\n}")], 5)
    assert again["SpecScore_u"].outcome is Outcome.VERIFIED and server.server_pids() == []


@pytest.mark.dafny
def test_a_server_killed_mid_batch_is_replaced_and_the_batch_verified(
    dafny: VerifierInfo, server: DafnyServerBackend
) -> None:
    methods = [MIXED[0], MIXED[1], ("SpecScore_slow", FACTOR)]
    server.verify_batch(PRELUDE, [MIXED[0]], 2)  # a calibrated server waits in the pool
    before = server.server_pids()
    assert before
    got: dict[str, Result] = {}
    worker = threading.Thread(target=lambda: got.update(server.verify_batch(PRELUDE, methods, 2)))
    worker.start()
    time.sleep(1.0)  # the slow method keeps the server busy for two seconds at least
    for pid in before:
        os.killpg(pid, signal.SIGKILL)
    worker.join(120)
    assert not worker.is_alive()
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, methods, 2)
    assert all(same(got[n], expected[n]) for n in expected), got
    assert got["SpecScore_slow"].outcome is Outcome.TIMEOUT
    assert not set(before) & set(server.server_pids())


@pytest.mark.dafny
def test_no_server_setting_gives_the_command_line(dafny_command: str) -> None:
    assert isinstance(open_verifier(Settings(server=False), dafny_command).engine.backend, Dafny2Backend)
    verifier = open_verifier(Settings(), dafny_command)
    backend = verifier.engine.backend
    assert isinstance(backend, DafnyServerBackend) == (find_server(verifier.info) is not None)
    if isinstance(backend, DafnyServerBackend):
        backend.close()


# ---------------------------------------------------------------------------------------------------
# Stand-in servers: hanging, dying


FAKE_SERVER = textwrap.dedent('''\
    import base64, json, os, subprocess, sys, time
    mode, pids = sys.argv[1], sys.argv[2]
    with open(pids, "a") as f:
        f.write(f"{os.getpid()} {sorted(os.sched_getaffinity(0))}\\n")
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        payload = b""
        while True:
            part = sys.stdin.readline()
            if not part or part.strip() == "[[DAFNY-CLIENT: EOM]]":
                break
            payload += part.strip().encode()
        task = json.loads(base64.b64decode(payload))
        if "SpecScoreServerCalibration" in task["source"]:  # calibration: a prover log, a prover, verified
            for log in [a[len("/proverLog:"):] for a in task["args"] if a.startswith("/proverLog:")]:
                open(log, "w").write("(assert (forall ((x Int)) (! (> x 0) :skolemid |7|)))\\n")
            print(f"[TRACE] Using prover: {sys.executable}\\n\\n"
                  "Verifying Impl$$_module.__default.SpecScoreServerCalibration ...\\n"
                  "  [1 proof obligation]  verified\\nVerification completed successfully!\\n"
                  "[SUCCESS] [[DAFNY-SERVER: EOM]]", flush=True)
            continue
        if mode == "die":
            print("Verifying Impl$$_module.__default.SpecScore_a ...", flush=True)
            os._exit(3)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(pids, "a") as f:
            f.write(f"{child.pid}\\n")
        time.sleep(600)
''')


def fake_server(tmp_path: Path, mode: str) -> tuple[list[str], Path]:
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    pids = tmp_path / "pids.txt"
    return [sys.executable, str(script), mode, str(pids)], pids


def gone(pid: int) -> bool:
    """Dead (or a zombie no one reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


FAKE_INFO = VerifierInfo(command=("/nonexistent/dafny",), version="2.3.0.10506", major=2)


def test_a_hanging_server_is_killed_with_its_process_group(tmp_path: Path) -> None:
    command, pids = fake_server(tmp_path, "hang")
    backend = DafnyServerBackend(FAKE_INFO, command, wall_base=2.0, wall_per_method=0.0)
    start = time.monotonic()
    results = backend.verify_batch("", [("SpecScore_a", "method SpecScore_a() { assert true; }")], 20)
    assert time.monotonic() - start < 30
    result = results["SpecScore_a"]
    assert result.outcome is Outcome.TIMEOUT and result.message.startswith(KILLED) and is_transient(result)
    started = [int(line.split()[0]) for line in pids.read_text().splitlines()]
    assert len(started) == 2  # the server and the child it started in its process group
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(gone(pid) for pid in started)
    assert backend.server_pids() == []


def test_a_server_that_dies_twice_sends_the_batch_to_the_command_line(tmp_path: Path) -> None:
    command, pids = fake_server(tmp_path, "die")
    backend = DafnyServerBackend(FAKE_INFO, command, wall_base=20.0)
    asked: list[int] = []

    def command_line(prelude: str, methods: object, time_limit: int, models: object = ()) -> dict[str, Result]:
        asked.append(time_limit)
        return {"SpecScore_a": Result(Outcome.VERIFIED, "", 0.1)}

    backend.command_line = type("CommandLine", (), {"verify_batch": staticmethod(command_line),
                                                    "command": backend.command_line.command})()
    results = backend.verify_batch("", [("SpecScore_a", "method SpecScore_a() { assert true; }")], 7)
    assert results == {"SpecScore_a": Result(Outcome.VERIFIED, "", 0.1)} and asked == [7]
    assert len(pids.read_text().splitlines()) == 2  # a second server was tried before giving up
    backend.close()


def test_servers_are_bound_to_three_cpus_at_most(tmp_path: Path) -> None:
    command, pids = fake_server(tmp_path, "hang")
    cpus = sorted(os.sched_getaffinity(0))[:1]
    wrapped = launcher(command, cpus)
    assert wrapped[-len(command):] == command and launcher(command, None) == command
    with subprocess.Popen(wrapped, stdin=subprocess.PIPE) as proc:
        try:
            deadline = time.monotonic() + 10
            while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
                time.sleep(0.05)
            pid, affinity = pids.read_text().split(" ", 1)
            assert int(pid) == proc.pid and affinity.strip() == str(cpus)  # the same process, execed, bound
        finally:
            proc.kill()


# ---------------------------------------------------------------------------------------------------
# Pure parts


def test_the_server_is_found_next_to_dafny_exe_only(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Dafny.exe").write_text("")
    script = tmp_path / "dafny"
    runtime = Path(sys.executable)
    script.write_text(f'#!/bin/sh\nexec {runtime} {lib}/Dafny.exe "$@"\n')
    info = VerifierInfo((str(script),), "2.3.0.10506", 2)
    assert find_server(info) is None  # no DafnyServer.exe there
    (lib / "DafnyServer.exe").write_text("")
    assert find_server(info) == (str(runtime), str(lib / "DafnyServer.exe"))
    assert find_server(VerifierInfo((str(runtime), str(lib / "Dafny.exe")), "2.3.0", 2)) == (
        str(runtime), str(lib / "DafnyServer.exe"))
    assert find_server(VerifierInfo((str(script),), "4.4.0", 4)) is None  # Dafny 4: one process per batch
    assert isinstance(make_backend(info, server=False), Dafny2Backend)
    backend = make_backend(info)
    assert isinstance(backend, DafnyServerBackend)
    assert backend.flags_id(20) == Dafny2Backend(info).flags_id(20)  # the same results: the same cache keys


def test_batches_the_server_would_translate_differently_go_to_the_command_line() -> None:
    def one(body: str) -> list[tuple[str, str]]:
        return [("SpecScore_m", "method SpecScore_m(s: seq<int>) {\n" + body + "\n}")]

    assert not needs_command_line(one("  assume {:axiom} |s| == 1 && s[0] == 2;\n  assert s[0] > 0;"))
    assert not needs_command_line(one("  assume {:axiom} |s| == 1;\n  assert false;\n  assert true;"))  # vacuity
    assert not needs_command_line(one("  assert forall i :: 0 <= i < |s| ==> s[i] > 0;"))
    assert needs_command_line(one("  forall i | 0 <= i < |s| ensures s[i] > 0 {\n    assert i == 0;\n  }"))
    assert needs_command_line(one("  var i := 0;\n  while i < 3 { i := i + 1; }"))
    assert needs_command_line(one("  if |s| > 0 { assume false; }"))
    assert needs_command_line(one("  assert false;\n  assert |s| > 0;"))


CONSOLE = """\
batch.dfy(36,2): Info: decreases 10 - i
[TRACE] Using prover: /usr/bin/z3

Verifying Impl$$_module.__default.SpecScore__ok ...
  [1.274 s, 1 proof obligation]  verified

Verifying Impl$$_module.__default.SpecScore__post ...
  [0.185 s, 2 proof obligations]  error
batch.dfy(22,0): Error BP5003: A postcondition might not hold on this return path.
batch.dfy(21,12): Related location: This is the postcondition that might not hold.

Verifying Impl$$_module.__default.SpecScore__fpre ...
  [0,127 s, 1 proof obligation]  error
batch.dfy(29,17): Error: possible violation of function precondition
batch.dfy(2,35): Related location

Verifying Impl$$_module.__default.SpecScore__inv ...
  [0.124 s, 6 proof obligations]  errors
batch.dfy(37,16): Error BP5004: This loop invariant might not hold on entry.
batch.dfy(37,16): Related message: loop invariant violation
batch.dfy(40,1): Error BP5002: A precondition for this call might not hold.
batch.dfy(5,30): Related location: This is the precondition that might not hold.

Verifying Impl$$_module.__default.SpecScore__h3 ...
  [2.084 s, 1 proof obligation]  timed out
batch.dfy(61,7): Verification of 'Impl$$_module.__default.SpecScore__h3' timed out after 2 seconds
batch.dfy(64,15): Timed out on: assertion violation
Verification completed successfully!
[SUCCESS] [[DAFNY-SERVER: EOM]]
"""


def test_console_answers_read_as_the_xml_report() -> None:
    found = parse_answer(CONSOLE)
    assert found is not None
    assert [(m.name, m.outcome, m.seconds, m.errors) for m in found] == [
        ("SpecScore__ok", "correct", 1.274, ()),
        ("SpecScore__post", "errors", 0.185, ((22, "postcondition violation", (21,)),)),
        ("SpecScore__fpre", "errors", 0.127, ((29, "assertion violation", ()),)),
        ("SpecScore__inv", "errors", 0.124, ((37, "loop invariant entry violation", (37,)),
                                             (40, "precondition violation", (5,)))),
        ("SpecScore__h3", "timedout", 2.084, ((64, "assertion violation", ()),)),
    ]
    resolution = "batch.dfy(2,30): Error: unresolved identifier: G\nVerification completed successfully!\n"
    assert parse_answer(resolution) is None
    assert parse_answer(CONSOLE.replace("  timed out", "  reached bound")) is None  # an outcome not known
    assert parse_answer(CONSOLE + "Unhandled Exception: System.NullReferenceException\n") is None
    cut = CONSOLE[: CONSOLE.index("  [2.084")]  # a method with no conclusion
    assert parse_answer(cut) is None
