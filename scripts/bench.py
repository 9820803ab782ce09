#!/usr/bin/env python3
"""Benchmark: one verifier process per program (the baseline) against the engine, and a pull request.

Measures, in one run, on the same tasks with the same verifier and flags:

  (a) the baseline: every program the engine verifies, each by its own `dafny /compile:0 /timeLimit:N F.dfy`
      process (prelude + that one harness method), `--jobs` at a time, as a simple script does; run on a
      deterministic sample (every k-th program) and extrapolated to all of them, or on all (`--baseline-full`);
  (b) the engine (`python3 -m bot audit`, pin checks on), cold cache;
  (c) the engine, warm cache (the cache of (b));
  (d) a pull request touching one spec (examples/shared_elements.dfy): `entrypoint.py`, base and head, cold
      cache, its comment posted to the local fake GitHub of tests/support/fakegithub.py;
  and, for the memory check, the engine cold on the first 10 tasks; the engine cold with `--no-server` (one
  `dafny` per batch) when it has the persistent server backend; and the engine cold with the z3 of the
  PyPI wheel `z3-solver==4.8.5.0` (`--z3`) against Debian's z3.

Prints and writes bench/RESULTS.md: wall time, verifier processes started, programs, programs per second, peak
memory of the tool and its children, `ratio: N.N` (baseline / engine cold), the targets met or not, the machine.
It asserts nothing; the numbers vary with the machine and its load.

    python3 scripts/bench.py [DATASET_ROOT] [--only IDS] [--tasks N] [--jobs N] [--out bench/RESULTS.md]
                             [--baseline-sample N | --baseline-full] [--quick] [--no-z3-wheel] [--no-pr]
                             [--no-server-comparison] [--engine-option=--no-server] [--keep]

DATASET_ROOT defaults to ../shared/mbpp-dfy/a57ce24 (or $DAFNY_SPEC_SCORE_DATASET/a57ce24): its 40 tasks
are the development audit. `--quick` is for trying the script: 3 tasks, a baseline sample of 8, 1 task for
the memory check.

How things are counted:
  - verifier processes: a `dafny` wrapper put first on PATH logs every start (version probes are counted
    too and shown apart); server processes (the persistent backend's) are counted by watching /proc;
  - programs: the distinct programs the engine verifies, recorded by a second warm run that wraps
    `Engine.run` (the measured runs are the plain commands); for the pull request, the result-cache
    entries its cold run wrote;
  - peak RSS: the sum of the resident memory of the measured process and all its descendants, sampled every
    0.1 s from /proc, and the largest single process (wait4's ru_maxrss, exact).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "RESULTS.md"
SNAPSHOT = "a57ce24"
EXAMPLE = ROOT / "examples" / "shared_elements.dfy"
STRONG = "ensures forall x :: x in result <==> (InArray(a, x) && InArray(b, x))"
WEAK = "ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))"
PR_REPO = "owner/specs"
PR_NUMBER = 7
PR_SPEC = "examples/shared_elements.dfy"
WHEEL_Z3 = "z3-solver==4.8.5.0"
WHEEL_Z3_VERSION = "4.8.5"

# targets (the issue's)
TARGET_RATIO = 10.0
TARGET_COLD_SECONDS = 90.0
TARGET_WARM_SECONDS = 5.0
TARGET_PR_SECONDS = 15.0
DEV_TASKS = 40  # the development audit
SMALL_TASKS = 10  # the smaller run of the memory check
MEMORY_FLAT = 1.25  # "flat": the peak at all tasks is at most this times the peak at SMALL_TASKS

SAMPLE_SECONDS = 0.1
BASELINE_WALL = 600.0  # a baseline process is killed after this (a simple script would wait for ever)
SERVER_EXE = "specscore-host.exe"  # an argument of a persistent server process (HOST_EXE of bot/verifier/server.py)
LAUNCHER_LIMIT = 4096  # a real `dafny` no longer than this may be a launcher script the wrapper copies

# Run by `python3 -c` for the recording run: wraps Engine.run to log every program and its outcome.
RECORDER = r"""
import json, sys, threading
import bot.verifier.engine as engine
out = open(sys.argv[1], "w", encoding="utf-8")
lock = threading.Lock()
original = engine.Engine.run
def run(self, programs):
    results = original(self, programs)
    with lock:
        for p in programs:
            out.write(json.dumps({"prelude": p.prelude, "method": p.method,
                                  "outcome": results[p].outcome.value, "seconds": results[p].seconds}) + "\n")
        out.flush()
    return results
engine.Engine.run = run
from bot.cli import main
sys.exit(main(sys.argv[2:]))
"""


# ---------------------------------------------------------------------------------------------------
# Pure parts: what was measured, and RESULTS.md


@dataclass(frozen=True)
class Measured:
    """One measured command."""

    seconds: float
    returncode: int
    verifier_runs: int = 0  # `dafny` starts that verified something
    probes: int = 0  # `dafny` starts that only read a version or help
    servers: int = 0  # server processes seen (bot/verifier/server.py)
    peak_mib: float = 0.0  # sampled sum of the RSS of the process tree
    largest_mib: float = 0.0  # the largest single process (ru_maxrss)
    tool_mib: float = 0.0  # the measured process itself (its VmHWM, as last sampled)
    cpu_seconds: float = 0.0  # user + system time of the process and its descendants
    output: str = ""  # the tail of stdout + stderr
    resident_mib: float = 0.0  # sampled sum of the long-lived processes: the tool and its servers

    @property
    def processes(self) -> int:
        return self.verifier_runs + self.probes + self.servers


@dataclass(frozen=True)
class Row:
    """A line of the table of scenarios."""

    key: str
    title: str
    seconds: float
    processes: int
    programs: int
    peak_mib: float
    largest_mib: float
    tool_mib: float = 0.0
    cpu_seconds: float = 0.0
    estimated: bool = False  # extrapolated from a sample
    resident_mib: float = 0.0  # the tool and its servers (see Measured)

    @staticmethod
    def of(key: str, title: str, m: Measured, programs: int) -> Row:
        return Row(key, title, m.seconds, m.processes, programs, m.peak_mib, m.largest_mib, m.tool_mib,
                   m.cpu_seconds, resident_mib=m.resident_mib)

    @property
    def per_second(self) -> float:
        return self.programs / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Baseline:
    programs: int  # all the programs the engine verifies
    sample: int  # how many were run
    sample_seconds: float  # wall time of the sample, `jobs` at a time
    process_seconds: float  # mean wall time of one process
    sample_cpu: float = 0.0  # CPU seconds of the sample (all its processes)
    agree: int = 0  # sampled programs whose verdict (verified or not) is the engine's
    full: bool = False

    @property
    def per_program(self) -> float:
        """Wall seconds per program, `jobs` processes at a time."""
        return self.sample_seconds / self.sample if self.sample else 0.0

    @property
    def total_seconds(self) -> float:
        return self.sample_seconds if self.full else self.per_program * self.programs

    @property
    def total_cpu(self) -> float:
        return self.sample_cpu if self.full or not self.sample else self.sample_cpu / self.sample * self.programs


@dataclass(frozen=True)
class Z3Comparison:
    measured: bool
    reason: str = ""  # why not measured
    binary: str = ""
    version: str = ""
    debian_seconds: float = 0.0
    wheel_seconds: float = 0.0
    identical: bool = False
    differing: tuple[str, ...] = ()  # task ids whose results differ


@dataclass(frozen=True)
class Machine:
    date: str
    cores: int
    memory_gib: float
    load: str
    verifier: str
    commit: str
    dataset: str
    tasks: int
    jobs: int
    time_limit: int
    python: str
    load_end: str = ""  # load average when the runs were done


@dataclass(frozen=True)
class Target:
    name: str
    met: bool | None  # None: not measured
    value: str


@dataclass(frozen=True)
class BenchResults:
    machine: Machine
    rows: tuple[Row, ...]
    baseline: Baseline
    z3: Z3Comparison
    pr_comments: int | None = None  # comments on the PR after its run; None: not run
    small_tasks: int = 0  # tasks of the memory check's smaller run
    notes: tuple[str, ...] = ()
    # the cold run's programs' own verification time (Dafny's per-method `/xml` times, summed): the engine's
    # least possible worker time, whatever it does around the verifier
    method_seconds: float = 0.0
    ratio: float = field(init=False)  # wall time, baseline / engine cold
    cpu_ratio: float = field(init=False)  # CPU time, the same

    def __post_init__(self) -> None:
        engine = self.row("cold")
        ratio = self.baseline.total_seconds / engine.seconds if engine is not None and engine.seconds > 0 else 0.0
        cpu = self.baseline.total_cpu / engine.cpu_seconds if engine is not None and engine.cpu_seconds > 0 else 0.0
        object.__setattr__(self, "ratio", ratio)
        object.__setattr__(self, "cpu_ratio", cpu)

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    @property
    def least_seconds(self) -> float:
        """The wall time of an engine with no overhead at all: the programs' own verification time spread evenly
        over the jobs."""
        return self.method_seconds / max(1, self.machine.jobs)

    @property
    def ratio_bound(self) -> float:
        """The ratio that engine would reach (0.0 when not measured)."""
        return self.baseline.total_seconds / self.least_seconds if self.least_seconds > 0 else 0.0


def ratio_line(ratio: float) -> str:
    """The line the issue asks for: `ratio: N.N`."""
    return f"ratio: {ratio:.1f}"


def sample_every(items: Sequence[Any], size: int) -> list[Any]:
    """A deterministic sample of at most `size`: every k-th item from the first, k = ceil(len / size)."""
    if size <= 0 or not items:
        return []
    step = max(1, -(-len(items) // size))
    return list(items[::step])[:size]


def count_starts(lines: Sequence[str]) -> tuple[int, int]:
    """(verifying runs, probes) from the wrapper's log: one line of arguments per start."""
    probes = 0
    runs = 0
    for line in lines:
        args = line.split()
        if not args:
            continue
        if set(args) <= {"--version", "/version", "--help", "verify", "-h", "/help", "/?"}:
            probes += 1
        else:
            runs += 1
    return runs, probes


def memory_flat(small_mib: float, large_mib: float) -> bool:
    return large_mib <= MEMORY_FLAT * small_mib


def _met(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "NOT MET"


def targets(res: BenchResults) -> list[Target]:
    out: list[Target] = []
    cold, warm, small, pr = res.row("cold"), res.row("warm"), res.row("small"), res.row("pr")
    bound = f"; at most {res.ratio_bound:.1f} with no overhead at all" if res.ratio_bound else ""
    out.append(Target(f"ratio baseline/engine >= {TARGET_RATIO:g} (pin checks on, proof-backed verdicts)",
                      res.ratio >= TARGET_RATIO if cold is not None else None, f"{res.ratio:.1f}{bound}"))
    dev = res.machine.tasks == DEV_TASKS
    for row, limit, label in ((cold, TARGET_COLD_SECONDS, "cold"), (warm, TARGET_WARM_SECONDS, "warm")):
        name = f"{DEV_TASKS}-task development audit {label} <= {limit:g} s"
        if row is None:
            out.append(Target(name, None, "not run"))
        elif not dev:
            out.append(Target(name, None, f"{row.seconds:.1f} s on {res.machine.tasks} tasks, not {DEV_TASKS}"))
        else:
            out.append(Target(name, row.seconds <= limit, f"{row.seconds:.1f} s"))
    name = f"pull request touching one spec <= {TARGET_PR_SECONDS:g} s end to end, comment posted"
    if pr is None:
        out.append(Target(name, None, "not run"))
    else:
        posted = res.pr_comments == 1
        out.append(Target(name, pr.seconds <= TARGET_PR_SECONDS and posted,
                          f"{pr.seconds:.1f} s, {res.pr_comments} comment(s)"))
    small_tasks = res.small_tasks or SMALL_TASKS
    name = (f"peak memory flat in the number of tasks (peak RSS of the tree at {res.machine.tasks} tasks "
            f"<= {MEMORY_FLAT:g} x at {small_tasks})")
    if small is None or cold is None:
        out.append(Target(name, None, "not run"))
    else:
        out.append(Target(name, memory_flat(small.peak_mib, cold.peak_mib),
                          f"{small.peak_mib:.0f} MiB at {small_tasks} tasks ({small.programs} programs), "
                          f"{cold.peak_mib:.0f} MiB at {res.machine.tasks} tasks ({cold.programs} programs); "
                          f"the tool alone {small.tool_mib:.0f} and {cold.tool_mib:.0f} MiB, "
                          + ("flat" if memory_flat(small.tool_mib, cold.tool_mib) else "not flat")
                          + f"; the long-lived processes (the tool and its servers) {small.resident_mib:.0f} and "
                          f"{cold.resident_mib:.0f} MiB, "
                          + ("flat" if memory_flat(small.resident_mib, cold.resident_mib) else "not flat")
                          + f"; the largest single process {small.largest_mib:.0f} and {cold.largest_mib:.0f} MiB "
                          "(one verifier process on the costliest program: set by which tasks, not how many)"))
    parts = res.row("parts")
    if parts is not None and cold is not None:
        out.append(Target(f"peak memory flat in the number of tasks per run (peak RSS of the tree in one run of all "
                          f"{res.machine.tasks} tasks <= {MEMORY_FLAT:g} x the largest of the runs of {small_tasks} "
                          "that cover the same tasks)", memory_flat(parts.peak_mib, cold.peak_mib),
                          f"{parts.peak_mib:.0f} MiB in runs of {small_tasks}, {cold.peak_mib:.0f} MiB in one run; "
                          f"the long-lived processes {parts.resident_mib:.0f} and {cold.resident_mib:.0f} MiB"))
    return out


def _fmt_rate(row: Row) -> str:
    return f"{row.per_second:.2f}" if row.per_second < 10 else f"{row.per_second:.0f}"


def render_results(res: BenchResults) -> str:
    """bench/RESULTS.md: header, table of scenarios, the ratio line, targets, the z3 comparison, notes."""
    m, b = res.machine, res.baseline
    lines = [
        "# Benchmark results",
        "",
        "Written by `python3 scripts/bench.py` (see its docstring for what is measured and how); the numbers vary",
        "with the machine and its load.",
        "",
        f"- date: {m.date}",
        f"- machine: {m.cores} cores, {m.memory_gib:.1f} GiB memory, load average at start {m.load}"
        + (f", at the end {m.load_end}" if m.load_end else ""),
        f"- verifier: Dafny {m.verifier}",
        f"- commit: {m.commit}",
        f"- python: {m.python}",
        f"- dataset: {m.dataset} ({m.tasks} tasks)",
        f"- jobs: {m.jobs} verifier processes at a time (baseline and engine); time limit {m.time_limit} s",
        "",
        "| scenario | wall s | verifier processes | programs | programs/s | peak RSS MiB (tool + children) "
        "| largest process MiB | tool MiB | CPU s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in res.rows:
        mark = "~" if r.estimated else ""
        lines.append(f"| {r.title} | {mark}{r.seconds:.1f} | {mark}{r.processes} | {r.programs} | "
                     f"{_fmt_rate(r)} | {r.peak_mib:.0f} | {r.largest_mib:.0f} | {r.tool_mib:.0f} | "
                     f"{mark}{r.cpu_seconds:.1f} |")
    lines += ["", ratio_line(res.ratio), ""]
    lines.append(f"The ratio is of wall times (baseline / engine, cold cache); of CPU times it is {res.cpu_ratio:.1f} "
                 "(less sensitive to the machine's load).")
    if b.full:
        lines.append(f"Baseline: all {b.programs} programs run, one process each; mean {b.process_seconds:.2f} s "
                     f"per process, {b.per_program:.2f} s per program with {m.jobs} at a time.")
    else:
        lines.append(f"Baseline: a sample of {b.sample} of the {b.programs} programs (every "
                     f"{max(1, -(-b.programs // max(1, b.sample)))}-th) run, one process each: "
                     f"{b.sample_seconds:.1f} s, so {b.per_program:.2f} s per program with {m.jobs} at a time "
                     f"(mean {b.process_seconds:.2f} s per process); extrapolated to all {b.programs}: "
                     f"{b.total_seconds:.0f} s (rows marked ~). `--baseline-full` runs them all.")
    if b.sample:
        lines.append(f"The baseline's verdict (verified or not) is the engine's on {b.agree} of the {b.sample} "
                     "programs run.")
    if res.ratio_bound:
        lines.append(f"The programs' own verification time (Dafny's per-method times in its `/xml` report, summed "
                     f"over the {b.programs} programs of the cold run) is {res.method_seconds:.1f} s: with no "
                     f"overhead at all (no start-up, no request or canary cost, {m.jobs} workers always busy) the "
                     f"engine would take {res.least_seconds:.1f} s, a ratio of at most "
                     f"{res.ratio_bound:.1f}.")
    lines += ["", "## Targets", ""]
    for t in targets(res):
        lines.append(f"- {t.name}: **{_met(t.met)}** ({t.value})")
    lines += ["", "## z3: PyPI wheel against Debian's", ""]
    z = res.z3
    if not z.measured:
        lines.append(f"Not measured: {z.reason}")
    else:
        winner = "the wheel's z3" if z.wheel_seconds < z.debian_seconds else "Debian's z3"
        lines.append(f"- engine cold, Debian's z3 (Dafny's default): {z.debian_seconds:.1f} s")
        lines.append(f"- engine cold, `--z3` {z.binary} ({z.version}): {z.wheel_seconds:.1f} s")
        same = "identical" if z.identical else f"DIFFERENT (tasks {', '.join(z.differing) or 'none'})"
        lines.append(f"- results.json: {same}")
        lines.append(f"- faster: {winner}")
    if res.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in res.notes]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------
# Measuring a command: wall time, the wrapper's log, the process tree's memory


def wrapper_script(real: str, log: Path) -> str:
    """A `dafny` that logs its arguments (one line per start), then does what the real one does.

    When the real one is a small shell launcher with absolute paths (Debian's: `exec /usr/bin/cli
    /usr/lib/dafny/Dafny.exe "$@"`), the wrapper is that launcher with the log line added, so a reader of the
    launcher finds the same Dafny.exe (bot/verifier/server.py loads that Dafny.exe); else it
    execs the real command.
    """
    logged = f'echo "$*" >> \'{log}\'\n'
    try:
        text = Path(real).read_bytes()[:LAUNCHER_LIMIT + 1].decode("utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    first, _, rest = text.partition("\n")
    interpreter = first[2:].split()[:1] if first.startswith("#!") else []
    if (interpreter and Path(interpreter[0]).name in ("sh", "bash", "dash") and len(text) <= LAUNCHER_LIMIT
            and not any(part in text for part in ("\0", "$0", "dirname"))):
        return f"{first}\n{logged}{rest}"
    return f"#!/bin/sh\n{logged}exec '{real}' \"$@\"\n"


def make_wrapper(folder: Path, real: str) -> Path:
    """`folder/bin/dafny` logging to `folder/dafny.log`; returns the log."""
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    log = folder / "dafny.log"
    log.write_text("")
    script = folder / "bin" / "dafny"
    script.write_text(wrapper_script(real, log))
    script.chmod(0o755)
    return log


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="utf-8") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def _hwm_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode("utf-8", errors="replace").split("\0")
    except OSError:
        return []


def is_unexeced_fork(command: Sequence[str], parent_command: Sequence[str]) -> bool:
    """A child with its parent's command line is a fork that has not exec'd yet (mono starting z3, Python
    starting dafny): its pages are its parent's, shared copy-on-write, and its RSS would count them twice
    (seen: a third server of 99 MiB for a moment, the server's own child)."""
    return bool(command) and list(command) == list(parent_command)


class TreeWatch:
    """Samples a process tree from /proc: the peak of its summed RSS, and the server processes in it."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kib = 0
        self.resident_kib = 0  # the root and its servers: what would grow if anything accumulated
        self.root_hwm_kib = 0
        self.servers: set[int] = set()
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="treewatch")
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(SAMPLE_SECONDS)

    def sample(self) -> None:
        tree = _children()
        todo: list[tuple[int, list[str]]] = [(self.root, [])]  # (pid, its parent's command line)
        total, resident = 0, 0
        while todo:
            pid, parent_command = todo.pop()
            command = _cmdline(pid)
            todo += [(child, command) for child in tree.get(pid, [])]
            if is_unexeced_fork(command, parent_command):
                continue
            rss = _rss_kib(pid)
            total += rss
            if pid not in self.seen:
                self.seen.add(pid)
                if any(Path(arg).name == SERVER_EXE for arg in command):
                    self.servers.add(pid)
            if pid == self.root or pid in self.servers:
                resident += rss
        self.peak_kib = max(self.peak_kib, total)
        self.resident_kib = max(self.resident_kib, resident)
        self.root_hwm_kib = max(self.root_hwm_kib, _hwm_kib(self.root))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def measure(argv: Sequence[str], cwd: Path, env: Mapping[str, str], log: Path | None) -> Measured:
    """Run argv to its end; its wall time, the verifier starts it made, the memory of its tree."""
    if log is not None:
        log.write_text("")
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        watch = TreeWatch(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - started
        watch.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    runs, probes = count_starts(log.read_text().splitlines()) if log is not None else (0, 0)
    return Measured(seconds, proc.returncode, runs, probes, len(watch.servers), watch.peak_kib / 1024,
                    usage.ru_maxrss / 1024, watch.root_hwm_kib / 1024, usage.ru_utime + usage.ru_stime,
                    text[-4000:], watch.resident_kib / 1024)


# ---------------------------------------------------------------------------------------------------
# The scenarios


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


@dataclass
class Bench:
    dataset: Path
    ids: list[str]  # the tasks, in id order
    restricted: bool  # a subset of the dataset's tasks (pass --only)
    jobs: int
    time_limit: int
    real_dafny: str
    tmp: Path
    extra: list[str]  # more options for every engine run
    env: dict[str, str] = field(default_factory=dict)
    count: int = 0

    def scenario(self, name: str) -> tuple[Path, Path, dict[str, str]]:
        """A fresh folder with its own `dafny` wrapper; the wrapper's log and the environment using it."""
        self.count += 1
        folder = self.tmp / f"{self.count:02d}-{name}"
        log = make_wrapper(folder, self.real_dafny)
        env = dict(self.env)
        env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return folder, log, env

    def audit_argv(self, ids: Sequence[str], out: Path, cache: Path, z3: str | None = None,
                   more: Sequence[str] = ()) -> list[str]:
        argv = ["audit", str(self.dataset), "--out", str(out), "--cache-dir", str(cache),
                "--pin", "--jobs", str(self.jobs), "--time-limit", str(self.time_limit), *self.extra, *more]
        if self.restricted or list(ids) != self.ids:
            argv += ["--only", ",".join(ids)]
        if z3 is not None:
            argv += ["--z3", z3]
        return argv

    def audit(self, name: str, ids: Sequence[str], cache: Path, z3: str | None = None,
              more: Sequence[str] = ()) -> tuple[Measured, Path]:
        folder, log, env = self.scenario(name)
        out = folder / "out"
        m = measure([sys.executable, "-m", "bot", *self.audit_argv(ids, out, cache, z3, more)], ROOT, env, log)
        if m.returncode != 0:
            raise SystemExit(f"bench: the audit ({name}) failed with exit code {m.returncode}:\n{m.output}")
        say(f"{name}: {m.seconds:.1f} s, {m.verifier_runs} `dafny` runs, {m.servers} servers, "
            f"peak {m.peak_mib:.0f} MiB")
        return m, out

    def record(self, ids: Sequence[str], cache: Path) -> list[dict[str, Any]]:
        """The distinct programs of an audit, in the order first asked, with the engine's outcomes and their own
        verification seconds (from the cache the cold run filled: that run's times)."""
        folder, _, env = self.scenario("record")
        record = folder / "programs.jsonl"
        argv = [sys.executable, "-c", RECORDER, str(record), *self.audit_argv(ids, folder / "out", cache)]
        proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"bench: the recording run failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        seen: dict[str, dict[str, Any]] = {}
        for line in record.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            text = item["prelude"].rstrip() + "\n\n" + item["method"].strip() + "\n"
            seen.setdefault(text, {"text": text, "outcome": item["outcome"], "seconds": float(item["seconds"])})
        return list(seen.values())

    def baseline(self, programs: list[dict[str, Any]], size: int | None) -> tuple[Measured, Baseline]:
        chosen = programs if size is None else sample_every(programs, size)
        folder, log, env = self.scenario("baseline")
        files = []
        for i, item in enumerate(chosen):
            path = folder / "programs" / f"p{i:05d}" / "program.dfy"
            path.parent.mkdir(parents=True)
            path.write_text(item["text"], encoding="utf-8")
            files.append(str(path))
        manifest = folder / "manifest.json"
        results = folder / "runs.json"
        manifest.write_text(json.dumps({"files": files, "jobs": self.jobs, "time_limit": self.time_limit,
                                        "out": str(results)}))
        say(f"baseline: {len(files)} of {len(programs)} programs, one `dafny` each, {self.jobs} at a time")
        m = measure([sys.executable, str(Path(__file__).resolve()), "--baseline-worker", str(manifest)], ROOT, env,
                    log)
        if m.returncode != 0:
            raise SystemExit(f"bench: the baseline worker failed ({m.returncode}):\n{m.output}")
        runs = json.loads(results.read_text())["runs"]
        agree = sum((run["returncode"] == 0) == (item["outcome"] == "verified")
                    for run, item in zip(runs, chosen, strict=True))
        per_process = sum(run["seconds"] for run in runs) / len(runs) if runs else 0.0
        say(f"baseline: {m.seconds:.1f} s for {len(runs)} programs")
        return m, Baseline(len(programs), len(runs), m.seconds, per_process, m.cpu_seconds, agree, size is None)

    def pull_request(self) -> tuple[Measured, int, int]:
        """entrypoint.py on a PR touching examples/shared_elements.dfy: (measured, comments, programs)."""
        folder, log, env = self.scenario("pr")
        repo = folder / "repo"
        text = EXAMPLE.read_text(encoding="utf-8")
        if WEAK in text:
            base, head = text.replace(WEAK, STRONG), text
        elif STRONG in text:
            base, head = text, text.replace(STRONG, WEAK)
        else:
            raise SystemExit(f"bench: {EXAMPLE} has neither ensures clause the PR scenario edits")
        spec = repo / PR_SPEC
        spec.parent.mkdir(parents=True)
        _git(repo, "init", "-q", "-b", "main")
        spec.write_text(base, encoding="utf-8")
        (repo / "README.md").write_text("specs\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "base")
        base_sha = _git(repo, "rev-parse", "HEAD")
        spec.write_text(head, encoding="utf-8")
        _git(repo, "commit", "-q", "-am", "relax the spec")
        head_sha = _git(repo, "rev-parse", "HEAD")
        fake = load_fakegithub()
        cache = folder / "cache"
        with fake.FakeGitHub() as server:
            server.add_pull(PR_REPO, PR_NUMBER, base_sha=base_sha, head_sha=head_sha, files=[
                {"filename": PR_SPEC, "status": "modified", "additions": 1, "deletions": 1}])
            event = folder / "event.json"
            event.write_text(json.dumps({"number": PR_NUMBER, "pull_request": {
                "number": PR_NUMBER, "base": {"sha": base_sha, "repo": {"full_name": PR_REPO}},
                "head": {"sha": head_sha, "repo": {"full_name": PR_REPO}}}}))
            (folder / "output.txt").write_text("")
            (folder / "summary.md").write_text("")
            env = {k: v for k, v in env.items() if not k.startswith(("GITHUB_", "INPUT_"))}
            env.update({
                "GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": PR_REPO,
                "GITHUB_WORKSPACE": str(repo), "GITHUB_API_URL": server.url,
                "GITHUB_OUTPUT": str(folder / "output.txt"), "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
                "GITHUB_RUN_ID": "1", "GITHUB_SERVER_URL": "https://github.example",
                "INPUT_GITHUB_TOKEN": "bench-token-for-the-local-fake", "DAFNY_SPEC_SCORE_CACHE": str(cache),
                "INPUT_WORKING_DIRECTORY": str(repo), "INPUT_JOBS": str(self.jobs),
            })
            say("pull request: entrypoint.py, base and head, cold cache")
            m = measure([sys.executable, str(ROOT / "entrypoint.py")], repo, env, log)
            comments = len(server.comments_on(PR_REPO, PR_NUMBER))
        if m.returncode not in (0, 1):
            raise SystemExit(f"bench: entrypoint.py failed with exit code {m.returncode}:\n{m.output}")
        programs = sum(1 for _ in cache.rglob("*.json")) if cache.is_dir() else 0
        say(f"pull request: {m.seconds:.1f} s, {comments} comment(s), exit code {m.returncode}")
        return m, comments, programs


def _git(repo: Path, *args: str) -> str:
    repo.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def load_fakegithub() -> ModuleType:
    """tests/support/fakegithub.py, loaded by path (tests/ is no package)."""
    name = "bench_fakegithub"
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "support" / "fakegithub.py")
    if spec is None or spec.loader is None:
        raise SystemExit("bench: cannot load tests/support/fakegithub.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------------
# The baseline worker: one `dafny` per file, `jobs` at a time (run as a subprocess, so it is measured)


def baseline_worker(manifest: Path) -> int:
    spec = json.loads(manifest.read_text())
    dafny = shutil.which("dafny") or "dafny"

    def one(path: str) -> dict[str, Any]:
        argv = [dafny, "/compile:0", f"/timeLimit:{spec['time_limit']}", Path(path).name]
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=Path(path).parent, capture_output=True, timeout=BASELINE_WALL,
                                  check=False)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = -9
        return {"file": path, "returncode": code, "seconds": time.monotonic() - started}

    with ThreadPoolExecutor(max_workers=spec["jobs"]) as pool:
        runs = list(pool.map(one, spec["files"]))
    Path(spec["out"]).write_text(json.dumps({"runs": runs}))
    return 0


# ---------------------------------------------------------------------------------------------------
# The machine, the wheel's z3


def machine_memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def git_commit() -> str:
    try:
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{sha} (with uncommitted changes)" if dirty else sha


def verifier_version(dafny: str) -> str:
    sys.path.insert(0, str(ROOT))
    try:
        from bot.verifier import detect

        return detect(dafny).version
    except Exception as e:  # the benchmark still runs; the header says why the version is missing
        return f"unknown ({type(e).__name__}: {e})"


def z3_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = re.search(r"(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else ""


def wheel_venv() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "dafny-spec-score-bench" / WHEEL_Z3.replace("==", "-")


def _wheel_binary(python: str) -> str | None:
    """The wheel's z3 next to the `z3` package `python` imports, or in its prefix's bin/."""
    probe = "import os, sys, z3; print(os.path.dirname(z3.__file__)); print(sys.prefix)"
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    package, prefix = (proc.stdout.splitlines() + ["", ""])[:2]
    for candidate in (Path(package) / "bin" / "z3", Path(package) / "lib" / "z3", Path(prefix) / "bin" / "z3"):
        if candidate.is_file() and os.access(candidate, os.X_OK) and z3_version(str(candidate)) == WHEEL_Z3_VERSION:
            return str(candidate)
    return None


def find_wheel_z3(install: bool) -> tuple[str | None, str]:
    """The z3 binary of the z3-solver 4.8.5.0 wheel: installed already, or installed now into a venv."""
    venv = wheel_venv()
    for python in (sys.executable, str(venv / "bin" / "python")):
        if Path(python).exists():
            found = _wheel_binary(python)
            if found:
                return found, ""
    if not install:
        return None, f"no {WHEEL_Z3} installed (and installing was not asked)"
    say(f"installing {WHEEL_Z3} into {venv}")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, check=True, timeout=300)
        proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", WHEEL_Z3],
                              capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"could not make a venv for {WHEEL_Z3}: {e}"
    if proc.returncode != 0:
        return None, f"`pip install {WHEEL_Z3}` failed: {proc.stderr.strip()[-300:]}"
    found = _wheel_binary(str(venv / "bin" / "python"))
    return (found, "") if found else (None, f"{WHEEL_Z3} installed, but no z3 {WHEEL_Z3_VERSION} binary found in it")


def differing_tasks(a: Path, b: Path) -> tuple[str, ...]:
    """Task ids whose entries differ between two results.json files (`?` when they cannot be read)."""
    try:
        left = {t["task_id"]: t for t in json.loads(a.read_text())["tasks"]}
        right = {t["task_id"]: t for t in json.loads(b.read_text())["tasks"]}
    except (OSError, ValueError, KeyError, TypeError):
        return ("?",)
    return tuple(sorted((k for k in left.keys() | right.keys() if left.get(k) != right.get(k)), key=_id_order))


def _id_order(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (sys.maxsize, task_id)


def _load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _tasks(n: int) -> str:
    return f"{n} task" if n == 1 else f"{n} tasks"


def engine_has_server_option() -> bool:
    """Whether `python3 -m bot audit` has `--server/--no-server` (a persistent server backend)."""
    proc = subprocess.run([sys.executable, "-m", "bot", "audit", "--help"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    return "--server" in proc.stdout


def task_ids(dataset: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from bot.audit.dataset import find_tasks

    return [t.task_id for t in find_tasks(dataset)]


# ---------------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    base = Path(os.environ.get("DAFNY_SPEC_SCORE_DATASET") or ROOT.parent / "shared" / "mbpp-dfy") / SNAPSHOT
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("dataset", nargs="?", default=str(base), help=f"dataset root (default: {base})")
    p.add_argument("--only", default=None, help="these task ids only (separated by commas)")
    p.add_argument("--tasks", type=int, default=None, help="the first N tasks in id order")
    p.add_argument("--small-tasks", type=int, default=SMALL_TASKS,
                   help=f"tasks of the memory check's smaller run (default {SMALL_TASKS}; 0 skips it)")
    p.add_argument("--jobs", type=int, default=None, help="verifier processes at a time (default: cores)")
    p.add_argument("--time-limit", type=int, default=20, help="seconds per program (default 20, the audit's)")
    p.add_argument("--baseline-sample", type=int, default=150, help="programs the baseline runs (default 150)")
    p.add_argument("--baseline-full", action="store_true", help="run the baseline on every program (slow)")
    p.add_argument("--z3-wheel", action=argparse.BooleanOptionalAction, default=True,
                   help=f"compare the engine cold with the z3 of the {WHEEL_Z3} wheel (default: on, installed "
                        "into a venv under ~/.cache when missing)")
    p.add_argument("--z3-path", default=None, help="the wheel's z3 binary, when it is somewhere else")
    p.add_argument("--server-comparison", action=argparse.BooleanOptionalAction, default=True,
                   help="when the engine has `--server`, also run it cold with `--no-server` (default: on)")
    p.add_argument("--pr", action=argparse.BooleanOptionalAction, default=True, help="run the pull request scenario")
    p.add_argument("--dafny", default="dafny", help="the verifier (default: dafny on PATH)")
    p.add_argument("--engine-option", action="append", default=[], metavar="OPTION",
                   help="one more option for every engine run, e.g. --engine-option=--no-server (repeatable)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="where RESULTS.md is written (default: bench/RESULTS.md)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for trying the script")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (printed)")
    p.add_argument("--baseline-worker", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


@contextlib.contextmanager
def scratch(keep: bool) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="dafny-spec-score-bench-"))
    try:
        yield path
    finally:
        if keep:
            say(f"scratch folder kept: {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline_worker:
        return baseline_worker(Path(args.baseline_worker))
    if args.quick:
        args.tasks = args.tasks or 3
        args.small_tasks = min(args.small_tasks, 1)
        args.baseline_sample = min(args.baseline_sample, 8)
    real = shutil.which(args.dafny)
    if real is None:
        raise SystemExit(f"bench: `{args.dafny}` is not on PATH")
    dataset = Path(args.dataset).resolve()
    every = task_ids(dataset)
    ids = list(every)
    if args.only:
        wanted = {t.strip() for t in args.only.split(",") if t.strip()}
        unknown = sorted(wanted - set(every))
        if unknown:
            raise SystemExit(f"bench: --only: no such task in {dataset}: {', '.join(unknown)}")
        ids = [t for t in ids if t in wanted]
    if args.tasks:
        ids = ids[: args.tasks]
    jobs = args.jobs or os.cpu_count() or 1
    load = _load()
    machine = Machine(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), cores=os.cpu_count() or 0,
        memory_gib=machine_memory_gib(), load=load, verifier=verifier_version(real), commit=git_commit(),
        dataset=str(dataset), tasks=len(ids), jobs=jobs, time_limit=args.time_limit,
        python=sys.version.split()[0],
    )
    say(f"{len(ids)} tasks, {jobs} jobs, Dafny {machine.verifier}, load {load}")
    env = {k: v for k, v in os.environ.items() if k != "DAFNY_SPEC_SCORE_Z3"}  # Debian's z3 unless --z3
    notes: list[str] = []
    with scratch(args.keep) as tmp:
        bench = Bench(dataset, every, ids != every, jobs, args.time_limit, real, tmp, list(args.engine_option), env)
        rows: list[Row] = []
        cold, cold_out = bench.audit("engine-cold", ids, tmp / "cache-cold")
        warm, warm_out = bench.audit("engine-warm", ids, tmp / "cache-cold")
        programs = bench.record(ids, tmp / "cache-cold")
        same = all((cold_out / n).read_bytes() == (warm_out / n).read_bytes()
                   for n in ("results.json", "results.csv", "report.md"))
        if not same:
            notes.append("the warm run's reports differ from the cold run's")
        base_m, baseline = bench.baseline(programs, None if args.baseline_full else args.baseline_sample)
        n = len(programs)
        title = f"(a) baseline: one `dafny` per program, {n} programs"
        if baseline.full:
            rows.append(Row.of("baseline", title, base_m, n))
        else:
            rows.append(Row("baseline", title + f" (extrapolated from {baseline.sample})", baseline.total_seconds,
                            round(base_m.processes * n / max(1, baseline.sample)), n, base_m.peak_mib,
                            base_m.largest_mib, base_m.tool_mib, baseline.total_cpu, estimated=True))
            rows.append(Row.of("sample", f"(a) baseline sample, measured: {baseline.sample} programs", base_m,
                               baseline.sample))
        rows.append(Row.of("cold", f"(b) engine, cold cache, {_tasks(len(ids))}", cold, n))
        rows.append(Row.of("warm", f"(c) engine, warm cache, {_tasks(len(ids))}", warm, n))
        servers = [f"engine cold {cold.servers}", f"warm {warm.servers}"]
        small_ids = ids[: args.small_tasks]
        if args.small_tasks and len(small_ids) < len(ids):
            small, _ = bench.audit("engine-cold-small", small_ids, tmp / "cache-small")
            small_programs = bench.record(small_ids, tmp / "cache-small")
            rows.append(Row.of("small", f"engine, cold cache, {_tasks(len(small_ids))} (memory check)", small,
                               len(small_programs)))
            # the same tasks in runs of small_tasks each: more tasks per run, not other tasks (the first ten
            # lack the costliest programs, whose single verifier process sets the tree's peak)
            parts = [ids[k : k + args.small_tasks] for k in range(0, len(ids), args.small_tasks)]
            measured = [bench.audit(f"engine-cold-part-{k + 1}", part, tmp / f"cache-part-{k + 1}")[0]
                        for k, part in enumerate(parts)]
            rows.append(Row("parts", f"engine, cold cache, the same {_tasks(len(ids))} in {len(parts)} runs of "
                            f"{args.small_tasks} (memory check: the largest of the runs)",
                            sum(m.seconds for m in measured), sum(m.processes for m in measured), n,
                            max(m.peak_mib for m in measured), max(m.largest_mib for m in measured),
                            max(m.tool_mib for m in measured), sum(m.cpu_seconds for m in measured),
                            resident_mib=max(m.resident_mib for m in measured)))
        has_server = engine_has_server_option()
        if has_server and args.server_comparison and "--no-server" not in args.engine_option:
            plain, plain_out = bench.audit("engine-cold-no-server", ids, tmp / "cache-no-server", more=["--no-server"])
            rows.append(Row.of("noserver", f"engine, cold cache, {_tasks(len(ids))}, `--no-server` "
                               "(one `dafny` per batch)", plain, n))
            same = (cold_out / "results.json").read_bytes() == (plain_out / "results.json").read_bytes()
            differ = differing_tasks(cold_out / "results.json", plain_out / "results.json")
            notes.append("results.json with `--no-server`: " + ("identical to the default run's" if same else
                         f"DIFFERENT from the default run's (tasks {', '.join(differ) or 'none'})"))
        comments: int | None = None
        if args.pr:
            pr, comments, pr_programs = bench.pull_request()
            rows.append(Row.of("pr", "(d) pull request touching one spec: entrypoint.py, base + head, cold cache",
                               pr, pr_programs))
            servers.append(f"pull request {pr.servers}")
            notes.append("the pull request's programs: the result-cache entries its run wrote")
        z3 = Z3Comparison(False, "not asked (--no-z3-wheel)")
        if args.z3_wheel or args.z3_path:
            binary, reason = (args.z3_path, "") if args.z3_path else find_wheel_z3(install=True)
            if binary is None:
                z3 = Z3Comparison(False, reason)
            else:
                version = z3_version(binary)
                wheel, wheel_out = bench.audit("engine-cold-z3-wheel", ids, tmp / "cache-z3", z3=binary)
                rows.append(Row.of("z3", f"engine, cold cache, {_tasks(len(ids))}, `--z3` {version} (wheel)",
                                   wheel, n))
                same_json = (cold_out / "results.json").read_bytes() == (wheel_out / "results.json").read_bytes()
                z3 = Z3Comparison(True, "", binary, version, cold.seconds, wheel.seconds, same_json,
                                  differing_tasks(cold_out / "results.json", wheel_out / "results.json"))
        notes.append(f"verifier processes: `dafny` starts (each engine run makes {cold.probes} of them only to read "
                     "the version) plus server processes seen (" + ", ".join(servers) + ")")
        notes.append("programs: the distinct programs the engine verifies (recorded by wrapping Engine.run in "
                     "a separate warm run); programs/s = programs / wall s")
        notes.append(f"peak RSS (tool + children): sampled every {SAMPLE_SECONDS:g} s, summed over the measured "
                     "process and all its descendants (a fork that has not exec'd yet shares its parent's pages "
                     "and is not counted); largest process: exact, of the processes waited for (ru_maxrss "
                     "from wait4: a server ended at exit without being waited for is not in it); tool: the "
                     "measured process alone (VmHWM); CPU s: user + system of the process and its descendants")
        if has_server:
            notes.append("the engine ran with its default `--server` setting"
                         + (f" and {' '.join(args.engine_option)}" if args.engine_option else ""))
        elif args.engine_option:
            notes.append(f"engine options: {' '.join(args.engine_option)}")
        machine = dataclasses.replace(machine, load_end=_load())
        method_seconds = sum(float(item["seconds"]) for item in programs)
        results = BenchResults(machine, tuple(rows), baseline, z3, comments, len(small_ids), tuple(notes),
                               method_seconds)
    text = render_results(results)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text, end="")
    say(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
