"""What both backends share: the batch file and its layout, running it, and reading what the verifier writes."""

from __future__ import annotations

import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from bot.dafny.includes import IncludeError, find_includes
from bot.symbolic.modeltext import split_boogie_models
from bot.symbolic.program import RUN_FINISHED, Outcome, Result
from bot.verifier.process import CRASHED, INCLUDE_LEFT, KILLED, NOT_RUN, ProcessRun, run_process

FILE_NAME = "batch.dfy"  # relative, so messages never name a temporary directory
MODEL_FILE = "model.txt"  # Dafny 2 `/mv:` file, asked for only when some method wants its models
# the methods whose models are read, as Boogie names them (`mangle`), one a line: the server's z3 relay sends their
# checks as Boogie does (bot/verifier/prelude_reuse.py); the command line's z3 does not read it
FRESH_FILE = "fresh-checks.txt"
MODEL_FILE_LIMIT = 256 * 1024 * 1024  # a larger model file is not read (about 15 KB per failed assertion)


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


def diagnostics(output: str) -> list[_Diagnostic]:
    found: list[_Diagnostic] = []
    for line in output.splitlines():
        m = _DIAGNOSTIC.match(line.strip())
        if m and Path(m.group("file")).name == FILE_NAME:
            found.append(_Diagnostic(int(m.group("line")), m.group("kind"), m.group("text").strip()))
    return found


@dataclass(frozen=True)
class Layout:
    """The batch file, and where each method lies in it (1-based, inclusive line ranges)."""

    text: str
    ranges: dict[str, tuple[int, int]]
    method_line: int  # first line of the method in its own `Program.text()`

    @staticmethod
    def build(prelude: str, methods: Sequence[tuple[str, str]]) -> Layout:
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
        return Layout("".join(parts), ranges, head.count("\n") + 3)

    def owner(self, line: int) -> str | None:
        for name, (first, last) in self.ranges.items():
            if first <= line <= last:
                return name
        return None

    def program_line(self, name: str, line: int) -> int:
        """`line` of the batch file as a line of `name`'s own Program.text(): stable across batches."""
        first, last = self.ranges[name]
        return line - first + self.method_line if first <= line <= last else line


def describe_run(layout: Layout, name: str, line: int, text: str, related: Sequence[int] = ()) -> str:
    where = f"line {layout.program_line(name, line)}: {text}"
    if related:
        where += " (related location: " + ", ".join(f"line {layout.program_line(name, r)}" for r in related)
        where += ")"
    return where


def messages_by_method(layout: Layout, output: str) -> dict[str, list[str]]:
    """Console diagnostics attributed to methods by line; a `Related location` follows its error."""
    found: dict[str, list[str]] = {}
    current: str | None = None
    for diag in diagnostics(output):
        if diag.kind == "Related location":
            if current is not None:
                found[current][-1] += f" (related location: line {layout.program_line(current, diag.line)})"
            continue
        current = layout.owner(diag.line)
        if current is None or diag.kind != "Error":
            current = None
            continue
        found.setdefault(current, []).append(describe_run(layout, current, diag.line, diag.text))
    return found


def for_all(names: Sequence[str], outcome: Outcome, message: str, seconds: float) -> dict[str, Result]:
    share = seconds / max(len(names), 1)
    return {name: Result(outcome, message, share) for name in names}


def timeout_message(time_limit: int, details: Sequence[str]) -> str:
    head = f"verification timed out (time limit {time_limit} s)"
    return head + (":\n" + "\n".join(details) if details else "")


def tail(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]


def run_failure(names: Sequence[str], run: ProcessRun, wall: float) -> dict[str, Result] | None:
    """Results for a run that did not finish on its own (could not start, killed); None otherwise."""
    if run.start_error:
        return for_all(names, Outcome.ERROR, NOT_RUN + run.start_error, run.seconds)
    if run.killed:
        message = f"{KILLED}{wall:g} s (wall-clock limit for {len(names)} method(s))"
        output = filter_noise(run.output)
        return for_all(names, Outcome.TIMEOUT, message + (":\n" + tail(output) if output else ""), run.seconds)
    return None




def killed_at(result: Result) -> float | None:
    """The wall-clock limit a killed run's result names (run_failure's words), or None for any other result: which
    limit stopped the run, the backend's own or one it was given (a method's budget, bot/verifier/engine.py)."""
    if not result.message.startswith(KILLED):
        return None
    number = result.message[len(KILLED):].split(" s", 1)[0]
    try:
        return float(number)
    except ValueError:
        return None


def ran_to_end(run: ProcessRun) -> bool:
    """The run ended by itself with a report of what it verified (not killed, not crashed, no resolution error)."""
    return run.returncode in (0, 4) and not run.killed and not run.start_error


def whole_file_result(concluded: Sequence[tuple[str, str | None]], run: ProcessRun, seconds: float,
                      others: Collection[tuple[int, int]] = ()) -> Result:
    """One result for a background check: every procedure the run reported, by declaration.

    `concluded` holds (qualified declaration name, "" when proved, else the failure) for each reported check;
    one line each in the message, `check NAME: ok`, `check NAME: failed: MESSAGE` or `check NAME: not concluded`
    (bot/symbolic/rounds.py reads them with CHECK_LINE; Dafny 2.3 reports no procedure for a declaration with nothing to
    prove, such as a function without `ensures` whose body is a plain expression), then `check-run: finished` when
    the run ended by itself (`ran_to_end`). The run's warnings (e.g. a loop without a body, which Dafny takes on
    trust) follow as `warning line N: TEXT`, but for those on the lines of `others` (the line ranges of the harness
    methods a batch verified beside the check: theirs, not the checked declarations'). Proved failures make it
    REFUTED; else a run that did not finish, or a check not concluded, a TIMEOUT.
    """
    finished = ran_to_end(run)
    warnings = [f"warning line {d.line}: {d.text}" for d in diagnostics(filter_noise(run.output))
                if d.kind == "Warning" and not any(first <= d.line <= last for first, last in others)]
    lines = [f"check {name}: " + ("ok" if why == "" else "not concluded" if why is None else f"failed: {why}")
             for name, why in concluded]
    message = "\n".join([*lines, *([RUN_FINISHED] if finished else []), *warnings])
    if any(why for _, why in concluded):
        return Result(Outcome.REFUTED, message, seconds)
    if not finished or any(why is None for _, why in concluded):
        return Result(Outcome.TIMEOUT, message, seconds)
    return Result(Outcome.VERIFIED, message, seconds)


def boogie_declaration(full: str) -> str:
    """`CheckWellformed$$A.__default.F_k` -> `A.F'`: the qualified Dafny name of a Boogie procedure's declaration
    (top-level scope and default classes dropped, like `Decl.qualified`)."""
    parts = full.split("$$", 1)[-1].split(".")
    kept = [p for p in parts if p not in ("_module", "__default")]
    return ".".join(_unmangle_part(p) for p in kept)


def _unmangle_part(part: str) -> str:
    out, i = [], 0
    while i < len(part):
        pair = part[i : i + 2]
        if pair in ("__", "_k", "_q", "_h"):
            out.append({"__": "_", "_k": "'", "_q": "?", "_h": "#"}[pair])
            i += 2
        else:
            out.append(part[i])
            i += 1
    return "".join(out)


def crash_message(names: Sequence[str], run: ProcessRun, output: str) -> dict[str, Result]:
    how = f"exit code {run.returncode}"
    if run.returncode is not None and run.returncode < 0:
        how = f"killed by signal {-run.returncode}"
    text = tail(output) if output else "(no output)"
    return for_all(names, Outcome.ERROR, f"{CRASHED}{how}:\n{text}", run.seconds)


CRASH_MARKERS = ("Unhandled Exception", "Unhandled exception", "*** Error: Internal", "Stack overflow")


# ---------------------------------------------------------------------------------------------------
# Boogie /xml reports (Dafny 2.x)


@dataclass(frozen=True)
class BoogieMethod:
    name: str  # last component of the Boogie name, still mangled
    outcome: str  # "" when the report has no conclusion (cut short)
    seconds: float
    errors: tuple[tuple[int, str, tuple[int, ...]], ...]  # (line, message, related lines)
    full: str = ""  # the whole Boogie name (`CheckWellformed$$_module.__default.F`)


def parse_boogie_xml(data: bytes) -> list[BoogieMethod]:
    """Every complete `<method>` of a Boogie /xml report; tolerant of a report cut short."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))
    methods: list[BoogieMethod] = []
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
                BoogieMethod(
                    name=elem.get("name", "").rsplit(".", 1)[-1],
                    outcome="" if conclusion is None else conclusion.get("outcome", "").lower(),
                    seconds=_float(None if conclusion is None else conclusion.get("duration")),
                    errors=tuple(errors),
                    full=elem.get("name", ""),
                )
            )
    except ET.ParseError:
        pass  # keep what was complete before the damage
    return methods


def attribute_models(methods: Sequence[BoogieMethod], text: str) -> dict[str, str]:
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
    """Dafny 2's Boogie spelling of an identifier (measured): `_` doubled, `'` as `_k`, `?` as `_q`, and a prefix
    lemma's `#` as `_h` (harness names have underscores only)."""
    return name.replace("_", "__").replace("'", "_k").replace("?", "_q").replace("#", "_h")


def _refuse_includes(layout: Layout, names: Sequence[str]) -> dict[str, Result] | None:
    """Every name as an ERROR when the batch holds an `include` directive (or cannot be scanned for one)."""
    if "include" not in layout.text:
        return None  # the usual case, without tokenizing
    try:
        found = find_includes(layout.text, FILE_NAME)
    except IncludeError as e:
        return for_all(names, Outcome.ERROR, INCLUDE_LEFT + str(e), 0.0)
    if not found:
        return None
    return for_all(names, Outcome.ERROR, INCLUDE_LEFT + f"line {found[0].line}: {found[0].directive}", 0.0)


def start_batch(
    prelude: str, methods: Sequence[tuple[str, str]], models: Collection[str]
) -> tuple[list[str], list[str], dict[str, Result] | None]:
    """The batch's method names, those that want a model, and the results when it must not run at all
    (no method, or an `include` left in it)."""
    names = [name for name, _ in methods]
    if not names:
        return names, [], {}
    refused = _refuse_includes(Layout.build(prelude, methods), names)
    return names, [name for name in names if name in models], refused


def run_batch(
    prelude: str,
    methods: Sequence[tuple[str, str]],
    argv: list[str],
    wall: float,
    model_name: str | None = None,
    runner: Callable[[Sequence[str], str, float], ProcessRun] = run_process,
    wanted: Collection[str] = (),
) -> tuple[Layout, ProcessRun, bytes | None, bytes | None]:
    """Write the batch file in a fresh directory, run the verifier there (`runner(argv, folder, wall)`: a new
    process, or a request to a kept-alive one); return its report file, if any, and the model file
    `model_name` (when asked for, written and not over MODEL_FILE_LIMIT bytes); `wanted`: the methods whose models
    are read (FRESH_FILE).

    The report is the command's last file argument before the program (`/xml:F` or `LogFileName=F`)."""
    layout = Layout.build(prelude, methods)
    report_name = "report.xml" if any(a.startswith("/xml:") for a in argv) else "log.json"
    with tempfile.TemporaryDirectory(prefix="specscore-") as tmp:
        Path(tmp, FILE_NAME).write_text(layout.text, encoding="utf-8")
        if wanted:
            Path(tmp, FRESH_FILE).write_text("".join(f"{mangle(name)}\n" for name in wanted), encoding="utf-8")
        run = runner(argv, tmp, wall)
        report_path = Path(tmp, report_name)
        report = report_path.read_bytes() if report_path.exists() else None
        model: bytes | None = None
        if model_name is not None:
            model_path = Path(tmp, model_name)
            if model_path.is_file() and model_path.stat().st_size <= MODEL_FILE_LIMIT:
                model = model_path.read_bytes()
    return layout, run, report, model
