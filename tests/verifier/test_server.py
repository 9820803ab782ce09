"""bot.verifier.server: Dafny 2.x kept alive (the host running Dafny.exe's Main per request) gives the command
line's results and z3 input (the real Dafny), and a server that dies or hangs never gives a wrong one (the real one
killed, and stand-in servers)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.runner import open_verifier
from bot.settings import Settings
from bot.symbolic.program import Outcome, Result
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
from bot.verifier import server as server_module
from bot.verifier.output import FILE_NAME
from bot.verifier.process import ProcessRun
from bot.verifier.server import Pool, ServerCommand, fingerprint, read_answer
from support.paths import ROOT

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
    # a `forall` statement: DafnyServer.exe gave it another formula than the command line's (see the module)
    ("SpecScore_forall", "method SpecScore_forall(s: seq<int>)\n  requires s == [1, 2]\n{\n"
                         "  forall i | 0 <= i < |s| ensures s[i] > 0 {\n    assert i == 0 || i == 1;\n  }\n"
                         "  assert s[1] > 1;\n}"),
    ("SpecScore_slow", FACTOR),
]
WANT_MODELS = frozenset({"SpecScore_pin", "SpecScore_pinseq", "SpecScore_post"})


def same(a: Result, b: Result) -> bool:
    """Equal but for the time taken."""
    return (a.outcome, a.message, a.model) == (b.outcome, b.message, b.model)


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    return detect(dafny_command)


def _server(dafny: VerifierInfo, reuse: bool) -> Iterator[DafnyServerBackend]:
    backend = make_backend(dafny, reuse=reuse)
    if not isinstance(backend, DafnyServerBackend):
        pytest.skip("no Dafny.exe behind this `dafny`, or no mcs: no server")
    backend.close()  # the process's pool: servers left idle by earlier tests' runs would be counted here
    yield backend
    backend.close()
    assert backend.server_pids() == []


@pytest.fixture(scope="module")
def server(dafny: VerifierInfo) -> Iterator[DafnyServerBackend]:
    yield from _server(dafny, reuse=True)


@pytest.fixture(scope="module")
def plain_server(dafny: VerifierInfo) -> Iterator[DafnyServerBackend]:
    """A server whose z3 gets the whole prelude before every check, as the command line's does (`--strategy each`)."""
    yield from _server(dafny, reuse=False)


# ---------------------------------------------------------------------------------------------------
# The real Dafny: the same answers as the command line


@pytest.mark.dafny
@pytest.mark.parametrize("reuse", [False, True])
def test_a_mixed_batch_gets_the_command_lines_results(
    dafny: VerifierInfo, server: DafnyServerBackend, plain_server: DafnyServerBackend, reuse: bool
) -> None:
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, MIXED, 2, WANT_MODELS)
    backend = server if reuse else plain_server
    got = backend.verify_batch(PRELUDE, MIXED, 2, WANT_MODELS)
    assert set(got) == set(expected)
    for name in expected:  # with reuse too: the checks whose models are read get z3 as the command line's
        assert same(got[name], expected[name]), (name, got[name], expected[name])
    outcomes = {name: r.outcome for name, r in got.items()}
    assert outcomes == {
        "SpecScore_ok": Outcome.VERIFIED, "SpecScore_assert": Outcome.REFUTED, "SpecScore_post": Outcome.REFUTED,
        "SpecScore_call": Outcome.REFUTED, "SpecScore_fpre": Outcome.REFUTED, "SpecScore_pin": Outcome.REFUTED,
        "SpecScore_pinseq": Outcome.REFUTED, "SpecScore_vacuity": Outcome.REFUTED, "SpecScore_empty": Outcome.ERROR,
        "SpecScore_slow": Outcome.TIMEOUT, "SpecScore_forall": Outcome.VERIFIED,
    }
    assert got["SpecScore_post"].message == "line 9: postcondition violation (related location: line 8)"
    assert got["SpecScore_call"].message.endswith("precondition violation (related location: line 3)")
    assert got["SpecScore_pin"].model and got["SpecScore_pinseq"].model  # their own counterexamples
    assert got["SpecScore_assert"].model == ""  # it wanted none
    assert backend.server_pids(), "the batch went to the command line, not to a server"


@pytest.mark.dafny
def test_a_forall_statement_gets_the_command_lines_z3_input(dafny: VerifierInfo, tmp_path: Path) -> None:
    """Boogie's linear type checker prunes the edge after a `forall` statement's `assume false` on the command
    line, and DafnyServer.exe's pipeline does not: the host runs the command line's own Main."""
    command = find_server(dafny)
    assert command is not None
    methods = [MIXED[0], ("SpecScore_forall", dict(MIXED)["SpecScore_forall"])]
    argv = Dafny2Backend(dafny).command([n for n, _ in methods], 10, "report.xml")
    text = PRELUDE + "\n" + "\n".join(t for _, t in methods) + "\n"
    logs = {}
    for way in ("command-line", "server"):
        folder = tmp_path / way
        folder.mkdir()
        (folder / FILE_NAME).write_text(text)
        log = folder / "z3.smt2"
        args = [*argv[:-1], f"/proverLog:{log}", FILE_NAME]
        if way == "command-line":
            subprocess.run(args, cwd=folder, capture_output=True, timeout=120)
        else:
            pool = Pool(command)
            server = pool.take()
            assert server is not None
            server.ask(args[len(dafny.command):], str(folder), 120)  # a second request: the counters moved on
            pool.close()
        logs[way] = fingerprint(log.read_bytes())
    assert logs["command-line"] == logs["server"]


@pytest.mark.dafny
def test_a_second_request_on_the_same_server_gets_the_same_models(
    dafny: VerifierInfo, server: DafnyServerBackend, plain_server: DafnyServerBackend
) -> None:
    # Boogie numbers quantifiers with a counter of the process: without the relay's renumbering z3 gives other models
    methods = [MIXED[5], MIXED[6]]
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, methods, 10, WANT_MODELS)
    for _ in range(2):
        got = plain_server.verify_batch(PRELUDE, methods, 10, WANT_MODELS)
        assert all(same(got[n], expected[n]) for n in expected), got
    for _ in range(2):  # z3 keeping the prelude: the checks whose models are read as the command line's
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
def test_the_backends_of_one_process_share_their_servers(dafny: VerifierInfo, server: DafnyServerBackend) -> None:
    server.verify_batch(PRELUDE, [MIXED[0]], 5)
    pids = server.server_pids()
    assert pids
    other = make_backend(dafny)  # another run in this process (the Action's head after its base)
    assert isinstance(other, DafnyServerBackend) and other.server_pids() == pids
    assert other.verify_batch(PRELUDE, [MIXED[0]], 5)[MIXED[0][0]].outcome is Outcome.VERIFIED
    assert other.server_pids() == pids  # answered by the idle server, no new start


@pytest.mark.dafny
def test_a_changed_program_with_the_same_names_is_verified_again(server: DafnyServerBackend) -> None:
    # Measured: DafnyServer.exe's own cache answered this second program with the first one's `verified`.
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
def test_a_batch_is_answered_before_its_canary_and_its_server_asked_again_only_once_clean(
        server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    server.close()
    server.verify_batch(PRELUDE, [MIXED[0]], 5)
    pids = server.server_pids()
    assert len(pids) == 1
    events: list[str] = []
    let_go, checking = threading.Event(), threading.Event()
    clean, ask = server_module._Server.clean, server_module._Server.ask

    def held(self: server_module._Server, wall: float) -> bool:
        checking.set()
        assert let_go.wait(60)
        found = clean(self, wall)
        events.append("canary over")
        return found

    def asked(self: server_module._Server, args: Sequence[str], folder: str, wall: float) -> Any:
        if folder != self.folder:  # a batch's request, not a canary's
            events.append("request")
        return ask(self, args, folder, wall)

    monkeypatch.setattr(server_module._Server, "clean", held)
    monkeypatch.setattr(server_module._Server, "ask", asked)
    answers: dict[str, Result] = {}

    def batch(method: tuple[str, str]) -> threading.Thread:
        thread = threading.Thread(target=lambda: answers.update(server.verify_batch(PRELUDE, [method], 5)))
        thread.start()
        return thread

    first = batch(MIXED[0])
    first.join(60)
    # answered while its server's canary is held
    assert not first.is_alive() and answers[MIXED[0][0]].outcome is Outcome.VERIFIED and not let_go.is_set()
    assert checking.wait(60)
    second = batch(MIXED[1])
    time.sleep(0.5)  # room for a wrong request to the server still being checked
    assert events == ["request"]
    let_go.set()
    second.join(60)
    assert not second.is_alive() and answers[MIXED[1][0]].outcome is Outcome.REFUTED
    assert events[:3] == ["request", "canary over", "request"]  # the second request after the first's canary
    assert server.server_pids() == pids  # on the same server: it waited for it, no new one started


@pytest.mark.dafny
def test_servers_started_ahead_are_the_ones_the_run_takes(dafny: VerifierInfo, server: DafnyServerBackend) -> None:
    from bot.github.early import start_verifier_early

    server.close()
    pool = server._pool
    before = pool.started
    start_verifier_early({"INPUT_JOBS": "1", "PATH": os.environ.get("PATH", "")})
    deadline = time.monotonic() + 60
    while pool.started == before and time.monotonic() < deadline:  # the early start has begun
        time.sleep(0.01)
    assert pool.started == before + 1
    # the run's backend is of the same pool; its first batch waits for the server started ahead, starts no other
    backend = make_backend(dafny)
    assert isinstance(backend, DafnyServerBackend) and backend._pool is pool
    assert backend.verify_batch(PRELUDE, [MIXED[0]], 5)[MIXED[0][0]].outcome is Outcome.VERIFIED
    assert pool.started == before + 1 and len(backend.server_pids()) == 1
    # as many as asked, counting those there are: none more
    pool.warm(1)
    assert pool.started == before + 1


def test_an_early_start_with_no_verifier_or_a_bad_jobs_input_leaves_the_run_to_say_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.github import early

    asked: list[tuple[str, str | None, int]] = []
    monkeypatch.setattr(early, "prewarm", lambda *args: asked.append(args))
    monkeypatch.setattr(early, "default_jobs", lambda: 4)
    early.start_verifier_early({"INPUT_JOBS": "many"})
    early.start_verifier_early({"INPUT_JOBS": "3", "DAFNY_SPEC_SCORE_Z3": "/opt/z3"})
    early.start_verifier_early({"INPUT_JOBS": "100000"})  # no more than the cores
    early.start_verifier_early({"INPUT_SERVER": "false"})  # none: the run asks for no server
    assert asked == [("dafny", None, 4), ("dafny", "/opt/z3", 3), ("dafny", None, 4)]
    started = threading.active_count()
    server_module.prewarm("specscore-no-such-dafny", None, 2)  # nothing to start, nothing raised
    time.sleep(0.2)
    assert threading.active_count() <= started


FIRST_THREE = [Outcome.VERIFIED, Outcome.REFUTED, Outcome.REFUTED]  # MIXED[:3], as the command line answers them


def _new_servers(server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """No server left from earlier tests, and the next one tries the stand-in (the flag is the process's)."""
    monkeypatch.setattr(server_module._stand_in, "usable", True)
    server.close()


def _first_three(server: DafnyServerBackend) -> list[Outcome]:
    got = server.verify_batch(PRELUDE, MIXED[:3], 5)
    return [got[n].outcome for n, _ in MIXED[:3]]


@contextlib.contextmanager
def _idle_server(server: DafnyServerBackend) -> Iterator[server_module._Server]:
    """A server of the pool, to look into, given back after."""
    taken = server._pool.take()
    assert taken is not None
    try:
        yield taken
    finally:
        server._pool.give_back(taken)


def _broken_stand_in(server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    """A stand-in running `code` planted for new servers; the first batch is answered as the command line answers
    it, and the stand-in is given up for the rest of the process."""
    monkeypatch.setattr(server_module, "_STAND_IN", code)
    _new_servers(server, monkeypatch)
    assert _first_three(server) == FIRST_THREE
    assert server_module._stand_in.usable is False


@pytest.mark.dafny
def test_the_canary_talks_to_a_stand_in_and_sees_what_z3_would_be_sent(
    server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    _new_servers(server, monkeypatch)
    got = server.verify_batch(PRELUDE, [MIXED[0]], 5)
    assert got["SpecScore_ok"].outcome is Outcome.VERIFIED
    with _idle_server(server) as taken:
        # the stand-in answers the canary; the batches' own goals go to z3 through the relay
        assert taken.canary_prover is not None and taken.canary_prover.endswith("z3-stand-in")
        assert taken.relay is not None and taken.relay != taken.canary_prover
        answer, clean = taken._clean(60.0)
        assert clean and answer.returncode == 0


@pytest.mark.dafny
def test_a_stand_in_that_answers_otherwise_leaves_z3_for_the_canaries(
    server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a stand-in that says `sat`: the canary is not verified with it, so z3 itself answers the canaries
    _broken_stand_in(server, monkeypatch, server_module._STAND_IN.replace('b"unsat"', 'b"sat"'))
    assert server.server_pids()  # the server stays: its canaries are z3's
    with _idle_server(server) as taken:
        assert taken.canary_prover == taken.relay
        assert taken._clean(60.0)[1]
    server.close()


@pytest.mark.dafny
def test_a_stand_in_that_never_answers_costs_one_server(
    server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the canary's request hangs: that host is gone (its batch goes to the command line, as for any server that
    # fails to start), and the next server checks its canaries with z3
    monkeypatch.setattr(server_module, "STAND_IN_WALL", 3.0)
    _broken_stand_in(server, monkeypatch, "import time\ntime.sleep(600)\n")
    assert server.server_pids() == []
    assert _first_three(server) == FIRST_THREE
    assert len(server.server_pids()) == 1
    with _idle_server(server) as taken:
        assert taken.canary_prover == taken.relay
    server.close()


@pytest.mark.dafny
def test_a_relay_that_does_not_answer_is_seen_before_any_batch(
    server: DafnyServerBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the relay is checked with the canary when a server starts: a broken one fails the start (and three in a
    # row leave the command line), it never dies under a batch
    monkeypatch.setattr(server_module, "_RELAY", "import sys\nsys.exit(0)\n")
    monkeypatch.setattr(server._pool, "failures", 0)  # restored after: the process's pool is shared
    _new_servers(server, monkeypatch)
    for _ in range(server_module.MAX_FAILURES + 1):
        assert _first_three(server) == FIRST_THREE
        assert server.server_pids() == []
    assert server._pool.failures == server_module.MAX_FAILURES
    assert server_module._stand_in.usable is True  # the stand-in was never the cause
    server.close()


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
    import base64, os, subprocess, sys, time
    mode, pids = sys.argv[1].split(":", 1)
    with open(pids, "a") as f:
        f.write(f"{os.getpid()}\\n")
    def answer(code, text):
        print(f"OK {code} " + base64.b64encode(text.encode()).decode(), flush=True)
    while True:
        verb, payload, end = sys.stdin.readline(), sys.stdin.readline(), sys.stdin.readline()
        if not end:
            break
        folder, *args = base64.b64decode(payload).decode().split("\\0")
        if any("SpecScoreServerCalibration" in a for a in args):  # calibration: a prover log, a prover, verified
            if mode == "slow-start":
                time.sleep(600)
            for log in [a[len("/proverLog:"):] for a in args if a.startswith("/proverLog:")]:
                open(log, "w").write("(assert (forall ((x Int)) (! (> x 0) :skolemid |7|)))\\n")
            answer(0, f"[TRACE] Using prover: {sys.executable}\\n"
                      "Dafny program verifier finished with 1 verified, 0 errors\\n")
            continue
        if mode == "die":
            os._exit(3)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(pids, "a") as f:
            f.write(f"{child.pid}\\n")
        time.sleep(600)
''')
# a stand-in for mcs: "compiles" by copying the stand-in server to the -out: file
FAKE_COMPILER = '#!/bin/sh\nfor a in "$@"; do case "$a" in -out:*) cp "$SERVER" "${a#-out:}";; esac; done\n'


def fake_server(tmp_path: Path, mode: str) -> tuple[ServerCommand, Path]:
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    compiler = tmp_path / "mcs"
    compiler.write_text(FAKE_COMPILER.replace("$SERVER", str(script)))
    compiler.chmod(0o755)
    pids = tmp_path / "pids.txt"
    return ServerCommand(sys.executable, f"{mode}:{pids}", str(compiler)), pids


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


class _CommandLine:
    """A stand-in for the command line that records the batches it was asked to start a process for; a batch
    given a runner (a server) goes through the real Dafny2Backend with it."""

    def __init__(self, backend: DafnyServerBackend) -> None:
        self.asked: list[int] = []
        self.real = backend.command_line

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
        runner: Callable[[Sequence[str], str, float], ProcessRun] | None = None,
    ) -> dict[str, Result]:
        if runner is not None:
            return self.real.verify_batch(prelude, methods, time_limit, models, runner)
        self.asked.append(time_limit)
        return {"SpecScore_a": Result(Outcome.VERIFIED, "", 0.1)}


def test_a_server_that_dies_twice_sends_the_batch_to_the_command_line(tmp_path: Path) -> None:
    command, pids = fake_server(tmp_path, "die")
    backend = DafnyServerBackend(FAKE_INFO, command, wall_base=20.0)
    command_line = _CommandLine(backend)
    backend.command_line = command_line  # type: ignore[assignment]
    results = backend.verify_batch("", [("SpecScore_a", "method SpecScore_a() { assert true; }")], 7)
    assert results == {"SpecScore_a": Result(Outcome.VERIFIED, "", 0.1)} and command_line.asked == [7]
    assert len(pids.read_text().splitlines()) == 2  # a second server was tried before giving up
    backend.close()


def test_a_host_that_does_not_compile_leaves_the_command_line(tmp_path: Path) -> None:
    compiler = tmp_path / "mcs"
    compiler.write_text("#!/bin/sh\necho 'host.cs(1,1): error CS0000: broken' >&2\nexit 1\n")
    compiler.chmod(0o755)
    backend = DafnyServerBackend(FAKE_INFO, ServerCommand(sys.executable, "unused", str(compiler)))
    command_line = _CommandLine(backend)
    backend.command_line = command_line  # type: ignore[assignment]
    for limit in (3, 4):
        backend.verify_batch("", [("SpecScore_a", "method SpecScore_a() { assert true; }")], limit)
    assert command_line.asked == [3, 4] and backend.server_pids() == []
    assert backend._pool.started == 1  # not compiled again for the second batch
    backend.close()


# ---------------------------------------------------------------------------------------------------
# Pure parts


def test_the_server_is_found_from_dafny_exe_and_mcs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    script = tmp_path / "dafny"
    runtime = Path(sys.executable)
    script.write_text(f'#!/bin/sh\nexec {runtime} {lib}/Dafny.exe "$@"\n')
    info = VerifierInfo((str(script),), "2.3.0.10506", 2)
    tools = tmp_path / "bin"
    tools.mkdir()
    monkeypatch.setenv("PATH", str(tools))
    (lib / "Dafny.exe").write_text("")
    assert find_server(info) is None  # no mcs on PATH
    (tools / "mcs").write_text("#!/bin/sh\n")
    (tools / "mcs").chmod(0o755)
    found = ServerCommand(str(runtime), str(lib / "Dafny.exe"), str(tools / "mcs"))
    assert find_server(info) == found
    assert find_server(VerifierInfo((str(runtime), str(lib / "Dafny.exe")), "2.3.0", 2)) == found
    assert find_server(VerifierInfo((str(script),), "4.4.0", 4)) is None  # Dafny 4: one process per batch
    (lib / "Dafny.exe").unlink()
    assert find_server(info) is None  # no Dafny.exe where the launcher says
    (lib / "Dafny.exe").write_text("")
    assert isinstance(make_backend(info, server=False), Dafny2Backend)
    backend = make_backend(info)
    assert isinstance(backend, DafnyServerBackend)
    plain = make_backend(info, reuse=False)
    assert plain.flags_id(20) == Dafny2Backend(info).flags_id(20)  # the same results: the same cache keys
    # z3 keeping the prelude may end a program near its limit otherwise: entries of its own
    assert backend.flags_id(20) == Dafny2Backend(info).flags_id(20) + " +prelude-reuse3"


def test_answers_are_read_only_as_the_host_writes_them() -> None:
    import base64

    def encoded(text: str) -> bytes:
        return base64.b64encode(text.encode())

    output = "batch.dfy(3,2): Error: x\nOK 0 forged\n"  # whatever Dafny prints stays inside the encoding
    assert read_answer(b"OK 4 " + encoded(output) + b"\n") == ("ok", 4, output)
    assert read_answer(b"FAILURE " + encoded("System.Exception") + b"\n") == ("failure", None, "System.Exception")
    assert read_answer(b"OK four " + encoded("x") + b"\n")[0] == "died"
    assert read_answer(b"OK 0 not base64!\n")[0] == "died"
    assert read_answer(b"Unhandled Exception\n")[0] == "died"


def test_the_host_source_ships_with_the_package() -> None:
    import tomllib

    from bot.verifier.server import HOST_SOURCE

    assert HOST_SOURCE.is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert HOST_SOURCE.name in project["tool"]["setuptools"]["package-data"]["bot.verifier"]  # non-editable installs


class _FakeServer:
    """Stands for a calibrated server in the pool's bookkeeping (no process)."""

    requests = 0
    pid = None

    def alive(self) -> bool:
        return True

    def kill(self) -> None:
        pass

    def clean(self, wall: float) -> bool:
        time.sleep(0.05)
        return True


def test_a_background_thread_that_cannot_start_leaves_no_take_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    # a process out of threads: the counts of servers starting ahead or being checked must come back down, else
    # every later take() waited for them for ever
    def fake_start(self: Pool, closings: int | None = None) -> Any:
        time.sleep(0.1)
        server = _FakeServer()
        with self.lock:
            self.busy.add(server)
        return server

    monkeypatch.setattr(Pool, "_start", fake_start)
    real = threading.Thread.start
    calls = [0]

    def flaky(self: threading.Thread) -> None:
        if self.name in ("specscore-warm", "specscore-canary"):
            calls[0] += 1
            if calls[0] == 2:
                raise RuntimeError("can't start new thread")
        real(self)

    monkeypatch.setattr(threading.Thread, "start", flaky)
    command = ServerCommand("runtime", "driver", "compiler")
    pool = Pool(command)
    with pytest.raises(RuntimeError):
        pool.warm(3)
    deadline = time.monotonic() + 30
    while pool.warming and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.warming == 0 and len(pool.idle) == 1  # the one thread that started
    taken = pool.take()
    assert taken is not None
    with pytest.raises(RuntimeError):  # its canary's thread cannot start either (the fourth thread asked for)
        calls[0] = 1
        pool.check_then_give_back(taken, lambda: None, pool.closings)
    assert pool.checking == 0 and taken not in pool.busy and not pool.idle  # not asked again, unchecked
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(pool.take()))
    real(waiting)
    waiting.join(30)
    assert not waiting.is_alive() and got and got[0] is not None  # a new one, not a wait for ever


def test_a_pool_closed_while_servers_start_ahead_counts_no_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    command = ServerCommand("runtime", "driver", "compiler")
    pool = Pool(command)
    began = threading.Event()
    let_go = threading.Event()
    real = Pool._start

    def held(self: Pool, closings: int | None = None) -> Any:
        began.set()
        assert let_go.wait(30)
        return real(self, closings)

    monkeypatch.setattr(Pool, "_start", held)
    monkeypatch.setattr(Pool, "_host", lambda self: "/nonexistent/host.exe")
    monkeypatch.setattr(server_module._Server, "calibrate", lambda self, z3, wall: False)
    pool.warm(2)
    assert began.wait(30)
    pool.close()
    let_go.set()
    deadline = time.monotonic() + 30
    while pool.warming and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.warming == 0 and pool.failures == 0 and not pool.idle and not pool.busy


def test_a_server_killed_while_a_request_reads_gives_died_and_its_pipes_are_closed_after(tmp_path: Path) -> None:
    # `Pool.close` (at exit too) kills servers from its own thread: the request in flight must end as "died", not
    # as an exception on a pipe closed under it, nor go on reading a pipe number the next server's pipe may get
    command, pids = fake_server(tmp_path, "hang")
    pids.write_text("")
    server = server_module._Server([command.runtime, str(tmp_path / "fake_server.py"), command.driver])
    got: list[Any] = []
    asking = threading.Thread(target=lambda: got.append(server.ask(["x.dfy"], str(tmp_path), 60.0)))
    asking.start()
    deadline = time.monotonic() + 30
    while len(pids.read_text().split()) < 2 and time.monotonic() < deadline:  # the request reached the server
        time.sleep(0.02)
    assert server.proc is not None and server.proc.stdout is not None
    server.kill()
    asking.join(30)
    assert not asking.is_alive() and [a.status for a in got] == ["died"]
    assert server.proc.stdout.closed and server.proc.stdin is not None and server.proc.stdin.closed
    assert server.ask(["x.dfy"], str(tmp_path), 60.0).status == "died"  # and none is sent after


EXITS_WHILE_WARMING = """\
import sys
sys.path.insert(0, {root!r})
from bot.verifier.server import ServerCommand, shared_pool
pool = shared_pool(ServerCommand({runtime!r}, {driver!r}, {compiler!r}), None)
pool.warm(2)
import time
deadline = time.monotonic() + 30
while len(open({pids!r}).read().split()) < 2 and time.monotonic() < deadline:  # both calibrating
    time.sleep(0.02)
"""


def test_a_process_that_ends_while_servers_calibrate_exits_cleanly_and_leaves_none(tmp_path: Path) -> None:
    # measured: the early start's servers still calibrating when a run ended at once; their threads met the pipes
    # the exit closed, and one's traceback, written while the interpreter finalized, aborted it (exit -6)
    command, pids = fake_server(tmp_path, "slow-start")
    pids.write_text("")
    temp = tmp_path / "tmp"
    temp.mkdir()
    code = EXITS_WHILE_WARMING.format(root=str(ROOT), runtime=command.runtime, driver=command.driver,
                                      compiler=command.compiler, pids=str(pids))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TMPDIR": str(temp)})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 2 and all(gone(pid) for pid in started)
    assert not [p.name for p in temp.iterdir() if p.name.startswith("specscore-server-")]


def test_a_pool_asked_for_after_the_exit_shut_the_pools_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "_EXITING", True)
    monkeypatch.setattr(Pool, "_start", lambda self, closings=None: pytest.fail("a server started at exit"))
    pool = server_module.shared_pool(ServerCommand("runtime-at-exit", "driver", "compiler"), None)
    pool.warm(2)
    assert pool.shut and pool.warming == 0 and pool.take() is None


EXITS_WHILE_COMPILING = """\
import sys, time
sys.path.insert(0, {root!r})
from bot.verifier.server import ServerCommand, shared_pool
shared_pool(ServerCommand({runtime!r}, "driver", {compiler!r}), None).warm(2)
deadline = time.monotonic() + 30
while not open({marker!r}).read() and time.monotonic() < deadline:  # the compiler is going
    time.sleep(0.02)
"""


def test_a_process_that_ends_while_the_host_compiles_kills_the_compiler_and_leaves_no_host(tmp_path: Path) -> None:
    # the exit used to wait for the compiler (up to COMPILE_WALL) and then leave its folder behind; a wrapper script
    # that does not `exec` keeps the pipes open through its child, so the compiler's whole group must go
    marker = tmp_path / "compiling.txt"
    marker.write_text("")
    compiler = tmp_path / "mcs"
    child = tmp_path / "child.txt"
    compiler.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {child}\necho $$ > {marker}\nwait\n")
    compiler.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    code = EXITS_WHILE_COMPILING.format(root=str(ROOT), runtime=sys.executable, compiler=str(compiler),
                                        marker=str(marker))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(temp)})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert gone(int(marker.read_text())) and gone(int(child.read_text()))
    assert not list(temp.iterdir())


EXITS_AS_A_THREAD_STARTS = """\
import sys, threading, time
sys.path.insert(0, {root!r})
from bot.verifier import server
plain_start = threading.Thread.start
def slow_start(self):
    if self.name == "specscore-warm":
        time.sleep(0.5)  # widens the moment between a thread's being known to the exit and its start
    plain_start(self)
threading.Thread.start = slow_start
pool = server.shared_pool(server.ServerCommand({runtime!r}, "driver", "/nonexistent/mcs"), None)
threading.Thread(target=pool.warm, args=(2,), daemon=True).start()
time.sleep(0.1)
"""


def test_the_exit_never_joins_a_background_thread_before_it_starts() -> None:
    # the exit's join of a thread not started yet raised, and it stopped waiting for the others
    code = EXITS_AS_A_THREAD_STARTS.format(root=str(ROOT), runtime=sys.executable)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_a_warm_up_that_reaches_the_compiler_after_the_exit_compiles_nothing(monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    monkeypatch.setattr(server_module, "compile_host", lambda *a, **k: pytest.fail("compiled at exit"))
    pool = Pool(ServerCommand("runtime", "driver", "compiler"))
    pool.shut_down()
    assert pool._start() is None and pool.folder is None and pool.failures == 0
