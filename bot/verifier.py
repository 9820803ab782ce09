"""Run the Dafny verifier on batches of harness methods; the only module that starts a process.

Nothing here raises on a bad program: every method of a batch gets a `Result`. All methods of a batch
are verified as members of one file (prelude + methods), which is ~7x cheaper than one process per method.

What was checked against what:

* Dafny 2.3 (Debian, mono), measured on this machine:
  - `dafny /version` prints `Dafny 2.3.0.10506` first and exits non-zero (no input file);
    `dafny --version` prints `Dafny: Error: unknown switch: --version` and exits 1.
  - `/xml:F` writes `<method name="Impl$$_module.__default.X">` with `<error message= line= column=>`
    (children `<related line=>`) and `<conclusion outcome= duration=>`; outcomes seen: `correct`,
    `errors`, `timedout`. The file starts with a UTF-8 BOM. On parse/resolution errors (exit 2) the
    file holds no `<method>`.
  - Exit codes: 0 verified, 1 bad command line, 2 parse/resolution errors, 4 verification errors or
    time-outs.
  - `/proc:P` matches P, where `*` is a wildcard, against the WHOLE Boogie name (not a substring) and
    may be repeated. Names are mangled: `SpecScore_h1` is `Impl$$_module.__default.SpecScore__h1`, so
    `/proc:Impl*SpecScore_h1` matches nothing, `/proc:Impl*SpecScore__h1` matches h1 but not h12, and
    one argument holding two space-separated patterns matches nothing. We pass one
    `/proc:Impl$$*.__default.<mangled name>` per harness method: the prelude's lemmas are not
    re-verified and the harness methods' own well-formedness checks are skipped.
  - z3 4.8.12 prints `Prover error: line N column M: unknown parameter 'model_compress'` followed by a
    `Legal parameters are:` block; harmless, filtered out of every message.
  - A goal that times out reliably under `/timeLimit:1`: factoring a 64-bit semiprime over `bv64`
    (nonlinear `int` goals sometimes end as `errors` instead, z3 giving up as "incomplete").
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
import shutil
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, cast

from bot.includes import IncludeError, find_includes
from bot.models import console_counterexamples, split_boogie_models
from bot.outcomes import Outcome, Result

INSTALL_HINT = "Install Dafny with scripts/setup.sh, or on Debian/Ubuntu: apt-get install -y dafny."

# Messages of results that say nothing about the program (crash, kill, our own failure): never cached.
KILLED = "verifier process killed after "
CRASHED = "verifier crashed: "
NOT_RUN = "verifier could not be started: "
# Also what a method with nothing to prove gets: Dafny 2.3 makes no task of an empty body (measured).
NO_RESULT = "verifier reported no result for this method (one with nothing to prove is not verified)"
OUT_OF_MEMORY = "verifier ran out of memory"
# Dafny follows an include anywhere (an absolute path too); bot.harness inlines included files instead, so a
# directive left in a program is a defect of the tool, and the program is not run.
INCLUDE_LEFT = "not verified: the program holds an `include` directive, which the verifier would follow: "
BAD_COMMAND_LINE = "verifier rejected its command line: "
_TRANSIENT = (KILLED, CRASHED, NOT_RUN, NO_RESULT, OUT_OF_MEMORY, BAD_COMMAND_LINE)

FILE_NAME = "batch.dfy"  # relative, so messages never name a temporary directory
MODEL_FILE = "model.txt"  # Dafny 2 `/mv:` file, asked for only when some method wants its models
MODEL_FILE_LIMIT = 256 * 1024 * 1024  # a larger model file is not read (about 15 KB per failed assertion)

DETECT_TIMEOUT = 30.0


class VerifierNotFound(Exception):
    """No usable `dafny`: not on PATH, or its version could not be read."""


@dataclass(frozen=True)
class VerifierInfo:
    command: tuple[str, ...]
    version: str
    major: int


class Backend(Protocol):
    @property
    def info(self) -> VerifierInfo: ...

    def flags_id(self, time_limit: int) -> str:
        """Everything besides the program text that decides a result: part of every cache key."""
        ...

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
    ) -> dict[str, Result]:
        """Verify `methods` ((name, text) pairs) as members of one file after `prelude`.

        Every name gets a Result; never raises because of the program. The methods named in `models`
        want the counterexample models of their failures in `Result.model` (when the backend can read
        them); with none named, the command line is the same as without the argument.
        """
        ...


def is_transient(result: Result) -> bool:
    """True for results caused by the run rather than the program (crash, kill): not to be cached."""
    return result.outcome in (Outcome.TIMEOUT, Outcome.ERROR) and result.message.startswith(_TRANSIENT)


# ---------------------------------------------------------------------------------------------------
# Processes


@dataclass(frozen=True)
class _Run:
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


def _run(argv: Sequence[str], cwd: str | None, limit: float) -> _Run:
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
        return _Run(None, "", time.monotonic() - start, start_error=str(exc))
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
            return _Run(None, out or "", time.monotonic() - start, killed=True)
    return _Run(proc.returncode, out or "", time.monotonic() - start)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# ---------------------------------------------------------------------------------------------------
# Detection

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


def detect(command: str = "dafny", timeout: float = DETECT_TIMEOUT) -> VerifierInfo:
    """Find `command` and read its version (never assumed); raise VerifierNotFound saying how to install."""
    path = shutil.which(command)
    if path is None:
        raise VerifierNotFound(f"'{command}' was not found on PATH. {INSTALL_HINT}")
    tried: list[str] = []
    for flag in ("--version", "/version"):
        run = _run([path, flag], None, timeout)
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
    run = _run([*info.command, "verify", "--help"], None, timeout)
    options = frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", run.output))
    return options or None


def make_backend(info: VerifierInfo, z3_path: str | None = None) -> Backend:
    """The backend for this Dafny: the 2.x command line (/xml) up to 2, `dafny verify` from 3 on."""
    if info.major <= 2:
        return Dafny2Backend(info, z3_path=z3_path)
    return Dafny4Backend(info, z3_path=z3_path, options=probe_verify_options(info))


# ---------------------------------------------------------------------------------------------------
# Output: noise, diagnostics, layout

_Z3_NOISE = re.compile(r"^Prover error: line \d+ column \d+: unknown parameter 'model_compress'\s*$")


def filter_noise(text: str) -> str:
    """Drop z3's harmless `unknown parameter 'model_compress'` error and its `Legal parameters` list."""
    kept: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if _Z3_NOISE.match(lines[i]):
            i += 1
            if i < len(lines) and lines[i].strip() == "Legal parameters are:":
                i += 1
                while i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].strip():
                    i += 1
            continue
        kept.append(lines[i])
        i += 1
    return "\n".join(kept).strip()


_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^()\n]*)\((?P<line>\d+),(?P<col>-?\d+)\): (?P<kind>Error|Warning|Related location|Info)"
    r"(?: [A-Z]+\d+)?: (?P<text>.*)$"
)


@dataclass(frozen=True)
class _Diagnostic:
    line: int
    kind: str
    text: str


def _diagnostics(output: str) -> list[_Diagnostic]:
    found: list[_Diagnostic] = []
    for line in output.splitlines():
        m = _DIAGNOSTIC.match(line.strip())
        if m and Path(m.group("file")).name == FILE_NAME:
            found.append(_Diagnostic(int(m.group("line")), m.group("kind"), m.group("text").strip()))
    return found


@dataclass(frozen=True)
class _Layout:
    """The batch file, and where each method lies in it (1-based, inclusive line ranges)."""

    text: str
    ranges: dict[str, tuple[int, int]]
    method_line: int  # first line of the method in its own `Program.text()`

    @staticmethod
    def build(prelude: str, methods: Sequence[tuple[str, str]]) -> _Layout:
        # Same shape as Program.text(), so a one-method batch is exactly that program.
        head = prelude.rstrip()
        parts = [head + "\n"]
        line = head.count("\n") + 2  # first line after the prelude (the blank separator)
        ranges: dict[str, tuple[int, int]] = {}
        for name, text in methods:
            body = text.strip()
            first = line + 1
            last = first + body.count("\n")
            ranges[name] = (first, last)
            parts.append("\n" + body + "\n")
            line = last + 1
        return _Layout("".join(parts), ranges, head.count("\n") + 3)

    def owner(self, line: int) -> str | None:
        for name, (first, last) in self.ranges.items():
            if first <= line <= last:
                return name
        return None

    def program_line(self, name: str, line: int) -> int:
        """`line` of the batch file as a line of `name`'s own Program.text(): stable across batches."""
        first, last = self.ranges[name]
        return line - first + self.method_line if first <= line <= last else line


def _describe(layout: _Layout, name: str, line: int, text: str, related: Sequence[int] = ()) -> str:
    where = f"line {layout.program_line(name, line)}: {text}"
    if related:
        where += " (related location: " + ", ".join(f"line {layout.program_line(name, r)}" for r in related)
        where += ")"
    return where


def _messages_by_method(layout: _Layout, output: str) -> dict[str, list[str]]:
    """Console diagnostics attributed to methods by line; a `Related location` follows its error."""
    found: dict[str, list[str]] = {}
    current: str | None = None
    for diag in _diagnostics(output):
        if diag.kind == "Related location":
            if current is not None:
                found[current][-1] += f" (related location: line {layout.program_line(current, diag.line)})"
            continue
        current = layout.owner(diag.line)
        if current is None or diag.kind != "Error":
            current = None
            continue
        found.setdefault(current, []).append(_describe(layout, current, diag.line, diag.text))
    return found


def _all(names: Sequence[str], outcome: Outcome, message: str, seconds: float) -> dict[str, Result]:
    share = seconds / max(len(names), 1)
    return {name: Result(outcome, message, share) for name in names}


def _timeout_message(time_limit: int, details: Sequence[str]) -> str:
    head = f"verification timed out (time limit {time_limit} s)"
    return head + (":\n" + "\n".join(details) if details else "")


def _tail(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]


def _run_failure(names: Sequence[str], run: _Run, wall: float) -> dict[str, Result] | None:
    """Results for a run that did not finish on its own (could not start, killed); None otherwise."""
    if run.start_error:
        return _all(names, Outcome.ERROR, NOT_RUN + run.start_error, run.seconds)
    if run.killed:
        message = f"{KILLED}{wall:g} s (wall-clock limit for {len(names)} method(s))"
        output = filter_noise(run.output)
        return _all(names, Outcome.TIMEOUT, message + (":\n" + _tail(output) if output else ""), run.seconds)
    return None


def _crash(names: Sequence[str], run: _Run, output: str) -> dict[str, Result]:
    how = f"exit code {run.returncode}"
    if run.returncode is not None and run.returncode < 0:
        how = f"killed by signal {-run.returncode}"
    text = _tail(output) if output else "(no output)"
    return _all(names, Outcome.ERROR, f"{CRASHED}{how}:\n{text}", run.seconds)


_CRASH_MARKERS = ("Unhandled Exception", "Unhandled exception", "*** Error: Internal", "Stack overflow")


# ---------------------------------------------------------------------------------------------------
# Dafny 2.x: /xml


@dataclass(frozen=True)
class _BoogieMethod:
    name: str  # last component of the Boogie name, still mangled
    outcome: str  # "" when the report has no conclusion (cut short)
    seconds: float
    errors: tuple[tuple[int, str, tuple[int, ...]], ...]  # (line, message, related lines)


def _parse_boogie_xml(data: bytes) -> list[_BoogieMethod]:
    """Every complete `<method>` of a Boogie /xml report; tolerant of a report cut short."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))
    methods: list[_BoogieMethod] = []
    try:
        parser.feed(data)
        for event in parser.read_events():
            _, elem = cast(tuple[str, object], event)  # ("end", element) for the "end" events asked for
            if not isinstance(elem, ET.Element) or elem.tag != "method":
                continue
            errors = []
            for err in elem.iter("error"):
                related = tuple(_int(r.get("line")) for r in err.iter("related"))
                errors.append((_int(err.get("line")), err.get("message", "error"), related))
            conclusion = elem.find("conclusion")
            methods.append(
                _BoogieMethod(
                    name=elem.get("name", "").rsplit(".", 1)[-1],
                    outcome="" if conclusion is None else conclusion.get("outcome", "").lower(),
                    seconds=_float(None if conclusion is None else conclusion.get("duration")),
                    errors=tuple(errors),
                )
            )
    except ET.ParseError:
        pass  # keep what was complete before the damage
    return methods


def attribute_models(methods: Sequence[_BoogieMethod], text: str) -> dict[str, str]:
    """The models of a `/mv:` file per method (mangled name), concatenated in the file's order.

    Boogie writes one model per counterexample, in the order of the `<error>`s of methods concluded
    `errors` in the /xml report (measured; a time-out's `<error>` has no model). When the counts do not
    match, nothing is attributed rather than guessed.
    """
    models = split_boogie_models(text)
    counts = [(m.name, len(m.errors)) for m in methods if m.outcome == "errors"]
    if sum(n for _, n in counts) != len(models) or not models:
        return {}
    found: dict[str, str] = {}
    start = 0
    for name, n in counts:
        if n:
            found[name] = found.get(name, "") + "".join(models[start : start + n])
        start += n
    return found


def _int(text: str | None) -> int:
    try:
        return int(text or "0")
    except ValueError:
        return 0


def _float(text: str | None) -> float:
    try:
        return float(text or "0")
    except ValueError:
        return 0.0


def mangle(name: str) -> str:
    """Dafny 2's Boogie spelling of an identifier: underscores doubled (measured)."""
    return name.replace("_", "__")


def _refuse_includes(layout: _Layout, names: Sequence[str]) -> dict[str, Result] | None:
    """Every name as an ERROR when the batch holds an `include` directive (or cannot be scanned for one)."""
    if "include" not in layout.text:
        return None  # the usual case, without tokenizing
    try:
        found = find_includes(layout.text, FILE_NAME)
    except IncludeError as e:
        return _all(names, Outcome.ERROR, INCLUDE_LEFT + str(e), 0.0)
    if not found:
        return None
    return _all(names, Outcome.ERROR, INCLUDE_LEFT + f"line {found[0].line}: {found[0].directive}", 0.0)


def _wall_limit(base: float, per_method: float | None, time_limit: int, count: int) -> float:
    """The whole run's wall-clock limit: a base, plus the time limit (or a set time) per method."""
    return base + (time_limit if per_method is None else per_method) * count


def _start_batch(
    prelude: str, methods: Sequence[tuple[str, str]], models: Collection[str]
) -> tuple[list[str], list[str], dict[str, Result] | None]:
    """The batch's method names, those that want a model, and the results when it must not run at all
    (no method, or an `include` left in it)."""
    names = [name for name, _ in methods]
    if not names:
        return names, [], {}
    refused = _refuse_includes(_Layout.build(prelude, methods), names)
    return names, [name for name in names if name in models], refused


def _run_batch(
    prelude: str, methods: Sequence[tuple[str, str]], argv: list[str], wall: float, model_name: str | None = None
) -> tuple[_Layout, _Run, bytes | None, bytes | None]:
    """Write the batch file in a fresh directory, run the verifier there; return its report file, if any,
    and the model file `model_name` (when asked for, written and not over MODEL_FILE_LIMIT bytes).

    The report is the command's last file argument before the program (`/xml:F` or `LogFileName=F`)."""
    layout = _Layout.build(prelude, methods)
    report_name = "report.xml" if any(a.startswith("/xml:") for a in argv) else "log.json"
    with tempfile.TemporaryDirectory(prefix="specscore-") as tmp:
        Path(tmp, FILE_NAME).write_text(layout.text, encoding="utf-8")
        run = _run(argv, tmp, wall)
        report_path = Path(tmp, report_name)
        report = report_path.read_bytes() if report_path.exists() else None
        model: bytes | None = None
        if model_name is not None:
            model_path = Path(tmp, model_name)
            if model_path.is_file() and model_path.stat().st_size <= MODEL_FILE_LIMIT:
                model = model_path.read_bytes()
    return layout, run, report, model


@dataclass(frozen=True)
class Dafny2Backend:
    """`dafny /compile:0 ... /xml:F` (Dafny 2.x command line).

    The whole process gets `wall_base + wall_per_method * methods` seconds (per method: the time limit
    unless given); on expiry its process group is killed.
    """

    info: VerifierInfo
    z3_path: str | None = None
    wall_base: float = 30.0
    wall_per_method: float | None = None

    def flags_id(self, time_limit: int) -> str:
        z3 = f" /z3exe:{self.z3_path}" if self.z3_path else ""
        return f"dafny {self.info.version}: /compile:0 /errorTrace:0 /timeLimit:{time_limit} /proc:Impl*{z3}"

    def command(
        self, names: Sequence[str], time_limit: int, xml_name: str, model_name: str | None = None
    ) -> list[str]:
        argv = [*self.info.command, "/compile:0", "/nologo", "/errorTrace:0", f"/timeLimit:{time_limit}"]
        argv += [f"/proc:Impl$$*.__default.{mangle(name)}" for name in names]
        if self.z3_path:
            argv.append(f"/z3exe:{self.z3_path}")
        if model_name is not None:
            argv.append(f"/mv:{model_name}")
        return [*argv, f"/xml:{xml_name}", FILE_NAME]

    def wall_limit(self, time_limit: int, count: int) -> float:
        return _wall_limit(self.wall_base, self.wall_per_method, time_limit, count)

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
        wall = self.wall_limit(time_limit, len(names))
        model_name = MODEL_FILE if wanted else None
        argv = self.command(names, time_limit, "report.xml", model_name)
        layout, run, report, model = _run_batch(prelude, methods, argv, wall, model_name)
        results = self._results(layout, names, run, report, time_limit, wall)
        if not wanted or model is None or report is None:
            return results
        found = attribute_models(_parse_boogie_xml(report), model.decode("utf-8", errors="replace"))
        for name in wanted:
            text = found.get(mangle(name), "")
            if text and results[name].outcome is Outcome.REFUTED:
                results[name] = replace(results[name], model=text)
        return results

    def _results(
        self,
        layout: _Layout,
        names: Sequence[str],
        run: _Run,
        report: bytes | None,
        time_limit: int,
        wall: float,
    ) -> dict[str, Result]:
        by_mangled = {mangle(name): name for name in names}
        concluded: dict[str, Result] = {}
        for method in _parse_boogie_xml(report or b""):
            name = by_mangled.get(method.name)
            if name is not None and method.outcome:
                concluded[name] = self._conclusion(layout, name, method, time_limit)
        rest = [name for name in names if name not in concluded]
        output = filter_noise(run.output)
        failed = _run_failure(rest, run, wall)
        if failed is not None:
            return {**concluded, **failed}
        if run.returncode == 1:
            return {**concluded, **_all(rest, Outcome.ERROR, BAD_COMMAND_LINE + _tail(output), run.seconds)}
        if run.returncode not in (0, 2, 4) or any(marker in output for marker in _CRASH_MARKERS):
            return {**concluded, **_crash(rest, run, output)}
        if run.returncode == 2 and not concluded:
            # Parse or resolution errors: nothing was verified; deterministic, so worth caching.
            return _all(names, Outcome.ERROR, output or "parse or resolution error", run.seconds)
        if report is None:
            return {**concluded, **_crash(rest, run, "no /xml report was written\n" + output)}
        return {**concluded, **{name: Result(Outcome.ERROR, NO_RESULT, 0.0) for name in rest}}

    @staticmethod
    def _conclusion(layout: _Layout, name: str, method: _BoogieMethod, time_limit: int) -> Result:
        details = [_describe(layout, name, line, text, related) for line, text, related in method.errors]
        if method.outcome == "correct":
            return Result(Outcome.VERIFIED, "", method.seconds)
        if method.outcome == "errors":
            return Result(Outcome.REFUTED, "\n".join(details), method.seconds)
        if method.outcome in ("timedout", "timeout", "outofresource"):
            return Result(Outcome.TIMEOUT, _timeout_message(time_limit, details), method.seconds)
        if method.outcome == "outofmemory":
            return Result(Outcome.ERROR, OUT_OF_MEMORY, method.seconds)
        return Result(Outcome.ERROR, f"verifier outcome '{method.outcome}'", method.seconds)


# ---------------------------------------------------------------------------------------------------
# Dafny 3.x/4.x: dafny verify --log-format json

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
        self, names: Sequence[str], time_limit: int, log_name: str, counterexamples: bool = False
    ) -> list[str]:
        extract = ["--extract-counterexample"] if counterexamples and self.can_extract_counterexamples else []
        return [
            *self.info.command,
            "verify",
            FILE_NAME,
            *self._fixed_flags(time_limit),
            *extract,
            "--log-format",
            f"json;LogFileName={log_name}",
            *self.filter_flags(names),
        ]

    @property
    def can_extract_counterexamples(self) -> bool:
        """Only when `dafny verify --help` lists the option (never assumed)."""
        return self.options is not None and "--extract-counterexample" in self.options

    def wall_limit(self, time_limit: int, count: int) -> float:
        return _wall_limit(self.wall_base, self.wall_per_method, time_limit, count)

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
        wall = self.wall_limit(time_limit, len(names))
        argv = self.command(names, time_limit, "log.json", counterexamples=bool(wanted))
        layout, run, data, _ = _run_batch(prelude, methods, argv, wall)
        log = None if data is None else data.decode("utf-8", errors="replace")
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
        layout: _Layout,
        names: Sequence[str],
        run: _Run,
        log: str | None,
        time_limit: int,
        wall: float,
    ) -> dict[str, Result]:
        scopes = parse_json_log(log or "")
        output = filter_noise(run.output)
        messages = _messages_by_method(layout, output)
        concluded = {
            name: self._conclusion(scopes[name], messages.get(name, []), time_limit)
            for name in names
            if scopes.get(name)
        }
        rest = [name for name in names if name not in concluded]
        failed = _run_failure(rest, run, wall)
        if failed is not None:
            return {**concluded, **failed}
        if run.returncode == 1:
            return {**concluded, **_all(rest, Outcome.ERROR, BAD_COMMAND_LINE + _tail(output), run.seconds)}
        if run.returncode not in (0, 2, 3, 4) or any(marker in output for marker in _CRASH_MARKERS):
            return {**concluded, **_crash(rest, run, output)}
        if run.returncode in (2, 3) and not concluded:
            return _all(names, Outcome.ERROR, output or "parse or resolution error", run.seconds)
        if log is None:
            return {**concluded, **_crash(rest, run, "no JSON verification log was written\n" + output)}
        return {**concluded, **{name: Result(Outcome.ERROR, NO_RESULT, 0.0) for name in rest}}

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
            return Result(outcome, _timeout_message(time_limit, details), seconds)
        if raw.lower() == "outofmemory":
            return Result(outcome, OUT_OF_MEMORY, seconds)
        return Result(
            outcome, f"verifier outcome '{raw}'" + ("\n" + "\n".join(details) if details else ""), seconds
        )
