"""Finding `dafny` and reading its version and the options of `dafny verify`."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

from bot.verifier.process import run_process

INSTALL_HINT = "Install Dafny with scripts/setup.sh, or on Debian/Ubuntu: apt-get install -y dafny."

DETECT_TIMEOUT = 30.0


class VerifierNotFound(Exception):
    """No usable `dafny`: not on PATH, or its version could not be read."""


@dataclass(frozen=True)
class VerifierInfo:
    command: tuple[str, ...]
    version: str
    major: int


_BARE_VERSION = re.compile(r"^\s*(?:Dafny\s+)?v?(\d+)\.(\d+)\.(\d+)([.+\-][0-9A-Za-z.+\-]*)?\s*$")
_LEGACY_VERSION = re.compile(r"Dafny\s+(?:version\s+)?(\d+)\.(\d+)\.(\d+)(\.\d+)?")


def parse_version(output: str) -> tuple[str, int] | None:
    """(version, major) from `dafny --version` (3.x/4.x: `4.4.0`, `4.4.0+a1b2c3`) or `dafny /version`
    (2.x: `Dafny 2.3.0.10506`) output; None when there is none."""
    for line in output.splitlines():
        if not line.strip():
            continue
        m = _BARE_VERSION.match(line)
        if m:
            return line.strip().removeprefix("Dafny").strip().removeprefix("v"), int(m.group(1))
        break
    m = _LEGACY_VERSION.search(output)
    if m:
        return m.group(0).split()[-1], int(m.group(1))
    return None


# versions read in this process, by the executable's identity: reading one costs two verifier start-ups (about 2 s
# of CPU on Dafny 2.3, which answers only the second flag), and a file that changes is read again
_DETECTED: dict[tuple[str, str, int, int, int], VerifierInfo] = {}


def detect(command: str = "dafny", timeout: float = DETECT_TIMEOUT) -> VerifierInfo:
    """Find `command` and read its version (never assumed); raise VerifierNotFound saying how to install."""
    path = shutil.which(command)
    if path is None:
        raise VerifierNotFound(f"'{command}' was not found on PATH. {INSTALL_HINT}")
    try:
        st = os.stat(path)
        # the path as found too: two names of one file are two commands
        identity: tuple[str, str, int, int, int] | None = (path, os.path.realpath(path), st.st_ino, st.st_size,
                                                           st.st_mtime_ns)
    except OSError:
        identity = None
    if identity is not None and identity in _DETECTED:
        return _DETECTED[identity]
    info = _read_version(command, path, timeout)
    if identity is not None:
        _DETECTED[identity] = info
    return info


def _read_version(command: str, path: str, timeout: float) -> VerifierInfo:
    tried: list[str] = []
    for flag in ("--version", "/version"):
        run = run_process([path, flag], None, timeout)
        if run.start_error:
            raise VerifierNotFound(f"'{path}' could not be started: {run.start_error}. {INSTALL_HINT}")
        parsed = parse_version(run.output)
        if parsed is not None:
            return VerifierInfo(command=(path,), version=parsed[0], major=parsed[1])
        first = next((line.strip() for line in run.output.splitlines() if line.strip()), "")
        tried.append(f"`{command} {flag}` printed {first!r}" + (" (timed out)" if run.killed else ""))
    raise VerifierNotFound(
        f"Could not read the version of '{path}': " + "; ".join(tried) + f". {INSTALL_HINT}"
    )


def probe_verify_options(info: VerifierInfo, timeout: float = DETECT_TIMEOUT) -> frozenset[str] | None:
    """The `--options` that `dafny verify --help` lists (3.x/4.x); None when the help could not be read."""
    run = run_process([*info.command, "verify", "--help"], None, timeout)
    options = frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", run.output))
    return options or None


# the machine's defaults for a run's verifier, here for the Action's early start (bot/github/early.py), which loads
# nothing more than the verifier's own modules before the servers start


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def default_z3(env: Mapping[str, str]) -> str | None:
    """A z3 binary for Dafny 2.x to use instead of its own (scripts/setup.sh can provide one)."""
    return env.get("DAFNY_SPEC_SCORE_Z3") or None
