"""The Dafny 2.x verifier kept alive: `DafnyServer.exe`, one process per worker, instead of one `dafny` per batch.

Each `dafny` process spends 2.3-3 s starting mono and JIT-compiling the verifier; DafnyServer.exe (shipped next
to Dafny.exe) reads requests on standard input and answers them one after the other. A request is
`verify\\n` + base64(JSON {"args", "filename", "source", "sourceIsFile"}) + `\\n[[DAFNY-CLIENT: EOM]]\\n`; the
answer is console output ending with a line `[SUCCESS] [[DAFNY-SERVER: EOM]]` (or `[FAILURE] ...`).

What was checked against Dafny 2.3.0.10506 (Debian, mono 6.8), by reading the IL of DafnyServer.exe and by runs:

* Per request the server installs fresh options, sets `ProverKillTime = 10` and `VerifySnapshots = 3`, parses
  the request's args (so `/timeLimit:N` and `/verifySnapshots:0` override those), then forces
  `VcsCores = max(1, ProcessorCount / 2)`, `PrintTooltips` (`Info:` lines) and `TraceProofObligations`
  (`Verifying NAME ...` and `  [N proof obligations]  verified|error|errors|timed out|...` lines).
* Its result cache is on by default (`Retrieving cached verification result for implementation ...`, with
  stale results for a changed program whose method text is unchanged); `/verifySnapshots:0` turns it off:
  every request is verified afresh. z3 does not outlive a request (no prover process between requests).
* `/xml:F` makes the server fail (`[FATAL] Assertion failed.`: it never opens the XML sink) and exit; so
  results are read from the console lines, which hold what the XML report holds: the outcome per method,
  its time (with `/trace`: `  [0.918 s, 2 proof obligations]  error`), every error's line and kind (the Boogie
  code: BP5002 precondition, BP5003 postcondition, BP5004/BP5005 loop invariant, else assertion) and its
  first related location. `/mv:ABSOLUTE_PATH` works and appends, so every request gets a fresh path.
* What Boogie sends z3 (`/proverLog:`) was compared with the command line's, batch by batch, over the
  development audit's batches. Three differences, and what is done about them:
  - `:skolemid |N|` numbers come from a counter of the process, and z3's counterexample models depend on them
    (the same batch gave other models on a server's second request): z3 is started through a relay that
    renumbers them as a fresh process would (`_RELAY`).
  - Some programs change state the verifier keeps (after a spec with `set i | 0 <= i < a.Length :: a[i]`, the
    built-in `nat`'s quantifiers carry another `:qid` in every later program): after every request the server
    verifies a canary program and compares what it sends z3 with what it sent when fresh; a server that
    differs is not used again (`_Server.clean`). So every request starts in a state a fresh process would be in,
    as far as the canary shows; every batch of the development audit then got the command line's formula.
  - Implementations holding a literal `assume false` / `assert false` in a block that continues (loops,
    `forall` statements, `assume false` in a branch) get another formula: the command line runs Boogie's linear
    type checker, which prunes such edges before blocks are coalesced; the server does not. Batches with such
    statements go to the command line (`needs_command_line`); so does every batch the server does not verify
    cleanly (a parse or resolution error, a crash, a `[FAILURE]`): the command line's answer is then the
    answer, by construction.
* `VcsCores` above 1 would verify a batch's methods on several z3 processes (the command line uses one), so a
  server on a machine with more than 3 CPUs is started bound to 3 of them (mono's ProcessorCount follows
  the CPU affinity): ProcessorCount / 2 is then 1.

A server that outlives the wall-clock limit (the command line's, `_wall_limit`) is killed with its process
group and replaced, and its batch gets the command line's result for a killed run (a transient time-out). A
server that dies mid-request (end of output) is replaced and the batch sent once more; if the second one dies
too, the batch goes to the command line. Servers are stopped by `close()`, when the backend is collected,
and at exit.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.outcomes import Outcome, Result
from bot.verifier.dafny2 import Dafny2Backend
from bot.verifier.output import (
    _CRASH_MARKERS,
    FILE_NAME,
    MODEL_FILE,
    MODEL_FILE_LIMIT,
    _BoogieMethod,
    _Layout,
    _run_failure,
    _start_batch,
    attribute_models,
    filter_noise,
    mangle,
)
from bot.verifier.process import NO_RESULT, _Run, _wall_limit, child_environment
from bot.verifier.version import VerifierInfo

SERVER_EXE = "DafnyServer.exe"
DRIVER_EXE = "Dafny.exe"
CLIENT_EOM = b"[[DAFNY-CLIENT: EOM]]"
SERVER_EOM = b"[[DAFNY-SERVER: EOM]]"
MAX_REQUESTS = 64  # a server is replaced after so many requests, canaries included: mono keeps what it grows
# (measured: 100 MiB fresh, 138 MiB after 60 requests of the development audit)
MAX_CPUS = 3  # ProcessorCount / 2 == 1: the command line's one z3 process per batch
SCRIPT_LIMIT = 64 * 1024  # a `dafny` launcher larger than this is not read (it is not a script)
CALIBRATION_WALL = 120.0  # seconds for a new server's first request (mono start-up, JIT, a trivial program)
CANARY_WALL = 60.0  # seconds for the canary program after a request (0.3 s measured)
MAX_FAILURES = 3  # new servers in a row that fail before the backend gives up on servers (the command line stays)


# ---------------------------------------------------------------------------------------------------
# Finding the server


def find_server(info: VerifierInfo) -> tuple[str, ...] | None:
    """The command that starts DafnyServer.exe for this Dafny 2.x (`RUNTIME DIR/DafnyServer.exe`), or None.

    The `dafny` command is either a launcher script naming `.../Dafny.exe` and the runtime that runs it
    (Debian: `exec /usr/bin/cli /usr/lib/dafny/Dafny.exe "$@"`) or `RUNTIME .../Dafny.exe` itself; the
    server must lie next to that Dafny.exe. Nothing is assumed: no Dafny.exe found, no server.
    """
    if info.major > 2 or not info.command:
        return None
    tokens = list(info.command)
    launcher = shutil.which(tokens[0]) or tokens[0]
    if len(tokens) == 1:
        tokens = _script_tokens(launcher) or [launcher]
    for i, token in enumerate(tokens):
        if Path(token).name != DRIVER_EXE or not Path(token).is_absolute():
            continue
        server = Path(token).with_name(SERVER_EXE)
        if not (Path(token).is_file() and server.is_file()):
            continue
        runtime = tokens[i - 1] if i > 0 else "mono"
        found = shutil.which(runtime)
        if found is None:
            continue
        return (found, str(server))
    return None


def _script_tokens(path: str) -> list[str]:
    """The words of a small launcher script (`exec RUNTIME DIR/Dafny.exe "$@"`); [] when it is not one."""
    try:
        with open(path, "rb") as f:
            data = f.read(SCRIPT_LIMIT + 1)
    except OSError:
        return []
    if len(data) > SCRIPT_LIMIT or not data.startswith(b"#!") or b"\0" in data:
        return []
    words: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if line.lstrip().startswith("#"):
            continue
        words += [w.strip("\"'") for w in line.split()]
    return words


# ---------------------------------------------------------------------------------------------------
# Which batches the server answers exactly like the command line


# Statements whose translation can hold a literal `assume false` in a block that continues (see the module
# docstring): a harness method holding one sends its batch to the command line. Measured: `forall`
# statements, `while` loops and `assume false` in a branch change the formula; `if`, `calc`, `assert ... by`,
# `:|`, calls, quantifiers, `match` and set comprehensions in expressions, and `assert false;` as the last
# statement but `assert true;` (the vacuity probe) do not. The list is wider than what was seen to differ.
_BRANCHING = re.compile(
    r"^\s*(?:forall|while|for|if|else|match|case|calc|label|break|return|modify)\b|\bby\s*\{|\}\s*else\b",
    re.MULTILINE,
)
_FALSE = re.compile(r"\b(?:assume|assert)\s*(?:\{[^{}]*\}\s*)*false\s*;")
_ONLY_TRUE_LEFT = re.compile(r"\s*(?:assert\s+true\s*;\s*)*\}\s*\Z")


def needs_command_line(methods: Sequence[tuple[str, str]]) -> bool:
    """True when the server's formula for these harness methods could differ from the command line's."""
    for _, text in methods:
        if _BRANCHING.search(text):
            return True
        if any(not _ONLY_TRUE_LEFT.match(text, m.end()) for m in _FALSE.finditer(text)):
            return True
    return False


# ---------------------------------------------------------------------------------------------------
# Reading an answer


_VERIFYING = re.compile(r"^Verifying (?P<name>\S+) \.\.\.$")
_CONCLUSION = re.compile(
    r"^\s*\[(?:(?P<seconds>\d+(?:[.,]\d+)?) s, )?\d+ proof obligations?\]\s+(?P<outcome>\S.*?)\s*$"
)
_MESSAGE = re.compile(
    r"^(?P<file>[^()\n]*)\((?P<line>\d+),(?P<col>-?\d+)\): (?P<kind>Error|Timed out on|Out of memory on|"
    r"Out of resource on|Related location|Related message|Warning|Info)(?: (?P<code>[A-Z]+\d+))?: (?P<text>.*)$"
)
# the console's outcome words -> the /xml report's
_OUTCOMES = {
    "verified": "correct",
    "error": "errors",
    "errors": "errors",
    "timed out": "timedout",
    "out of resource": "outofresource",
    "out of memory": "outofmemory",
    "inconclusive": "inconclusive",
}
# the Boogie error code -> the message the /xml report gives (Boogie's WriteErrorInformationToXmlSink)
_XML_MESSAGES = {
    "BP5002": "precondition violation",
    "BP5003": "postcondition violation",
    "BP5004": "loop invariant entry violation",
    "BP5005": "loop invariant maintenance violation",
}
_ERROR_KINDS = ("Error", "Timed out on", "Out of memory on", "Out of resource on")


def parse_answer(text: str) -> list[_BoogieMethod] | None:
    """The methods of a server answer as the /xml report would list them; None unless the answer is a clean
    verification (every `Verifying` line concluded, no error outside a method, no crash)."""
    if any(marker in text for marker in _CRASH_MARKERS):
        return None
    methods: list[_BoogieMethod] = []
    name: str | None = None
    outcome = ""
    seconds = 0.0
    errors: list[tuple[int, str, list[int]]] = []

    def close() -> bool:
        if name is None:
            return True
        if not outcome:
            return False
        methods.append(_BoogieMethod(name, outcome, seconds, tuple((ln, m, tuple(r)) for ln, m, r in errors)))
        return True

    for line in text.splitlines():
        verifying = _VERIFYING.match(line)
        if verifying:
            if not close():
                return None
            name, outcome, seconds, errors = verifying.group("name").rsplit(".", 1)[-1], "", 0.0, []
            continue
        conclusion = _CONCLUSION.match(line)
        if conclusion and name is not None and not outcome:
            outcome = _OUTCOMES.get(conclusion.group("outcome"), "")
            if not outcome:
                return None
            seconds = float((conclusion.group("seconds") or "0").replace(",", "."))
            continue
        message = _MESSAGE.match(line.strip())
        if message is None:
            continue
        kind = message.group("kind")
        if kind in _ERROR_KINDS:
            if name is None or not outcome:
                return None  # an error outside a method: parse, resolution or translation errors
            text_ = _XML_MESSAGES.get(message.group("code") or "", "assertion violation")
            errors.append((int(message.group("line")), text_, []))
        elif kind in ("Related location", "Related message") and errors and not errors[-1][2] and outcome:
            errors[-1][2].append(int(message.group("line")))
    if not close():
        return None
    if len({m.name for m in methods}) != len(methods):
        return None
    return methods


# ---------------------------------------------------------------------------------------------------
# Server processes


_PIN_CPUS = (
    "import os, sys; os.sched_setaffinity(0, {int(c) for c in sys.argv[1].split(',')}); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def _cpus(index: int) -> list[int] | None:
    """The CPUs server number `index` is bound to: None (all) when there are at most MAX_CPUS."""
    try:
        available = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return None
    if len(available) <= MAX_CPUS:
        return None
    return sorted(available[(index + k) % len(available)] for k in range(MAX_CPUS))


def launcher(command: Sequence[str], cpus: Sequence[int] | None) -> list[str]:
    """`command`, started bound to `cpus` (by a Python that sets its affinity and execs it) when given."""
    if cpus is None:
        return list(command)
    return [sys.executable, "-I", "-c", _PIN_CPUS, ",".join(str(c) for c in cpus), *command]


# The server's z3 (see the module docstring): starts z3 and renumbers every `:skolemid` as a fresh process would,
# by the offset between the first one it sees (the first quantified axiom of Dafny's prelude, whatever the
# program) and that axiom's number in the server's first, fresh, request (BASE, found by `_Server.calibrate`).
_RELAY = """import os, re, subprocess, sys, threading
Z3 = {z3!r}
BASE = {base}
SKOLEM = re.compile(rb":skolemid \\|(\\d+)\\|")


def die_with_parent():
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: z3 dies with this relay
    except Exception:
        pass


proc = subprocess.Popen([Z3, *sys.argv[1:]], stdin=subprocess.PIPE, preexec_fn=die_with_parent)


def relay():
    offset = None
    pending = b""
    try:
        while True:
            chunk = os.read(0, 1 << 16)
            pending += chunk
            cut = len(pending) if not chunk else pending.rfind(b"\\n") + 1
            if cut:
                text, pending = pending[:cut], pending[cut:]
                if offset is None:
                    found = SKOLEM.search(text)
                    offset = None if found is None else int(found.group(1)) - BASE
                if offset:
                    text = SKOLEM.sub(lambda m: b":skolemid |%d|" % (int(m.group(1)) - offset), text)
                proc.stdin.write(text)
                proc.stdin.flush()
            if not chunk:
                break
    except OSError:
        pass
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass


threading.Thread(target=relay, daemon=True).start()
sys.exit(proc.wait())
"""
CALIBRATION = "SpecScoreServerCalibration"
_CANARY = f"method {CALIBRATION}() {{ assert true; }}\n"
_CANARY_ARGS = ("/compile:0", "/nologo", "/errorTrace:0", "/timeLimit:10", f"/proc:Impl$$*.__default.{CALIBRATION}",
                "/verifySnapshots:0", "/trace")
_SKOLEM = re.compile(rb":skolemid \|(\d+)\|")
_PROVER = re.compile(r"^\[TRACE\] Using prover: (?P<path>.+?)\s*$", re.MULTILINE)


def _read(path: Path) -> bytes | None:
    """The file's bytes, or None; the file is removed."""
    try:
        data = path.read_bytes()
        path.unlink()
    except OSError:
        return None
    return data


def _fingerprint(sent: bytes) -> str:
    """What z3 was sent, with `:skolemid`s counted from the first (what the relay makes of them)."""
    first = _SKOLEM.search(sent)
    offset = 0 if first is None else int(first.group(1))
    renumbered = _SKOLEM.sub(lambda m: b":skolemid |%d|" % (int(m.group(1)) - offset), sent)
    return hashlib.sha256(renumbered).hexdigest()


@dataclass(frozen=True)
class _Answer:
    text: str  # everything the server wrote, EOM line included
    seconds: float
    status: str  # "ok", "failure" ([FAILURE]), "died" (end of output), "hung" (wall-clock limit), "unstarted"


class _Server:
    """One DafnyServer process, in its own session (so z3 dies with it), in a folder of its own."""

    def __init__(self, command: Sequence[str]) -> None:
        self.requests = 0
        self.folder = tempfile.mkdtemp(prefix="specscore-server-")
        self.start_error = ""
        self.relay: str | None = None  # the z3 relay, once calibrated
        self.fresh = ""  # the fingerprint of what a fresh server sends z3 for the canary program
        self.logs = 0
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            self.proc = subprocess.Popen(
                list(command),
                cwd=self.folder,
                env=child_environment(os.environ),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as exc:
            self.start_error = str(exc)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def calibrate(self, z3_path: str | None, wall: float) -> bool:
        """The server's first request, in a fresh process: the canary program, to learn the z3 the server runs, the
        number of the prelude's first quantifier, and the formula a fresh process sends for it; then the z3 relay
        is written and checked with the canary. False when any of that fails."""
        log = self._log()
        answer = self.ask([*_CANARY_ARGS, f"/proverLog:{log}", *([f"/z3exe:{z3_path}"] if z3_path else [])],
                          _CANARY, wall)
        prover = z3_path or next((m.group("path") for m in _PROVER.finditer(answer.text)), None)
        sent = _read(log)
        first = None if sent is None else _SKOLEM.search(sent)
        if answer.status != "ok" or prover is None or sent is None or first is None or not Path(prover).is_absolute():
            return False
        self.fresh = _fingerprint(sent)
        code, relay = Path(self.folder, "z3-relay.py"), Path(self.folder, "z3-relay")
        try:
            code.write_text(_RELAY.format(z3=prover, base=int(first.group(1))), encoding="utf-8")
            relay.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -I {shlex.quote(str(code))} \"$@\"\n")
            relay.chmod(0o700)
        except OSError:
            return False
        self.relay = str(relay)
        return self.clean(wall)

    def clean(self, wall: float) -> bool:
        """Whether the server still sends z3, for the canary program, what it sent when it was fresh.

        Some programs change state the verifier keeps between requests (measured: after a spec with
        `set i | 0 <= i < a.Length :: a[i]`, the quantifiers of the built-in `nat` carry another `:qid` in every
        later program); such a server is not to be used again. Checked after every request."""
        log = self._log()
        answer = self.ask([*_CANARY_ARGS, f"/proverLog:{log}", f"/z3exe:{self.relay}"], _CANARY, wall)
        found = parse_answer(filter_noise(answer.text)) if answer.status == "ok" else None
        sent = _read(log)
        return (bool(found) and [m.outcome for m in found or ()] == ["correct"] and sent is not None
                and _fingerprint(sent) == self.fresh)

    def _log(self) -> Path:
        # a fresh name each time: Boogie writes a log file name it used before in the process to NAME.1
        self.logs += 1
        return Path(self.folder, f"canary-{self.logs}.smt2")

    def ask(self, args: Sequence[str], source: str, wall: float) -> _Answer:
        start = time.monotonic()
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            return _Answer(self.start_error, 0.0, "unstarted")
        self.requests += 1
        deadline = start + wall
        task = {"args": list(args), "filename": FILE_NAME, "source": source, "sourceIsFile": False}
        payload = base64.b64encode(json.dumps(task).encode("utf-8"))
        request = b"verify\n" + payload + b"\n" + CLIENT_EOM + b"\n"
        received = bytearray()
        status = self._send(request, deadline)
        if status == "ok":
            status = self._receive(received, deadline)
        text = received.decode("utf-8", errors="replace")
        return _Answer(text, time.monotonic() - start, status)

    def _send(self, data: bytes, deadline: float) -> str:
        assert self.proc is not None and self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        os.set_blocking(fd, False)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "hung"
            try:
                _, writable, _ = select.select([], [fd], [], remaining)
                if writable:
                    view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except OSError:  # EPIPE: it is gone
                return "died"
        return "ok"

    def _receive(self, received: bytearray, deadline: float) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            end = received.rfind(SERVER_EOM)
            if end >= 0 and received.endswith(b"\n") and received.find(b"\n", end) == len(received) - 1:
                line_start = received.rfind(b"\n", 0, end) + 1
                return "ok" if received[line_start:end].strip() == b"[SUCCESS]" else "failure"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "hung"
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return "died"
            if not chunk:
                return "died"
            received += chunk

    def kill(self) -> None:
        """Kill its process group (z3 included), reap it and remove its folder."""
        proc = self.proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


class _Pool:
    """Idle servers; a worker takes one for a batch and gives it back, so there are at most as many servers as
    batches verified at once (the engine's jobs)."""

    def __init__(self, command: Sequence[str], z3_path: str | None = None) -> None:
        self.command = tuple(command)
        self.z3_path = z3_path
        self.lock = threading.Lock()
        self.idle: list[_Server] = []
        self.busy: set[_Server] = set()
        self.started = 0
        self.failures = 0  # servers in a row that could not be started or calibrated

    def take(self) -> _Server | None:
        """An idle server, or a new calibrated one; None when a new one cannot be had (use the command line)."""
        with self.lock:
            if self.idle:
                server = self.idle.pop()
                self.busy.add(server)
                return server
            if self.failures >= MAX_FAILURES:
                return None
            index = self.started
            self.started += 1
        server = _Server(launcher(self.command, _cpus(index)))
        with self.lock:
            self.busy.add(server)
        if not server.calibrate(self.z3_path, CALIBRATION_WALL):
            with self.lock:
                self.failures += 1
            self.drop(server)
            return None
        with self.lock:
            self.failures = 0
        return server

    def give_back(self, server: _Server) -> None:
        with self.lock:
            keep = server in self.busy and server.alive() and server.requests < MAX_REQUESTS
            self.busy.discard(server)
            if keep:
                self.idle.append(server)
        if not keep:
            server.kill()

    def drop(self, server: _Server) -> None:
        with self.lock:
            self.busy.discard(server)
        server.kill()

    def pids(self) -> list[int]:
        with self.lock:
            servers = [*self.idle, *self.busy]
        return [s.pid for s in servers if s.pid is not None and s.alive()]

    def close(self) -> None:
        """Kill every server, idle or busy (a busy one's batch is sent again to a new one)."""
        with self.lock:
            servers = [*self.idle, *self.busy]
            self.idle.clear()
            self.busy.clear()
        for server in servers:
            server.kill()


# ---------------------------------------------------------------------------------------------------
# The backend


class DafnyServerBackend:
    """The Dafny 2.x backend on DafnyServer.exe: the same results as `Dafny2Backend` for the same batches
    (the same cache keys, too), without starting a process per batch. See the module docstring."""

    def __init__(
        self,
        info: VerifierInfo,
        server: Sequence[str],
        z3_path: str | None = None,
        wall_base: float = 30.0,
        wall_per_method: float | None = None,
    ) -> None:
        self._info = info
        self.z3_path = z3_path
        self.wall_base = wall_base
        self.wall_per_method = wall_per_method
        self.command_line = Dafny2Backend(info, z3_path=z3_path, wall_base=wall_base, wall_per_method=wall_per_method)
        self._lock = threading.Lock()
        self._changing: set[str] = set()  # preludes after whose batches a server was not clean: command line
        self._pool = _Pool(server, z3_path)
        # the servers are stopped when the backend is collected, and at exit (a finalizer still alive then runs)
        self._finalizer = weakref.finalize(self, self._pool.close)

    @property
    def info(self) -> VerifierInfo:
        return self._info

    def flags_id(self, time_limit: int) -> str:
        return self.command_line.flags_id(time_limit)

    def server_pids(self) -> list[int]:
        """The live server processes (each the leader of its process group)."""
        return self._pool.pids()

    def close(self) -> None:
        """Stop every server (a later batch starts a new one)."""
        self._pool.close()

    def args(self, names: Sequence[str], time_limit: int, model_path: str | None, relay: str | None) -> list[str]:
        """The command line's flags (no /xml: the server cannot write it), without caching, with timings, z3
        through the server's relay."""
        argv = self.command_line.command(names, time_limit, "report.xml", None)[len(self._info.command):]
        argv = [a for a in argv if not a.startswith(("/xml:", "/z3exe:")) and a != FILE_NAME]
        argv += ["/verifySnapshots:0", "/trace"]
        if relay is not None:
            argv.append(f"/z3exe:{relay}")
        if model_path is not None:
            argv.append(f"/mv:{model_path}")
        return argv

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
    ) -> dict[str, Result]:
        names, wanted, settled = _start_batch(prelude, methods, models)
        if settled is not None:
            return settled
        prelude_key = hashlib.sha256(prelude.encode("utf-8")).hexdigest()
        if needs_command_line(methods) or prelude_key in self._changing:
            return self.command_line.verify_batch(prelude, methods, time_limit, models)
        layout = _Layout.build(prelude, methods)
        wall = _wall_limit(self.wall_base, self.wall_per_method, time_limit, len(names))
        for _attempt in range(2):
            answer, model, clean = self._ask(layout.text, names, time_limit, wall, bool(wanted))
            if not clean:
                # its server is gone; a new one for the next batch of this spec would go the same way: each
                # costs more than a process per batch
                with self._lock:
                    self._changing.add(prelude_key)
            if answer.status == "hung":
                run = _Run(None, answer.text, answer.seconds, killed=True)
                failed = _run_failure(names, run, wall)
                assert failed is not None
                return failed
            if answer.status != "died":
                break
        else:
            return self.command_line.verify_batch(prelude, methods, time_limit, models)
        found = parse_answer(filter_noise(answer.text)) if answer.status == "ok" else None
        if found is None:
            # not a clean verification (parse or resolution errors, a failure): the command line's answer
            return self.command_line.verify_batch(prelude, methods, time_limit, models)
        results = self._results(layout, names, found, time_limit)
        if wanted and model is not None:
            models_found = attribute_models(found, model.decode("utf-8", errors="replace"))
            for name in wanted:
                text = models_found.get(mangle(name), "")
                if text and results[name].outcome is Outcome.REFUTED:
                    results[name] = replace(results[name], model=text)
        return results

    def _ask(
        self, source: str, names: Sequence[str], time_limit: int, wall: float, want_models: bool
    ) -> tuple[_Answer, bytes | None, bool]:
        """One request on a server of the pool, its model file, and whether the server was still clean after it
        (`_Server.clean`); a server that died, hung, failed or is not clean is dropped."""
        clean = True
        with tempfile.TemporaryDirectory(prefix="specscore-") as folder:
            model_path = str(Path(folder, MODEL_FILE)) if want_models else None
            server = self._pool.take()
            if server is None:
                return _Answer("", 0.0, "unavailable"), None, clean
            try:
                answer = server.ask(self.args(names, time_limit, model_path, server.relay), source, wall)
            except BaseException:
                self._pool.drop(server)
                raise
            clean = answer.status != "ok" or server.clean(CANARY_WALL)
            if answer.status == "ok" and clean:
                self._pool.give_back(server)
            else:
                self._pool.drop(server)
            model: bytes | None = None
            if model_path is not None:
                path = Path(model_path)
                if path.is_file() and path.stat().st_size <= MODEL_FILE_LIMIT:
                    model = path.read_bytes()
        return answer, model, clean

    @staticmethod
    def _results(
        layout: _Layout, names: Sequence[str], found: Sequence[_BoogieMethod], time_limit: int
    ) -> dict[str, Result]:
        by_mangled = {mangle(name): name for name in names}
        results: dict[str, Result] = {}
        for method in found:
            name = by_mangled.get(method.name)
            if name is not None:
                results[name] = Dafny2Backend._conclusion(layout, name, method, time_limit)
        # as the command line: a method with no conclusion in a finished run has nothing to prove
        return {name: results.get(name, Result(Outcome.ERROR, NO_RESULT, 0.0)) for name in names}
