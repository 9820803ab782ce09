"""The Dafny 3.x/4.x backend: `dafny verify ... --log-format json;LogFileName=F`.

What was checked against what:

* Dafny 3.x/4.x (cannot be installed here), checked against the dafny-lang/dafny sources:
  - `JsonVerificationLogger` (`--log-format "json;LogFileName=F"`) writes
    `{"verificationResults": [{"name", "outcome", "runTime", "resourceCount", "vcResults": [...]}]}`;
    `name` is the verification scope, e.g. `M (correctness)` / `M (well-formedness)`
    (`VerificationResultLogger.Report` groups by `Task.ScopeId`; TRX test expectations show
    `ExampleWithSplits (correctness)`); `outcome` is a `VcOutcome`: Correct, Errors, Inconclusive,
    TimedOut, OutOfResource, OutOfMemory, SolverException. It carries no error messages, so those are
    read from the console diagnostics `F(line,col): Error: ...` and attributed by line range.
  - Exit codes (`DafnyDriver.ExitValue`): 0 success, 1 command-line error, 2 Dafny (parse/resolution)
    error, 3 compile error, 4 verification error. Since PR #5180 (4.6) warnings fail the run unless
    `--allow-warnings` is given: so exit 2 with a usable log is read from the log.
  - `--filter-symbol S` (4.5+, replaced `--boogie-filter`) keeps symbols whose fully qualified name
    CONTAINS S and takes one value, so a batch is filtered by its names' common prefix and results for
    other names are ignored. `--boogie-filter P` (before 4.5) takes Boogie `/proc` patterns and may be
    repeated.
  - Which of these options a given `dafny` has is read from `dafny verify --help`, not assumed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from bot.symbolic.modeltext import console_counterexamples
from bot.symbolic.program import Outcome, Result
from bot.verifier.output import (
    CRASH_MARKERS,
    FILE_NAME,
    Layout,
    crash_message,
    diagnostics,
    filter_noise,
    for_all,
    mangle,
    messages_by_method,
    ran_to_end,
    run_batch,
    run_failure,
    start_batch,
    tail,
    timeout_message,
    whole_file_result,
)
from bot.verifier.process import BAD_COMMAND_LINE, NO_RESULT, OUT_OF_MEMORY, ProcessRun, wall_limit
from bot.verifier.version import VerifierInfo

_SCOPE_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")  # " (correctness)", " (well-formedness)"
_TIMESPAN = re.compile(r"^-?(?:(\d+)\.)?(\d+):(\d+):(\d+(?:\.\d+)?)$")

# How bad each scope outcome is for the method, and what it means; a method has several scopes.
_VC_OUTCOMES: dict[str, tuple[int, Outcome]] = {
    "correct": (0, Outcome.VERIFIED),
    "timedout": (1, Outcome.TIMEOUT),
    "outofresource": (1, Outcome.TIMEOUT),
    "inconclusive": (2, Outcome.ERROR),
    "outofmemory": (2, Outcome.ERROR),
    "solverexception": (2, Outcome.ERROR),
    "errors": (3, Outcome.REFUTED),
}

# Assumed when `dafny verify --help` could not be read: the current command line.
MODERN_OPTIONS = frozenset({"--filter-symbol", "--allow-warnings", "--cores", "--verification-time-limit"})


def _timespan(text: object) -> float:
    m = _TIMESPAN.match(str(text))
    if not m:
        return 0.0
    days, hours, minutes, seconds = m.groups()
    return int(days or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def parse_json_log(text: str) -> dict[str, list[tuple[str, float]]]:
    """Scope outcomes per symbol (last name component) from a `--log-format json` file; {} if unreadable."""
    data: object = None
    for chunk in (text, *text.splitlines()):
        try:
            data = json.loads(chunk)
            break
        except ValueError:
            continue
    entries = data.get("verificationResults") if isinstance(data, dict) else None
    found: dict[str, list[tuple[str, float]]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        symbol = _SCOPE_SUFFIX.sub("", entry["name"]).rsplit(".", 1)[-1]
        found.setdefault(symbol, []).append((str(entry.get("outcome", "")), _timespan(entry.get("runTime"))))
    return found


@dataclass(frozen=True)
class Dafny4Backend:
    """`dafny verify ... --log-format json;LogFileName=F` (Dafny 3.x/4.x command line).

    `options` are those `dafny verify --help` lists (None: assume MODERN_OPTIONS); optional flags are
    only passed when listed. Wall-clock limit as in Dafny2Backend.
    """

    info: VerifierInfo
    z3_path: str | None = None
    wall_base: float = 30.0
    wall_per_method: float | None = None
    options: frozenset[str] | None = field(default=None)
    # a run with checks verifies the whole file, and its console errors name no symbol: a background check and
    # harness methods are not read from one run (`verify_batch`'s `background`)
    mixed_checks: ClassVar[bool] = False

    def _has(self, option: str) -> bool:
        return option in (MODERN_OPTIONS if self.options is None else self.options)

    def _fixed_flags(self, time_limit: int) -> list[str]:
        flags = ["--verification-time-limit", str(time_limit)]
        if self._has("--cores"):
            flags += ["--cores", "1"]  # the engine runs one process per core already
        if self._has("--allow-warnings"):
            flags.append("--allow-warnings")
        if self.z3_path:
            flags += ["--solver-path", self.z3_path]
        return flags

    def flags_id(self, time_limit: int) -> str:
        scope = "filter-symbol" if self._has("--filter-symbol") else "boogie-filter"
        return f"dafny {self.info.version}: verify {' '.join(self._fixed_flags(time_limit))} ({scope})"

    def filter_flags(self, names: Sequence[str]) -> list[str]:
        if self._has("--filter-symbol"):
            prefix = os.path.commonprefix(list(names))
            return ["--filter-symbol", prefix] if prefix else []
        if self._has("--boogie-filter"):
            flags: list[str] = []
            for name in names:
                # The Boogie spelling differs between versions: match either.
                for spelling in dict.fromkeys((name, mangle(name))):
                    flags += ["--boogie-filter", f"*.{spelling}"]
            return flags
        return []

    def command(
        self, names: Sequence[str], time_limit: int, log_name: str, counterexamples: bool = False,
        whole: bool = False,
    ) -> list[str]:
        """`whole`: no filter, every declaration of the file is verified (the background check: `--filter-symbol`
        takes one prefix, so the declarations to check cannot be named one by one)."""
        extract = ["--extract-counterexample"] if counterexamples and self.can_extract_counterexamples else []
        return [
            *self.info.command,
            "verify",
            FILE_NAME,
            *self._fixed_flags(time_limit),
            *extract,
            "--log-format",
            f"json;LogFileName={log_name}",
            *([] if whole else self.filter_flags(names)),
        ]

    @property
    def can_extract_counterexamples(self) -> bool:
        """Only when `dafny verify --help` lists the option (never assumed)."""
        return self.options is not None and "--extract-counterexample" in self.options

    def wall_limit(self, time_limit: int, count: int) -> float:
        return wall_limit(self.wall_base, self.wall_per_method, time_limit, count)

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
        """`background` (a batch holding a background check and harness methods, which the engine makes only for a
        backend with `mixed_checks`): the check and the rest in a run each, since a run with checks verifies the
        whole file and its console errors are not attributed to symbols."""
        if background:
            alone = [m for m in methods if m[0] == background]
            rest = [m for m in methods if m[0] != background]
            theirs = self.verify_batch(prelude, rest, time_limit, models, wall=wall) if rest else {}
            return {**theirs, **self.verify_batch(prelude, alone, time_limit, checks=checks, wall=wall)}
        names, wanted, settled = start_batch(prelude, methods, models)
        if settled is not None:
            return settled
        own = self.wall_limit(time_limit, len(names) + 2 * len(checks))
        wall = own if wall is None else min(own, wall)
        argv = self.command(names, time_limit, "log.json", counterexamples=bool(wanted), whole=bool(checks))
        layout, run, data, _ = run_batch(prelude, methods, argv, wall)
        log = None if data is None else data.decode("utf-8", errors="replace")
        if checks:
            return self._whole(layout, names, run, log, time_limit, wall)
        results = self._results(layout, names, run, log, time_limit, wall)
        if not wanted or "--extract-counterexample" not in argv:
            return results
        found: dict[str, str] = {}
        for lines, block in console_counterexamples(run.output, FILE_NAME):
            owners = {layout.owner(line) for line in lines}
            owner = owners.pop() if len(owners) == 1 else None
            if owner is not None:
                found[owner] = found.get(owner, "") + block
        for name in wanted:
            if found.get(name) and results[name].outcome is Outcome.REFUTED:
                results[name] = replace(results[name], model=found[name])
        return results

    def _results(
        self,
        layout: Layout,
        names: Sequence[str],
        run: ProcessRun,
        log: str | None,
        time_limit: int,
        wall: float,
    ) -> dict[str, Result]:
        scopes = parse_json_log(log or "")
        output = filter_noise(run.output)
        messages = messages_by_method(layout, output)
        concluded = {
            name: self._conclusion(scopes[name], messages.get(name, []), time_limit)
            for name in names
            if scopes.get(name)
        }
        rest = [name for name in names if name not in concluded]
        failed = run_failure(rest, run, wall)
        if failed is not None:
            return {**concluded, **failed}
        if run.returncode == 1:
            return {**concluded, **for_all(rest, Outcome.ERROR, BAD_COMMAND_LINE + tail(output), run.seconds)}
        if run.returncode not in (0, 2, 3, 4) or any(marker in output for marker in CRASH_MARKERS):
            return {**concluded, **crash_message(rest, run, output)}
        if run.returncode in (2, 3) and not concluded:
            return for_all(names, Outcome.ERROR, output or "parse or resolution error", run.seconds)
        if log is None:
            return {**concluded, **crash_message(rest, run, "no JSON verification log was written\n" + output)}
        return {**concluded, **{name: Result(Outcome.ERROR, NO_RESULT, 0.0) for name in rest}}

    def _whole(
        self, layout: Layout, names: Sequence[str], run: ProcessRun, log: str | None, time_limit: int, wall: float
    ) -> dict[str, Result]:
        """Every symbol of the log but the named methods' as one result for each name (`whole_file_result`). The
        log carries no messages: a failing symbol gets the console's error diagnostics (all of them: they are not
        attributed to symbols here)."""
        scopes = parse_json_log(log or "")
        output = filter_noise(run.output)
        errors = "; ".join(f"line {d.line}: {d.text}" for d in diagnostics(output) if d.kind == "Error")
        concluded: list[tuple[str, str | None]] = []
        for symbol, found in sorted(scopes.items()):
            if symbol in names:
                continue
            outcomes = {o.lower() for o, _ in found}
            why = (errors or "verification failed") if "errors" in outcomes else (
                "" if outcomes <= {"correct"} else None)
            concluded.append((symbol, why))
        if not concluded and not ran_to_end(run):
            return self._results(layout, names, run, log, time_limit, wall)
        seconds = sum(sec for found in scopes.values() for _, sec in found)
        return dict.fromkeys(names, whole_file_result(concluded, run, seconds))

    @staticmethod
    def _conclusion(scopes: Sequence[tuple[str, float]], details: Sequence[str], time_limit: int) -> Result:
        seconds = sum(s for _, s in scopes)
        rank, outcome, raw = -1, Outcome.ERROR, ""
        for name, _ in scopes:
            r, o = _VC_OUTCOMES.get(name.lower(), (2, Outcome.ERROR))
            if r > rank:
                rank, outcome, raw = r, o, name
        if outcome is Outcome.VERIFIED:
            return Result(outcome, "", seconds)
        if outcome is Outcome.REFUTED:
            return Result(outcome, "\n".join(details), seconds)
        if outcome is Outcome.TIMEOUT:
            return Result(outcome, timeout_message(time_limit, details), seconds)
        if raw.lower() == "outofmemory":
            return Result(outcome, OUT_OF_MEMORY, seconds)
        return Result(
            outcome, f"verifier outcome '{raw}'" + ("\n" + "\n".join(details) if details else ""), seconds
        )
