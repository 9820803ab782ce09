"""Where a cold audit's server time goes, request by request: `python3 -m bench.requests [DATASET_ROOT]`.

One cold development audit (`python3 -m bot audit`, a fresh cache), in this process, with the persistent verifier's
requests timed as they go: each batch and each canary (the check after a request that the server is still as a fresh
one; bot/verifier/server.py), the CPU each cost its server's process tree (the server, and its relay, z3 and
stand-in once they ended), and the engine's backend calls by what they carry (a file's first round with its
background check, a later round, the questions on every input alone, a call the command line answered). It prints
a table: how the server-seconds split, how long 0, 1 or 2 requests were in flight, and the calls by kind. The
machine is CPU-bound when the servers are always busy: then only less CPU per request, or fewer requests, make the
audit faster. It asserts nothing; like the benchmark, its numbers vary with the machine and its load.

Not for CI: it takes a cold audit's time (about 80 s on 2 cores). It wraps the server's methods in place, so it runs
as its own process only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.constants import default_dataset
from bot.symbolic.background import BACKGROUND_NAME as BACKGROUND
from bot.symbolic.everywhere import PREFIX as EVERY_INPUT


@dataclass(frozen=True)
class Ask:
    """One request a server answered: a batch, or a canary (`canary`), from `start` to `end` (seconds from the
    audit's start), and the CPU seconds its server's process tree spent meanwhile."""

    server: int
    canary: bool
    start: float
    end: float
    cpu: float


@dataclass(frozen=True)
class Call:
    """One backend call of the engine: a batch of `names` on the prelude `prelude` (a digest), and whether a server
    answered it (`served`: else the command line did)."""

    prelude: str
    names: tuple[str, ...]
    start: float
    end: float
    served: bool


@dataclass(frozen=True)
class Breakdown:
    wall: float
    servers: int
    seconds: dict[str, float]  # server-seconds: batches, canaries
    cpu: dict[str, float]  # CPU seconds of the servers' trees: batches, canaries
    asks: dict[str, int]
    in_flight: dict[int, float]  # seconds with that many requests in flight
    calls: dict[str, tuple[int, int]] = field(default_factory=dict)  # per kind: calls, programs


def call_kind(call: Call, first_rounds: frozenset[str]) -> str:
    """What a backend call carries (see the module docstring)."""
    if not call.served:
        return "the command line's"
    if BACKGROUND in call.names:
        return "a first round, with the background check"
    if call.names and all(n.startswith(EVERY_INPUT) for n in call.names):
        return "questions on every input alone"
    if any(n.startswith(EVERY_INPUT) for n in call.names):
        return "questions on every input, with others"
    if call.prelude in first_rounds:
        return "a later round"
    return "another prelude's (suggestions, no background)"


def breakdown(asks: Sequence[Ask], calls: Sequence[Call], wall: float) -> Breakdown:
    """The table's figures from what was recorded (pure)."""
    kinds = {"batches": [a for a in asks if not a.canary], "canaries": [a for a in asks if a.canary]}
    edges = sorted([(a.start, 1) for a in asks] + [(a.end, -1) for a in asks])
    in_flight: dict[int, float] = {}
    going, last = 0, 0.0
    for at, change in edges:
        in_flight[going] = in_flight.get(going, 0.0) + max(0.0, at - last)
        going, last = going + change, at
    in_flight[going] = in_flight.get(going, 0.0) + max(0.0, wall - last)
    first = frozenset(c.prelude for c in calls if BACKGROUND in c.names)
    by_kind: dict[str, tuple[int, int]] = {}
    for c in calls:
        kind = call_kind(c, first)
        n, programs = by_kind.get(kind, (0, 0))
        by_kind[kind] = (n + 1, programs + len(c.names))
    return Breakdown(
        wall, len({a.server for a in asks}),
        {k: sum(a.end - a.start for a in v) for k, v in kinds.items()},
        {k: sum(a.cpu for a in v) for k, v in kinds.items()},
        {k: len(v) for k, v in kinds.items()},
        dict(sorted(in_flight.items())),
        dict(sorted(by_kind.items())),
    )


def render(b: Breakdown) -> str:
    lines = [f"cold audit: {b.wall:.1f} s wall, {b.servers} server processes", "",
             "| requests | count | server s | CPU s (server trees) | CPU s each |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for kind in ("batches", "canaries"):
        n = b.asks.get(kind, 0)
        lines.append(f"| {kind} | {n} | {b.seconds.get(kind, 0.0):.1f} | {b.cpu.get(kind, 0.0):.1f} | "
                     f"{b.cpu.get(kind, 0.0) / n if n else 0.0:.3f} |")
    lines += ["", "| requests in flight | seconds |", "| ---: | ---: |"]
    lines += [f"| {k} | {v:.1f} |" for k, v in b.in_flight.items()]
    lines += ["", "| backend calls | calls | programs |", "| --- | ---: | ---: |"]
    lines += [f"| {k} | {n} | {p} |" for k, (n, p) in b.calls.items()]
    return "\n".join(lines) + "\n"


def _tree_cpu(pid: int | None) -> float:
    """CPU seconds of `pid` and its children that ended (utime, stime, cutime, cstime), or 0."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class _Recorder:
    """Wraps the server's request and the backend's call in place (this process only)."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.asks: list[Ask] = []
        self.calls: list[Call] = []
        self.served = threading.local()

    def install(self) -> None:
        from bot.verifier import server

        ask: Callable[..., Any] = server._Server.ask
        verify: Callable[..., Any] = server.DafnyServerBackend.verify_batch
        recorder = self

        def timed_ask(srv: Any, args: Sequence[str], folder: str, wall: float) -> Any:
            began, cpu = time.monotonic(), _tree_cpu(srv.pid)
            answer = ask(srv, args, folder, wall)
            canary = any(server.CALIBRATION in a for a in args)
            if not canary:
                recorder.served.value = True
            with recorder.lock:
                recorder.asks.append(Ask(srv.pid or 0, canary, began - recorder.start,
                                         time.monotonic() - recorder.start, _tree_cpu(srv.pid) - cpu))
            return answer

        def timed_verify(backend: Any, prelude: str, methods: Sequence[tuple[str, str]], *a: Any,
                         **k: Any) -> Any:
            recorder.served.value = False
            began = time.monotonic()
            found = verify(backend, prelude, methods, *a, **k)
            with recorder.lock:
                recorder.calls.append(Call(hashlib.sha256(prelude.encode()).hexdigest()[:12],
                                           tuple(n for n, _ in methods), began - recorder.start,
                                           time.monotonic() - recorder.start, bool(recorder.served.value)))
            return found

        server._Server.ask = timed_ask  # type: ignore[method-assign, assignment]
        server.DafnyServerBackend.verify_batch = timed_verify  # type: ignore[method-assign, assignment]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.requests", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=default_dataset())
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.dataset.is_dir():
        print(f"bench.requests: {args.dataset}: no such dataset folder (give DATASET_ROOT)", file=sys.stderr)
        return 2
    from bot.cli import main as bot_main

    recorder = _Recorder()
    recorder.install()
    with tempfile.TemporaryDirectory(prefix="bench-requests-") as scratch:
        code = bot_main(["audit", str(args.dataset), "--jobs", str(args.jobs), "--out", str(Path(scratch, "out")),
                         "--cache-dir", str(Path(scratch, "cache"))])
    wall = time.monotonic() - recorder.start
    print(render(breakdown(recorder.asks, recorder.calls, wall)), end="")
    return code


if __name__ == "__main__":
    sys.exit(main())
