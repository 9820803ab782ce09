"""GitHub workflow commands and the files the runner reads: outputs and the step summary.

The only module that writes them. Formatting functions are pure; writers take their path or stream as an
argument. A writer given no path, or a path whose file does not exist, does nothing: the runner creates both
files before the step starts, so a missing one means we are not running in GitHub Actions.

Escaping is actions-toolkit's (`actions_toolkit.command`), which matches @actions/core. Annotations, groups,
outputs and the summary are written here: the toolkit's versions write to `sys.stdout` and read `os.environ`
themselves, emit empty properties (`title=,file=,...`), raise when an output file is absent, and its
`core.group` is a coroutine.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TextIO

from actions_toolkit import command as _toolkit

OUTPUT_NAMES: tuple[str, ...] = ("correctness", "completeness", "passed", "report-json", "sarif-file", "regressions",
                                 "spec-changes")

# GitHub shows at most 10 error and 10 warning annotations per step (REST "checks" docs); the rest are lost
ANNOTATIONS_PER_LEVEL = 10
# a step's summary above 1 MiB is not uploaded at all (workflow commands docs, "Step isolation and limits")
SUMMARY_LIMIT_BYTES = 1024 * 1024

# user-facing text
ANNOTATIONS_CAPPED_TITLE = "More findings in the step summary"
ANNOTATIONS_CAPPED = (
    "{count} more {noun} not shown ({detail}): GitHub shows at most {limit} of each level per step. "
    "The step summary of this run lists every finding."
)
SUMMARY_TRUNCATED = "\n_The rest of this summary was cut: GitHub accepts at most 1 MiB of summary per step._\n"
_DETAILS_OPEN = re.compile(r"<details\b", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)

OutputValue = str | int | float | bool


class Level(Enum):
    NOTICE = "notice"
    WARNING = "warning"
    ERROR = "error"


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF escaped (`%` first, so escapes are not escaped twice)."""
    return str(_toolkit.escape_data(text))


def escape_property(text: str) -> str:
    """A command property's value: as `escape_data`, plus `:` and `,`, which end a property."""
    return str(_toolkit.escape_property(text))


def annotation(
    level: Level | str,
    message: str,
    file: str | None = None,
    line: int | None = None,
    end_line: int | None = None,
    title: str | None = None,
) -> str:
    """`::error file=F,line=L,endLine=E,title=T::message`, absent properties left out."""
    kind = Level(level)
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
    if line is not None:
        if line < 1:
            raise ValueError(f"line must be >= 1, not {line}")
        props.append(f"line={line}")
    if end_line is not None:
        if line is None or end_line < line:
            raise ValueError(f"end_line {end_line} needs a line <= it (line={line})")
        props.append(f"endLine={end_line}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{kind.value}" + (" " + ",".join(props) if props else "")
    return f"{head}::{escape_data(message)}"


def group_start(name: str) -> str:
    return f"::group::{escape_data(name)}"


def group_end() -> str:
    return "::endgroup::"


@dataclass(frozen=True)
class Annotation:
    level: Level
    message: str
    file: str | None = None
    line: int | None = None
    end_line: int | None = None
    title: str | None = None
    severity: int = 0  # higher is worse; capping keeps the worst

    def render(self) -> str:
        return annotation(self.level, self.message, self.file, self.line, self.end_line, self.title)


def _take(ordered: Sequence[Annotation], limits: Mapping[Level, int]) -> tuple[list[Annotation], list[Annotation]]:
    kept: list[Annotation] = []
    dropped: list[Annotation] = []
    used = dict.fromkeys(Level, 0)
    for a in ordered:
        if used[a.level] < limits[a.level]:
            used[a.level] += 1
            kept.append(a)
        else:
            dropped.append(a)
    return kept, dropped


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def cap_annotations(
    items: Sequence[Annotation], per_level: int = ANNOTATIONS_PER_LEVEL
) -> tuple[tuple[Annotation, ...], str | None]:
    """The annotations GitHub will show, worst first, and one notice line about the rest (None if none dropped).

    Items are ordered by severity, highest first; equal severities keep the caller's order, so a caller that
    already sorted worst-first can leave severity at 0. The notice itself takes one of the notice slots.
    """
    if per_level < 1:
        raise ValueError(f"per_level must be >= 1, not {per_level}")
    ordered = sorted(items, key=lambda a: -a.severity)
    kept, dropped = _take(ordered, dict.fromkeys(Level, per_level))
    if not dropped:
        return tuple(kept), None
    kept, dropped = _take(ordered, {**dict.fromkeys(Level, per_level), Level.NOTICE: per_level - 1})
    counts = [(lvl, sum(1 for a in dropped if a.level is lvl)) for lvl in (Level.ERROR, Level.WARNING, Level.NOTICE)]
    detail = ", ".join(_plural(n, lvl.value) for lvl, n in counts if n)
    noun = "annotation is" if len(dropped) == 1 else "annotations are"
    message = ANNOTATIONS_CAPPED.format(count=len(dropped), noun=noun, detail=detail, limit=per_level)
    return tuple(kept), annotation(Level.NOTICE, message, title=ANNOTATIONS_CAPPED_TITLE)


def _write(stream: TextIO, line: str) -> None:
    # flushed, so it keeps its place among the verifier's output
    stream.write(line + "\n")
    stream.flush()


def emit(stream: TextIO, text: str, level: Level | None = None) -> None:
    """Every line the Action writes to its log goes through here.

    With a level, `text` is the message of one `::error::`/`::warning::`/`::notice::` command, escaped
    (`%`, CR, LF), so a file name or config key cannot end the line and start a command of its own.
    Without one, `text` is free text (file lists, messages quoting the pull request): when any line of it
    could be read as a command, command processing is stopped around it with a token nobody can guess.
    The runner's older `##[command]` form is read anywhere in a line: it is broken up in both cases.
    """
    text = text.replace("##[", "#\u2060#[")
    if level is not None:
        _write(stream, annotation(level, text))
        return
    if "::" not in text and "\r" not in text:
        _write(stream, text)
        return
    token = secrets.token_hex(16)
    _write(stream, f"::stop-commands::{token}")
    for line in text.replace("\r", "\\r").split("\n"):
        _write(stream, line)
    _write(stream, f"::{token}::")


def emit_annotations(stream: TextIO, items: Sequence[Annotation], per_level: int = ANNOTATIONS_PER_LEVEL) -> int:
    """Write the annotations GitHub will show and the notice about the rest; returns how many were left out."""
    kept, note = cap_annotations(items, per_level)
    for a in kept:
        _write(stream, a.render())
    if note is not None:
        _write(stream, note)
    return len(items) - len(kept)


@contextmanager
def group(stream: TextIO, name: str) -> Iterator[None]:
    """A foldable group in the log around the block. GitHub does not nest groups."""
    _write(stream, group_start(name))
    try:
        yield
    finally:
        _write(stream, group_end())


# ---- files the runner reads


def random_delimiter() -> str:
    return f"ghadelimiter_{secrets.token_hex(16)}"


def output_text(value: OutputValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # what `if:` expressions compare against
    return str(value)


def format_outputs(mapping: Mapping[str, OutputValue], delimiter: Callable[[], str] = random_delimiter) -> str:
    """`name<<DELIM`, value, `DELIM` for each output: the multiline syntax, safe for any value.

    The runner ends a value at the first line equal to the delimiter, so a delimiter found anywhere in the name
    or the value is replaced by a fresh one.
    """
    chunks = []
    for name, value in mapping.items():
        if name not in OUTPUT_NAMES:
            raise ValueError(f"output {name!r} is not declared in action.yml; declared: {', '.join(OUTPUT_NAMES)}")
        text = output_text(value)
        for _ in range(8):
            delim = delimiter()
            if delim and "\n" not in delim and "\r" not in delim and delim not in text and delim not in name:
                break
        else:
            raise ValueError(f"no usable heredoc delimiter for output {name!r}")
        chunks.append(f"{name}<<{delim}\n{text}\n{delim}\n")
    return "".join(chunks)


def _existing(path: str | Path | None) -> Path | None:
    if path is None or str(path) == "":
        return None
    p = Path(path)
    return p if p.is_file() else None


def set_outputs(
    path: str | Path | None, mapping: Mapping[str, OutputValue], delimiter: Callable[[], str] = random_delimiter
) -> bool:
    """Append the outputs to GITHUB_OUTPUT; False (and nothing written) when not running in Actions."""
    text = format_outputs(mapping, delimiter)  # validate even when there is nowhere to write
    target = _existing(path)
    if target is None:
        return False
    with target.open("a", encoding="utf-8", newline="") as f:
        f.write(text)
    return True


def _closers(kept: str) -> str:
    """What closes the blocks `kept` leaves open: a code fence, then every `<details>` (else the note
    that the summary was cut would be hidden inside a folded block, or shown as code)."""
    out = ""
    fences = _FENCE.findall(kept)
    if len(fences) % 2:
        out += fences[-1] + "\n"
    open_details = len(_DETAILS_OPEN.findall(kept)) - len(_DETAILS_CLOSE.findall(kept))
    if open_details > 0:
        out += "\n" + "</details>\n" * open_details
    return out


def cut_summary(data: bytes, room: int) -> str | None:
    """The longest run of whole lines of `data` (UTF-8 markdown) that fits in `room` bytes together with
    what closes its open blocks and SUMMARY_TRUNCATED; None when not even the note fits."""
    note = len(SUMMARY_TRUNCATED.encode("utf-8"))
    reserve = 0
    while True:
        keep = room - note - reserve
        if keep <= 0:
            return None
        cut = data[:keep].decode("utf-8", "ignore")
        # end on a whole line, so a table row or a fence line is not left half-written
        kept = cut[: cut.rfind("\n") + 1]
        closers = _closers(kept)
        size = len(closers.encode("utf-8"))
        if size <= reserve:
            return kept + closers + SUMMARY_TRUNCATED
        reserve = size  # grows every round (a shorter cut may leave more blocks open), so the loop ends


def append_summary(path: str | Path | None, markdown: str) -> bool:
    """Append markdown to GITHUB_STEP_SUMMARY; False when not running in Actions.

    Past the 1 MiB limit the markdown is cut at a line end, the `<details>` blocks (and a code fence) left open
    are closed, and a note says that the summary was cut (see `cut_summary`)."""
    target = _existing(path)
    if target is None:
        return False
    text = markdown if markdown.endswith("\n") else markdown + "\n"
    room = SUMMARY_LIMIT_BYTES - target.stat().st_size
    data = text.encode("utf-8")
    if len(data) > room:
        cut = cut_summary(data, room)
        if cut is None:
            return False
        text = cut
    with target.open("a", encoding="utf-8", newline="") as f:
        f.write(text)
    return True
