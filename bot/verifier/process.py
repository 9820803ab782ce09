"""Verifier processes, the only ones the bot starts: their environment, wall-clock limits, transient results."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED
from bot.symbolic.program import Outcome, Result

# Messages of results that say nothing about the program (crash, kill, our own failure): never cached.
KILLED = "verifier process killed after "
CRASHED = "verifier crashed: "
NOT_RUN = "verifier could not be started: "
# Also what a method with nothing to prove gets: Dafny 2.3 makes no task of an empty body (measured).
NO_RESULT = "verifier reported no result for this method (one with nothing to prove is not verified)"
OUT_OF_MEMORY = "verifier ran out of memory"
# Dafny follows an include anywhere (an absolute path too); bot.symbolic.harness.programs inlines included files
# instead, so a
# directive left in a program is a defect of the tool, and the program is not run.
INCLUDE_LEFT = "not verified: the program holds an `include` directive, which the verifier would follow: "
BAD_COMMAND_LINE = "verifier rejected its command line: "
# ... and a method's programs the engine did not ask, or cut short, once its budget ran out (bot/symbolic/allowance.py)
_TRANSIENT = (KILLED, CRASHED, NOT_RUN, NO_RESULT, OUT_OF_MEMORY, BAD_COMMAND_LINE, NOT_ASKED, CUT_SHORT)


def is_transient(result: Result) -> bool:
    """True for results caused by the run rather than the program (crash, kill): not to be cached."""
    return result.outcome in (Outcome.TIMEOUT, Outcome.ERROR) and result.message.startswith(_TRANSIENT)



@dataclass(frozen=True)
class ProcessRun:
    returncode: int | None  # None when killed or never started
    output: str  # stdout and stderr, interleaved
    seconds: float
    killed: bool = False
    start_error: str = ""


# The verifier's environment: ours is not inherited (in the Action it holds the token, as INPUT_GITHUB_TOKEN and
# GITHUB_TOKEN). These names, and names starting with these prefixes, are passed on; nothing else.
ENV_NAMES = ("PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LD_LIBRARY_PATH")
ENV_PREFIXES = (
    "MONO_",  # Dafny 2.x runs on mono: MONO_PATH, MONO_CONFIG, MONO_GAC_PREFIX, MONO_ENV_OPTIONS, ...
    "DOTNET_",  # Dafny 3.x/4.x runs on .NET: DOTNET_ROOT (where the runtime is), DOTNET_CLI_HOME, ...
)
# Never passed on, even when allowed above.
ENV_REFUSED_PARTS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
ENV_REFUSED_PREFIXES = ("INPUT_", "GITHUB_", "ACTIONS_", "RUNNER_")
UTF8_LOCALE = "C.UTF-8"  # when neither LC_ALL nor LANG names a UTF-8 locale


def _is_utf8_locale(value: str) -> bool:
    return ".utf8" in value.replace("-", "").lower()  # en_US.UTF-8, C.utf8, de_DE.UTF-8@euro


def child_environment(parent: Mapping[str, str]) -> dict[str, str]:
    """The environment a verifier process starts with: the allowed part of `parent`, and a UTF-8 locale
    (LANG and LC_ALL: the parent's LC_ALL or LANG when it is UTF-8, else C.UTF-8)."""
    env: dict[str, str] = {}
    for name, value in parent.items():
        upper = name.upper()
        if upper.startswith(ENV_REFUSED_PREFIXES) or any(part in upper for part in ENV_REFUSED_PARTS):
            continue
        if name in ENV_NAMES or name.startswith(ENV_PREFIXES):
            env[name] = value
    locale = next((v for v in (parent.get("LC_ALL", ""), parent.get("LANG", "")) if _is_utf8_locale(v)), UTF8_LOCALE)
    env["LANG"] = env["LC_ALL"] = locale
    return env


def run_process(argv: Sequence[str], cwd: str | None, limit: float) -> ProcessRun:
    """Run argv with a wall-clock limit, in its own process group, with `child_environment` only."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=child_environment(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,  # its own process group, so z3 dies with it
        )
    except OSError as exc:
        return ProcessRun(None, "", time.monotonic() - start, start_error=str(exc))
    with proc:
        try:
            out, _ = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                out, _ = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                # Something outside the group holds the pipe: give up on the output.
                proc.kill()
                out = ""
            return ProcessRun(None, out or "", time.monotonic() - start, killed=True)
    return ProcessRun(proc.returncode, out or "", time.monotonic() - start)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()



def wall_limit(base: float, per_method: float | None, time_limit: int, count: int) -> float:
    """The whole run's wall-clock limit: a base, plus the time limit (or a set time) per method."""
    return base + (time_limit if per_method is None else per_method) * count

