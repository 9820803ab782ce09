"""Measuring a command: wall time, the wrapper's log of verifier starts, the process tree's memory (/proc)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.constants import LAUNCHER_LIMIT, SAMPLE_SECONDS, SERVER_EXE
from bench.results import Measured, count_starts

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


def rss_kib(pid: int) -> int:
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
            rss = rss_kib(pid)
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
