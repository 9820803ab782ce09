"""The Dafny 2.x verifier kept alive: one process per worker that runs Dafny.exe's own `Main` per request,
instead of one `dafny` process per batch.

Each `dafny` process spends 1-3 s starting mono and JIT-compiling the verifier before z3 sees a formula. The
kept-alive process is a small host (`host.cs`, next to this file), compiled with `mcs` (a dependency of Debian's
`dafny` package) into a private folder the first time a server is needed. For each request it runs
`Dafny.exe ARGS` in the request's folder, inside the host's process, and answers with the exit code and everything Dafny
printed (encoded so that no program text can end or forge an answer): the command line's own pipeline, flags,
`/xml` report and `/mv` models, read by `Dafny2Backend.verify_batch` exactly as after a process of its own.

Why not `DafnyServer.exe`, which Debian's Dafny ships: its pipeline skips Boogie's linear type checker, which on
the command line prunes the edges after a literal `assume false` before blocks are coalesced. So every harness
holding a `forall` statement (the case-split hints, about a third of the development audit's batches) got another
formula than the command line's: measured on task 632, one acceptance verified in 10.7 s on the command line and
timed out at 20 s on DafnyServer. Those batches had to start a process each. The host gives the command line's
formula for every batch: the z3 input (`/proverLog:`) of all 30 such batches of the development audit was
compared with the command line's, and was the same (`tests/verifier/test_server.py` checks it on a `forall` statement).

What the host shares with any long-lived verifier, measured on Dafny 2.3.0.10506 (Debian, mono 6.8):
* `:skolemid |N|` numbers come from a counter of the process, and z3's counterexample models depend on them (the
  same batch gave other models on a second request): z3 is started through a relay that renumbers them as a
  fresh process would (`_RELAY`).
* Some programs change state the verifier keeps (after a spec with `set i | 0 <= i < a.Length :: a[i]`, the
  built-in `nat`'s quantifiers carry another `:qid` in every later program): after every request the server
  verifies a canary program and compares what it sends z3 with what it sent when fresh; a server that differs is
  not used again (`_Server.clean`), and the batches of that spec go to the command line. The canary goes on after
  the batch is answered (Pool.check_then_give_back), and the server is asked again only once it is clean. Only what
  is sent is compared and the canary's goal is valid, so a stand-in answers it instead of z3 (`_STAND_IN`); after a
  canary that is not clean with it, z3 does, for the rest of the process.
* z3 does not outlive a request; `/mv:` appends to its file, so every request has a fresh folder.
* Boogie resets z3 and sends its whole prelude before every check: the relay keeps the part the checks share at
  z3's level 0 instead (bot/verifier/prelude_reuse.py; not with `reuse=False`, `--strategy each`); a check whose
  counterexample is read, or a procedure of a checked declaration (`checks`: which assertion failed is read from
  z3's model), named in the batch's folder (FRESH_FILE), that z3 does not prove is sent again as Boogie sent it,
  and its answer and model are z3's after that (the relay reads z3's output for it).

A server that outlives the wall-clock limit (the command line's, `Dafny2Backend.wall_limit`) is killed with its process
group and replaced, and its batch gets the command line's result for a killed run (a transient time-out). A
server that dies mid-request (end of output) is replaced and the batch sent once more; if the second one dies
too, the batch goes to the command line; so does a batch whose request failed in the host (an exception out of
Dafny's `Main`). The backends of one process share their servers (`shared_pool`: a clean server is as good as new
for the next run as for the next batch); they are stopped by `close()` and at exit.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import contextlib
import functools
import hashlib
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
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from bot.symbolic.program import Result
from bot.verifier.dafny2 import Dafny2Backend
from bot.verifier.output import FILE_NAME, FRESH_FILE, mangle
from bot.verifier.process import ProcessRun, child_environment
from bot.verifier.version import VerifierInfo, VerifierNotFound, detect

DRIVER_EXE = "Dafny.exe"
HOST_SOURCE = Path(__file__).with_name("host.cs")
REUSE_SOURCE = Path(__file__).with_name("prelude_reuse.py")  # the relay's first part
HOST_EXE = "specscore-host.exe"  # the compiled host (what a process listing shows)
COMPILER = "mcs"  # mono's C# compiler; Debian's `dafny` package depends on it
CLIENT_EOM = b"[[DAFNY-CLIENT: EOM]]"
MAX_REQUESTS = 64  # a server is replaced after so many requests, canaries included: mono keeps what it grows
# (measured on the host with the development audit's `forall` batches and their canaries: 69 MiB fresh,
# 135 MiB after 62 requests, at most 148 MiB over 162)
SCRIPT_LIMIT = 64 * 1024  # a `dafny` launcher larger than this is not read (it is not a script)
COMPILE_WALL = 120.0  # seconds for compiling the host (0.16 s measured)
CALIBRATION_WALL = 120.0  # seconds for a new server's first request (mono start-up, JIT, a trivial program)
CANARY_WALL = 60.0  # seconds for the canary program after a request (0.08 s measured)
STAND_IN_WALL = 20.0  # seconds for a new server's first canary with the stand-in prover (see `_STAND_IN`)
MOST_WARM = 4  # servers started ahead at most (Pool.warm), whatever `jobs` says: the engine starts more as needed
MAX_FAILURES = 3  # new servers in a row that fail before the backend gives up on servers (the command line stays)
ANSWER_LIMIT = 64 * 1024 * 1024  # bytes of one answer line; a longer one is a broken server


# ---------------------------------------------------------------------------------------------------
# Finding the server


@dataclass(frozen=True)
class ServerCommand:
    """What a server needs: the runtime that runs Dafny.exe, Dafny.exe itself, and the C# compiler."""

    runtime: str
    driver: str
    compiler: str


def find_server(info: VerifierInfo) -> ServerCommand | None:
    """How to keep this Dafny 2.x alive, or None (then the command line runs every batch).

    The `dafny` command is either a launcher script naming `.../Dafny.exe` and the runtime that runs it
    (Debian: `exec /usr/bin/cli /usr/lib/dafny/Dafny.exe "$@"`) or `RUNTIME .../Dafny.exe` itself; the host
    loads that Dafny.exe, so it must be found, and `mcs` must be on PATH. Nothing is assumed.
    """
    if info.major > 2 or not info.command:
        return None
    compiler = shutil.which(COMPILER)
    if compiler is None or not HOST_SOURCE.is_file():
        return None
    tokens = list(info.command)
    launcher = shutil.which(tokens[0]) or tokens[0]
    if len(tokens) == 1:
        tokens = _script_tokens(launcher) or [launcher]
    for i, token in enumerate(tokens):
        if Path(token).name != DRIVER_EXE or not Path(token).is_absolute() or not Path(token).is_file():
            continue
        runtime = shutil.which(tokens[i - 1] if i > 0 else "mono")
        if runtime is not None:
            return ServerCommand(runtime, token, compiler)
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


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process group `process` leads, unless it was reaped (its number may be another's by then)."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)


def compile_host(
    command: ServerCommand, folder: str, started: Callable[[subprocess.Popen[bytes]], None] | None = None
) -> str | None:
    """`host.cs` compiled into `folder` (the pool's own, not shared: a cached executable could be anyone's);
    the executable's path, or None when it cannot be built. `started` is given the compiler's process (the exit
    kills it rather than wait for it)."""
    exe = str(Path(folder, HOST_EXE))
    try:
        with subprocess.Popen(
            [command.compiler, "-nologo", "-optimize+", f"-out:{exe}", str(HOST_SOURCE)],
            cwd=folder,
            env=child_environment(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its group is killed: a wrapper script's children hold its pipes too
        ) as compiler:
            if started is not None:
                started(compiler)
            try:
                compiler.communicate(timeout=COMPILE_WALL)
            except subprocess.TimeoutExpired:
                _kill_group(compiler)
                compiler.communicate()
                return None
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if compiler.returncode == 0 and Path(exe).is_file() else None


# ---------------------------------------------------------------------------------------------------
# Server processes


# The server's z3 (see the module docstring): starts z3 and renumbers every `:skolemid` as a fresh process would,
# by the offset between the first one it sees (the first quantified axiom of Dafny's prelude, whatever the
# program) and that axiom's number in the server's first, fresh, request (BASE, found by `_Server.calibrate`).
_RELAY = """import os, queue, re, subprocess, sys, threading
Z3 = {z3!r}
BASE = {base}
REUSE = {reuse}
FRESH = {fresh!r}
SKOLEM = re.compile(rb":skolemid \\|(\\d+)\\|")


def die_with_parent():
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: z3 dies with this relay
    except Exception:
        pass


def fresh():
    # the checks whose models are read (the batch's folder is z3's working directory)
    try:
        with open(FRESH, "rb") as names:
            return frozenset(names.read(1 << 20).split())
    except OSError:
        return frozenset()


reuse = PreludeReuse(fresh()) if REUSE else None
WATCH = reuse is not None and bool(reuse.fresh)  # z3's output is read only for such a batch; else it is Boogie's
proc = subprocess.Popen([Z3, *sys.argv[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE if WATCH else None,
                        preexec_fn=die_with_parent)
settled = threading.Event()  # no check's answer is watched (AnswerWatch)
settled.set()
watching = []
outbox = queue.SimpleQueue()  # with WATCH: what z3 is sent, by one writer (a reader never waits on z3's input)


def write(data):
    proc.stdin.write(data)
    proc.stdin.flush()


def writer():
    try:
        while True:
            data = outbox.get()
            if data is None:
                break
            write(data)
    except (OSError, ValueError):
        pass
    finally:
        try:
            proc.stdin.close()
        except (OSError, ValueError):
            pass


def send(data):
    if data:
        if WATCH:
            outbox.put(data)
        else:
            write(data)


def emit(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


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
                if reuse is None:
                    send(text)
                    continue
                out = b""
                for line in reuse.pieces(text):
                    settled.wait()  # a watched answer first: the replay goes before anything after its check
                    out += reuse.feed(line)
                    replay = reuse.take_watch()
                    if replay is not None and WATCH:
                        watching[:] = [AnswerWatch(reuse, replay)]
                        settled.clear()
                        send(out)
                        out = b""
                send(out)
            if not chunk:
                break
    except (OSError, ValueError):
        pass
    finally:
        if WATCH:
            outbox.put(None)
        else:
            try:
                proc.stdin.close()
            except (OSError, ValueError):
                pass


def answers():
    # z3's output to Boogie, with a watched check's answer read first
    pending = b""
    try:
        while True:
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            pending += chunk
            cut = len(pending) if not chunk else pending.rfind(b"\\n") + 1
            if cut:
                text, pending = pending[:cut], pending[cut:]
                if watching:
                    out = b""
                    for line in text.splitlines(keepends=True):
                        if not watching:
                            out += line
                            continue
                        to_boogie, to_z3 = watching[0].read(line)
                        out += to_boogie
                        send(to_z3)
                        if watching[0].done:
                            watching.clear()
                            settled.set()
                    text = out
                emit(text)
            if not chunk:
                break
    except (OSError, ValueError):
        pass
    finally:
        watching.clear()
        settled.set()


threads = [threading.Thread(target=relay, daemon=True)]
if WATCH:
    threads += [threading.Thread(target=writer, daemon=True), threading.Thread(target=answers)]
for thread in threads:
    thread.start()
code = proc.wait()
if WATCH:
    threads[2].join()  # the last of z3's output
sys.exit(code)
"""
# The canary's prover: the canary is read for what Boogie sends z3 (its fingerprint), and its one goal is valid, so a
# stand-in that answers as z3 does for it saves z3's start and its reading of the prelude (measured: 0.12 s a canary
# with z3 through the relay, 0.08 s with this; the fingerprint is the same). A server whose canary does not verify
# with it checks its canaries with z3 (see `_Server.calibrate`).
_STAND_IN = """import os, sys
ANSWERS = {b"(get-info :name)": b'(:name "Z3")', b"(check-sat)": b"unsat"}
pending = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    pending += chunk
    lines = pending.split(b"\\n")
    pending = lines.pop()
    for line in lines:
        command = line.strip()
        if command == b"(exit)":
            sys.exit(0)
        if command in ANSWERS:
            os.write(1, ANSWERS[command] + b"\\n")
"""


def _relay(z3: str, base: int, reuse: bool) -> str:
    """The relay's script: PreludeReuse's module (its source: the relay runs without the package), then the relay."""
    relay = _RELAY.format(z3=z3, base=base, reuse=reuse, fresh=FRESH_FILE)
    return f"{REUSE_SOURCE.read_text(encoding='utf-8')}\n\n{relay}"


class _StandIn:
    usable = True  # until a server's canary fails with it


_stand_in = _StandIn()
CALIBRATION = "SpecScoreServerCalibration"
_CANARY = f"method {CALIBRATION}() {{ assert true; }}\n"
_CANARY_ARGS = ("/compile:0", "/nologo", "/errorTrace:0", "/timeLimit:10", f"/proc:Impl$$*.__default.{CALIBRATION}",
                "/trace")
_SKOLEM = re.compile(rb":skolemid \|(\d+)\|")
_PROVER = re.compile(r"^\[TRACE\] Using prover: (?P<path>.+?)\s*$", re.MULTILINE)
_VERIFIED_ONE = re.compile(r"^Dafny program verifier finished with 1 verified, 0 errors\s*$", re.MULTILINE)


def _read(path: Path) -> bytes | None:
    """The file's bytes, or None; the file is removed."""
    try:
        data = path.read_bytes()
        path.unlink()
    except OSError:
        return None
    return data


def fingerprint(sent: bytes) -> str:
    """What z3 was sent, with `:skolemid`s counted from the first (what the relay makes of them)."""
    first = _SKOLEM.search(sent)
    offset = 0 if first is None else int(first.group(1))
    renumbered = _SKOLEM.sub(lambda m: b":skolemid |%d|" % (int(m.group(1)) - offset), sent)
    return hashlib.sha256(renumbered).hexdigest()


@dataclass(frozen=True)
class _Answer:
    text: str  # everything Dafny printed
    seconds: float
    status: str  # "ok", "failure" (an exception in the host), "died" (end of output), "hung" (wall-clock limit),
    # "unstarted", "unavailable" (no server could be had)
    returncode: int | None = None  # Dafny's exit code, when "ok"


def read_answer(line: bytes) -> tuple[str, int | None, str]:
    """(status, exit code, output) of one answer line of the host; a line it cannot have written is "died"."""
    parts = line.rstrip(b"\n").split(b" ")
    try:
        if parts[0] == b"OK" and len(parts) == 3:
            return "ok", int(parts[1]), base64.b64decode(parts[2], validate=True).decode("utf-8", errors="replace")
        if parts[0] == b"FAILURE" and len(parts) == 2:
            return "failure", None, base64.b64decode(parts[1], validate=True).decode("utf-8", errors="replace")
    except (ValueError, binascii.Error):
        pass
    return "died", None, ""


class _Server:
    """One host process, in its own session (so z3 dies with it), in a folder of its own."""

    def __init__(self, command: Sequence[str], reuse: bool = True) -> None:
        self.reuse = reuse  # the relay keeps the prelude z3 holds (bot/verifier/prelude_reuse.py)
        self.requests = 0
        self.folder = tempfile.mkdtemp(prefix="specscore-server-")
        self.start_error = ""
        self.relay: str | None = None  # the z3 relay, once calibrated
        self.canary_prover: str | None = None  # what the canary's Boogie talks to: the stand-in, or the relay
        self.fresh = ""  # the fingerprint of what a fresh server sends z3 for the canary program
        self.logs = 0
        # `kill` comes from any thread (`Pool.close`, at exit), a request from the one that holds the server: the
        # pipes are closed by whichever of the two ends last, never under a request reading them (a closed pipe's
        # number is the next pipe's, another server's, whose answer the request would then read)
        self._state = threading.Lock()
        self._asking = False
        self._killed = False
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            self.proc = subprocess.Popen(
                list(command),
                cwd=self.folder,
                env=child_environment(os.environ),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
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
        is written and checked with the canary, and so is the stand-in that answers the later canaries (z3 answers
        them when it does not do). False when any of that fails but the stand-in's check."""
        log = self._log()
        answer = self._canary([*_CANARY_ARGS, f"/proverLog:{log}", *([f"/z3exe:{z3_path}"] if z3_path else [])], wall)
        prover = z3_path or next((m.group("path") for m in _PROVER.finditer(answer.text)), None)
        sent = _read(log)
        first = None if sent is None else _SKOLEM.search(sent)
        if answer.status != "ok" or prover is None or sent is None or first is None or not Path(prover).is_absolute():
            return False
        self.fresh = fingerprint(sent)
        try:
            relay = _relay(prover, int(first.group(1)), self.reuse)
            self.relay = self.canary_prover = self._script("z3-relay", relay)
            stand_in = self._script("z3-stand-in", _STAND_IN) if _stand_in.usable else None
        except OSError:
            return False
        if not self.clean(wall):  # the relay itself, once, before any batch goes through it
            return False
        if stand_in is None:
            return True
        self.canary_prover = stand_in
        answer, clean = self._clean(min(wall, STAND_IN_WALL))
        if clean:
            return True
        # z3 itself for the canaries of this server and of the process's later ones
        _stand_in.usable = False
        self.canary_prover = self.relay
        return answer.status == "ok"  # a hung or dead request leaves no host to use: a new server then

    def _script(self, name: str, code: str) -> str:
        """A Python script in the server's folder, and the executable that runs it (what `/z3exe:` takes).
        `-I -S`: the standard library only, without the site's start-up (about 20 ms of every z3 start)."""
        source, runner = Path(self.folder, f"{name}.py"), Path(self.folder, name)
        source.write_text(code, encoding="utf-8")
        runner.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(source))} \"$@\"\n")
        runner.chmod(0o700)
        return str(runner)

    def clean(self, wall: float) -> bool:
        """Whether the server still sends z3, for the canary program, what it sent when it was fresh.

        Some programs change state the verifier keeps between requests (measured: after a spec with
        `set i | 0 <= i < a.Length :: a[i]`, the quantifiers of the built-in `nat` carry another `:qid` in every
        later program); such a server is not to be used again. Checked after every request."""
        return self._clean(wall)[1]

    def _clean(self, wall: float) -> tuple[_Answer, bool]:
        log = self._log()
        answer = self._canary([*_CANARY_ARGS, f"/proverLog:{log}", f"/z3exe:{self.canary_prover}"], wall)
        sent = _read(log)
        return answer, (answer.status == "ok" and answer.returncode == 0 and bool(_VERIFIED_ONE.search(answer.text))
                        and sent is not None and fingerprint(sent) == self.fresh)

    def _log(self) -> Path:
        # a fresh name each time: Boogie writes a log file name it used before in the process to NAME.1
        self.logs += 1
        return Path(self.folder, f"canary-{self.logs}.smt2")

    def _canary(self, args: Sequence[str], wall: float) -> _Answer:
        """The canary program, verified in the server's folder (written there once: Dafny writes nothing
        besides the prover log asked for)."""
        canary = Path(self.folder, FILE_NAME)
        try:
            if not canary.is_file():
                canary.write_text(_CANARY, encoding="utf-8")
        except OSError as exc:
            return _Answer(str(exc), 0.0, "unstarted")
        return self.ask([*args, FILE_NAME], self.folder, wall)

    def ask(self, args: Sequence[str], folder: str, wall: float) -> _Answer:
        """Run `Dafny.exe ARGS` in `folder`, within `wall` seconds; "died" once the server is killed."""
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            return _Answer(self.start_error, 0.0, "unstarted")
        with self._state:
            if self._killed:
                return _Answer("", 0.0, "died")
            self._asking = True
        try:
            return self._ask(args, folder, wall)
        finally:
            with self._state:
                self._asking = False
                killed = self._killed
            if killed:
                self._close_pipes()

    def _ask(self, args: Sequence[str], folder: str, wall: float) -> _Answer:
        start = time.monotonic()
        self.requests += 1
        deadline = start + wall
        payload = base64.b64encode("\0".join([folder, *args]).encode("utf-8"))
        received = bytearray()
        status = self._send(b"verify\n" + payload + b"\n" + CLIENT_EOM + b"\n", deadline)
        if status == "ok":
            status = self._receive(received, deadline)
        if status != "ok":  # what came of the answer line is no output of Dafny's
            return _Answer("", time.monotonic() - start, status)
        status, code, text = read_answer(bytes(received))
        return _Answer(text, time.monotonic() - start, status, code)

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
        """Read one answer line (the host writes nothing else)."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while not received.endswith(b"\n"):
            if len(received) > ANSWER_LIMIT:
                return "died"
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
        return "ok" if received.count(b"\n") == 1 else "died"

    def kill(self) -> None:
        """Kill its process group (z3 included), reap it and remove its folder."""
        proc = self.proc
        if proc is not None:
            with self._state:
                again = self._killed  # its group is gone and reaped: its number may be another's by now
                self._killed = True
                idle = not self._asking  # else the request in flight closes them as it ends (`ask`)
            if not again:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            if idle:
                self._close_pipes()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _close_pipes(self) -> None:
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()


def _in_background(target: Callable[[], None], name: str) -> None:
    """`target` in a daemon thread the process's exit waits for (`_close_pools`): one still going while the
    interpreter finalizes aborts it when it writes to stderr then (measured: a warm-up's traceback at the exit of a
    run that ended early, exit -6, "could not acquire lock for <stderr> at interpreter shutdown")."""

    def run() -> None:
        try:
            target()
        finally:
            with _BACKGROUND_LOCK:
                _BACKGROUND.discard(thread)

    thread = threading.Thread(target=run, name=name, daemon=True)
    # added and started under the lock, so that the exit never finds one it cannot join yet (not started); the thread
    # takes the lock only once its target is over
    with _BACKGROUND_LOCK:
        _BACKGROUND.add(thread)
        try:
            thread.start()
        except BaseException:
            _BACKGROUND.discard(thread)
            raise


class Pool:
    """Idle servers; a worker takes one for a batch and gives it back, so there are at most as many servers as
    batches verified at once (the engine's jobs). The host is compiled when the first server is needed."""

    def __init__(self, command: ServerCommand, z3_path: str | None = None, reuse: bool = True) -> None:
        self.command = command
        self.z3_path = z3_path
        self.reuse = reuse
        self.lock = threading.Lock()
        self.ready = threading.Condition(self.lock)  # a server's canary after a request is over
        self.idle: list[_Server] = []
        self.busy: set[_Server] = set()
        self.checking = 0  # servers whose canary after a request is going (Pool.check_then_give_back)
        self.warming = 0  # servers started ahead (Pool.warm), not yet calibrated
        self.closings = 0  # times `close` was called
        self.shut = False  # closed for good (`shut_down`, at exit): no server is started after
        self.started = 0
        self.failures = 0  # servers in a row that could not be started or calibrated
        self.folder: str | None = None  # where the host is compiled
        self.host: str | None = None  # the compiled host, once built
        self.compile_lock = threading.Lock()
        self.compiler: subprocess.Popen[bytes] | None = None  # the host's compiler, once started

    def _host(self) -> str | None:
        """The compiled host; None when it does not compile, or the pool is shut (the exit would not remove a host
        compiled after it, nor wait for the compiler: see `close`)."""
        with self.compile_lock:
            if self._is_shut():
                return None
            if self.host is None and self.folder is None:
                self.folder = tempfile.mkdtemp(prefix="specscore-host-")
                self.host = compile_host(self.command, self.folder, self._compiling)
                if self._is_shut():  # shut while it compiled: `close` left the folder to this thread
                    self._remove_host()
            return self.host

    def _compiling(self, compiler: subprocess.Popen[bytes]) -> None:
        with self.lock:
            self.compiler = compiler
            shut = self.shut
        if shut:  # shut as it started: `close` may have looked before
            _kill_group(compiler)

    def _is_shut(self) -> bool:
        with self.lock:
            return self.shut

    def _remove_host(self) -> None:
        """Under `compile_lock`."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self.folder, self.host = None, None

    def take(self) -> _Server | None:
        """An idle server, or a new calibrated one; None when a new one cannot be had (use the command line). While
        no server is idle and one is being started ahead (`warm`) or checked after a request (a canary takes a
        tenth of a second, a new server more than one), it waits for that one."""
        with self.lock:
            while not self.idle and (self.checking or self.warming):
                self.ready.wait()
            if self.idle:
                server = self.idle.pop()
                self.busy.add(server)
                return server
            if self.failures >= MAX_FAILURES or self.shut:
                return None
            self.started += 1
        return self._start()

    def warm(self, count: int) -> None:
        """Start servers in the background until the pool has `count` (idle, busy or starting): the Action's runs
        start them while the tool loads and reads the pull request (bot/github/early.py)."""
        with self.lock:
            wanted = min(count, MOST_WARM) - len(self.idle) - len(self.busy) - self.warming
            if wanted <= 0 or self.failures >= MAX_FAILURES or self.shut:
                return
            self.warming += wanted
            self.started += wanted
            closings = self.closings

        def one() -> None:
            server = None
            try:
                with self.lock:
                    closed = self.closings != closings
                if not closed:  # a pool closed meanwhile starts nothing more (`close` removed its host)
                    server = self._start(closings)
            finally:
                with self.lock:
                    self.warming -= 1
                    if server is not None and server in self.busy:  # not killed by `close` meanwhile
                        self.busy.discard(server)
                        self.idle.append(server)
                    self.ready.notify_all()

        for started in range(wanted):
            try:
                _in_background(one, "specscore-warm")
            except BaseException:  # a process out of threads: those not started are not waited for
                with self.lock:
                    self.warming -= wanted - started
                    self.started -= wanted - started
                    self.ready.notify_all()
                raise

    def _start(self, closings: int | None = None) -> _Server | None:
        """A new calibrated server, busy; None when there is none to be had. `closings` (a server started ahead): the
        pool's count of `close` calls when it was asked for; one closed since counts no failure."""
        host = self._host()
        if host is None:
            with self.lock:
                if not self.shut:
                    self.failures = MAX_FAILURES  # the compiler will not do better next time
            return None
        server = _Server([self.command.runtime, host, self.command.driver], self.reuse)
        with self.lock:
            # started ahead for a pool closed since (its host compiled meanwhile), or at exit: `close` would not
            # have seen it, and it would outlive the process's exit
            stale = self.shut or (closings is not None and closings != self.closings)
            if not stale:
                self.busy.add(server)
        if stale:
            server.kill()
            if self.shut:  # a host compiled for a pool `close` found compiling (it did not wait)
                with self.compile_lock:
                    self._remove_host()
            return None
        if not server.calibrate(self.z3_path, CALIBRATION_WALL):
            with self.lock:
                if closings is None or closings == self.closings:  # not one `close` killed
                    self.failures += 1
            self.drop(server)
            return None
        with self.lock:
            self.failures = 0
        return server

    def check_then_give_back(self, server: _Server, dirty: Callable[[], None], closings: int) -> None:
        """`server` after a request answered: its canary (`_Server.clean`) is verified in a thread of its own, so
        that the batch's answer waits for it no more (measured: the pull request's 20 batches waited 2 s in all for
        their canaries); the server is given back once clean, and dropped, after `dirty()`, when not. No request
        goes to it before: a server is asked only clean, as when the canary went before the answer. `closings`: the
        pool's count of `close` calls before the request was sent (a server `close` killed since says nothing of the
        spec)."""
        with self.lock:
            self.checking += 1

        def check() -> None:
            clean = False
            try:
                clean = server.clean(CANARY_WALL)
                with self.lock:
                    closed = self.closings != closings
                if not clean and not closed:  # a server `close` killed says nothing of the spec
                    dirty()
            finally:
                with self.lock:
                    self.checking -= 1
                if clean:
                    self.give_back(server)
                else:
                    self.drop(server)
                with self.lock:
                    self.ready.notify_all()

        try:
            _in_background(check, "specscore-canary")
        except BaseException:  # no thread (a process out of threads): no canary, so the server is not asked again
            with self.lock:
                self.checking -= 1
                self.ready.notify_all()
            self.drop(server)
            raise

    def checked(self) -> None:
        """Wait until no canary after a request is going (tests)."""
        with self.lock:
            while self.checking:
                self.ready.wait()

    def give_back(self, server: _Server) -> None:
        with self.lock:
            keep = server in self.busy and server.alive() and server.requests < MAX_REQUESTS
            self.busy.discard(server)
            if keep:
                self.idle.append(server)
            self.ready.notify_all()
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

    def shut_down(self) -> None:
        """`close`, for good: nothing is started after (the process is exiting)."""
        with self.lock:
            self.shut = True
        self.close()

    def close(self) -> None:
        """Kill every server, idle or busy (a busy one's batch is sent again to a new one), and remove the host."""
        with self.lock:
            self.closings += 1
            servers = [*self.idle, *self.busy]
            self.idle.clear()
            self.busy.clear()
        for server in servers:
            server.kill()
        # a shut pool does not wait for a compiler still going (up to COMPILE_WALL, longer than the exit waits for
        # any thread): the thread that compiles removes the host once it sees the pool shut (`_host`, `_start`)
        with self.lock:
            shut, compiler = self.shut, self.compiler
        if shut and compiler is not None:
            _kill_group(compiler)  # ends at once: its thread then finds the pool shut and removes the host
        if self.compile_lock.acquire(blocking=not shut):
            try:
                self._remove_host()
            finally:
                self.compile_lock.release()


# The pools of one process, shared by its backends (a test session's runs, the Action's base and head): a new
# server costs a runtime start and a calibration, and a new pool the host's compilation, about a second each. A
# server given back is clean (Pool.give_back), so the next run, like the next batch, gets one as good as new.
_POOLS: dict[tuple[ServerCommand, str | None, bool], tuple[tuple[tuple[str, str], ...], Pool]] = {}
_EVERY_POOL: list[Pool] = []  # stopped at exit, those replaced too (a backend may still hold one)
_POOLS_LOCK = threading.Lock()
_EXITING = False  # the pools are shut (`_close_pools`): one asked for later is shut from its start
_BACKGROUND: set[threading.Thread] = set()  # warm-ups, canaries, the early start (`_in_background`)
_BACKGROUND_LOCK = threading.Lock()
EXIT_WAIT = 10.0  # seconds the exit waits for them, once their servers are killed (they then end at once)


def shared_pool(command: ServerCommand, z3_path: str | None, reuse: bool = True) -> Pool:
    """The process's pool for this server command and solver. Servers started in another child environment are
    stopped and the pool replaced, so idle servers never pile up (at most one pool's per command)."""
    env = tuple(sorted(child_environment(os.environ).items()))
    with _POOLS_LOCK:
        found = _POOLS.get((command, z3_path, reuse))
        if found is not None and found[0] == env:
            return found[1]
        pool = Pool(command, z3_path, reuse)
        pool.shut = _EXITING  # the early start's, when the run ended first: it starts nothing
        _POOLS[(command, z3_path, reuse)] = (env, pool)
        _EVERY_POOL.append(pool)
    if found is not None:
        found[1].close()
    return pool


def prewarm(dafny: str, z3_path: str | None, count: int) -> None:
    """Start `count` servers of `dafny` (the pool `make_backend` then takes, with `reuse`) in the background, when it
    is a Dafny 2.x with a server; nothing otherwise. Whatever goes wrong here is left for the run to meet and report
    where it looks (a missing verifier, a host that does not compile): this only starts processes early."""

    def start() -> None:
        try:
            info = detect(dafny)
        except VerifierNotFound:
            return
        command = find_server(info) if info.major <= 2 else None
        if command is not None:
            shared_pool(command, z3_path).warm(count)

    _in_background(start, "specscore-prewarm")


@atexit.register
def _close_pools() -> None:
    global _EXITING
    with _POOLS_LOCK:
        _EXITING = True
        pools = list(_EVERY_POOL)
    for pool in pools:
        pool.shut_down()
    deadline = time.monotonic() + EXIT_WAIT
    while True:  # one ending may have started another (the early start its warm-ups: they then start nothing)
        with _BACKGROUND_LOCK:
            going = next(iter(_BACKGROUND), None)
        if going is None or time.monotonic() >= deadline:
            return
        going.join(max(0.0, deadline - time.monotonic()))


# ---------------------------------------------------------------------------------------------------
# The backend


class _NoRun(Exception):
    """A request that got no answer to read as a run: `status` is the _Answer's."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def _fresh_checks(folder: str, checks: Sequence[str]) -> None:
    """Name a background check's declarations among the batch's checks whose counterexamples are read (FRESH_FILE).

    Their failures are read by which assertion Boogie names, and Boogie names the one z3's labels say, which come from
    z3's model: on an `unknown` (incomplete quantifiers) z3 holding the prelude names other assertions than z3 after a
    reset for the same formula (measured: the implementation check of examples/shared_elements.dfy with its suggested
    clause, "postcondition violation" from the command line, "loop invariant entry violation" from the kept prelude).
    So a check of theirs that z3 does not prove is sent again as Boogie sent it, as for a counterexample read."""
    names = [mangle(n) for name in checks for n in (name, name + "#")]
    with open(Path(folder, FRESH_FILE), "a", encoding="utf-8") as f:
        f.write("".join(f"{name}\n" for name in names))


class DafnyServerBackend:
    """The Dafny 2.x backend on a kept-alive verifier: `Dafny2Backend.verify_batch` (the command line's flags,
    reports, results and cache keys) with a runner that asks a server instead of starting a process per batch.
    See the module docstring."""

    mixed_checks: ClassVar[bool] = True  # as the command line's (Dafny2Backend)

    def __init__(
        self,
        info: VerifierInfo,
        server: ServerCommand,
        z3_path: str | None = None,
        wall_base: float = 30.0,
        wall_per_method: float | None = None,
        reuse: bool = True,
    ) -> None:
        self._info = info
        self.reuse = reuse
        self.command_line = Dafny2Backend(info, z3_path=z3_path, wall_base=wall_base, wall_per_method=wall_per_method)
        self._lock = threading.Lock()
        self._changing: set[str] = set()  # preludes after whose batches a server was not clean: command line
        self._pool = shared_pool(server, z3_path, reuse)  # its servers are stopped at exit, or by close()

    @property
    def info(self) -> VerifierInfo:
        return self._info

    def flags_id(self, time_limit: int) -> str:
        # a program near its limit may end otherwise when z3 keeps the prelude: its own cache entries (`2`: since the
        # checks whose models are read get a reset, entries made before hold other models; `3`: so do the checked
        # declarations' procedures, whose failures entries made before may name otherwise)
        return self.command_line.flags_id(time_limit) + (" +prelude-reuse3" if self.reuse else "")

    def server_pids(self) -> list[int]:
        """The live server processes (each the leader of its process group), once every canary after a request is
        over (Pool.check_then_give_back: until then, whether its server stays is not known)."""
        self._pool.checked()
        return self._pool.pids()

    def close(self) -> None:
        """Stop every server of the pool, which other backends of the process share (a later batch starts a new
        one). A batch another backend has in flight then ends as a transient error, never as a verdict: the
        process's own runs never close a pool while another runs; tests do, between runs."""
        self._pool.close()

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
        *,
        checks: Sequence[str] = (),
        wall: float | None = None,
        background: str = "",
    ) -> dict[str, Result]:
        prelude_key = hashlib.sha256(prelude.encode("utf-8")).hexdigest()
        with self._lock:
            changing = prelude_key in self._changing
        line = self.command_line
        # exactly the calls made before background checks and budgets existed, when there are none
        extra: dict[str, Any] = {"checks": checks} if checks else {}
        if wall is not None:
            extra["wall"] = wall
        if background:
            extra["background"] = background

        def command_line(runner: Callable[[Sequence[str], str, float], ProcessRun] | None = None) -> dict[str, Result]:
            if runner is None:
                return line.verify_batch(prelude, methods, time_limit, models, **extra)
            return line.verify_batch(prelude, methods, time_limit, models, runner, **extra)

        if changing:
            return command_line()

        def on_server(argv: Sequence[str], folder: str, wall: float) -> ProcessRun:
            if self.reuse and checks:
                _fresh_checks(folder, checks)
            return self._run_on_server(prelude_key, argv, folder, wall)

        for _attempt in range(2):
            try:
                return command_line(on_server)
            except _NoRun as no_run:
                if no_run.status != "died":
                    break  # no server, or the request failed in the host: the command line's answer
                # died: once more, on a new server
        return command_line()

    def _run_on_server(self, prelude_key: str, argv: Sequence[str], folder: str, wall: float) -> ProcessRun:
        """What the command line's run of `argv` in `folder` would have been (a killed one for a hang), asked of a
        server instead; raises _NoRun when there is no answer to read."""
        answer = self._ask(prelude_key, argv, folder, wall)
        if answer.status not in ("ok", "hung"):
            raise _NoRun(answer.status)
        return ProcessRun(answer.returncode, answer.text, answer.seconds, killed=answer.status == "hung")

    def _dirtied(self, prelude_key: str) -> None:
        # its server is gone; a new one for the next batch of this spec would go the same way: each costs more than a
        # process per batch
        with self._lock:
            self._changing.add(prelude_key)

    def _ask(self, prelude_key: str, argv: Sequence[str], folder: str, wall: float) -> _Answer:
        """One request on a server of the pool (the command line's `argv`, run in `folder`); a server that died,
        hung or failed is dropped, one that answered is checked with its canary before it is asked again
        (Pool.check_then_give_back), and dropped if not clean."""
        server = self._pool.take()
        if server is None:
            return _Answer("", 0.0, "unavailable")
        with self._lock:
            changing = prelude_key in self._changing
        if changing:  # a canary found the spec's batch changed a server while this one waited for one
            self._pool.give_back(server)
            return _Answer("", 0.0, "unavailable")
        # the command line's arguments after the `dafny` command, with z3 through the server's relay
        args = [a for a in argv[len(self._info.command):] if not a.startswith("/z3exe:")]
        if server.relay is not None:
            args.insert(len(args) - 1, f"/z3exe:{server.relay}")
        with self._pool.lock:
            closings = self._pool.closings
        try:
            answer = server.ask(args, folder, wall)
        except BaseException:
            self._pool.drop(server)
            raise
        if answer.status == "ok":
            self._pool.check_then_give_back(server, functools.partial(self._dirtied, prelude_key), closings)
        else:
            self._pool.drop(server)
        return answer
