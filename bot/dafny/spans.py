"""Where a method's `ensures` clauses sit in its file: the lines a review comment, a link or a code-scanning
result points at, and the text a suggested edit of them starts from. Pure code."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile
from bot.dafny.parser import DafnyParseError, parse_file

_WORD = re.compile(r"[A-Za-z_][\w']*")


@dataclass(frozen=True)
class ClauseSpan:
    text: str  # the expression after `ensures`, as written
    first: int  # 1-based line of the keyword
    last: int  # 1-based line the clause ends on


@dataclass(frozen=True)
class EnsuresSpan:
    """A method's `ensures` clauses, in order, and the source lines from the first one to the last."""

    method: str
    line: int  # the declaration's line
    clauses: tuple[ClauseSpan, ...]
    outputs: tuple[str, ...]  # the method's out-parameters
    spec_last: int  # the line the last specification clause (of any kind) ends on
    lines: tuple[str, ...]  # source lines from `first` to `spec_last` (empty without `ensures` clauses)
    # nothing but blanks or a `//` comment follows the specification on line `spec_last` (no `{`, no body):
    # a clause can go on a line of its own after it
    ends_line: bool = True

    @property
    def first(self) -> int:
        return self.clauses[0].first if self.clauses else self.line

    @property
    def last(self) -> int:
        return self.clauses[-1].last if self.clauses else self.line

    def text(self, first: int, last: int) -> tuple[str, ...]:
        """Source lines first..last, when all of them lie between `first` and `spec_last`; else ()."""
        if not self.clauses or not self.first <= first <= last <= self.spec_last:
            return ()
        return self.lines[first - self.first: last - self.first + 1]

    def rejecting(self, clause: str) -> ClauseSpan | None:
        """The clause whose text is (or contains: a conjunct the engine split off) `clause`."""
        wanted = _squash(clause)
        if not wanted:
            return None
        exact = [c for c in self.clauses if _squash(c.text) == wanted]
        found = exact or [c for c in self.clauses if wanted in _squash(c.text)]
        return found[0] if found else None

    def weak(self) -> ClauseSpan | None:
        """The first clause that names an output (the one a stronger clause would go beside); else the first."""
        about = [c for c in self.clauses if set(self.outputs) & set(_WORD.findall(c.text))]
        found = about or list(self.clauses)
        return found[0] if found else None


def _squash(text: str) -> str:
    return "".join(text.split()).rstrip(";")


def spans_of(parsed: DafnyFile, source: str) -> dict[str, EnsuresSpan]:
    """Every method's span, by name (as written, and as `Scope.name` for methods in modules or classes)."""
    rows = source.split("\n")
    out: dict[str, EnsuresSpan] = {}
    plain: dict[str, EnsuresSpan] = {}
    for d in parsed.methods():
        every = [ClauseSpan(c.text, c.line, parsed.end_line(c)) for c in d.clauses]
        clauses = tuple(s for s, c in zip(every, d.clauses, strict=True) if c.kind == "ensures")
        spec_last = max((s.last for s in every), default=d.line)
        eol = source.find("\n", d.header_end)
        tail = source[d.header_end: len(source) if eol < 0 else eol].strip()
        span = EnsuresSpan(d.name, d.line, clauses, tuple(p.name for p in d.returns), spec_last,
                           tuple(rows[clauses[0].first - 1: spec_last]) if clauses else (),
                           not tail or tail.startswith("//"))
        out[d.qualified] = span
        plain.setdefault(d.name, span)
    # a plain name also finds a method in a module or class, unless a method is known by it (`Add` is the
    # top-level `Add`, even after a class's `A.Add`)
    return {**plain, **out}


def ensures_spans(source: str, path: str) -> dict[str, EnsuresSpan]:
    """`spans_of` a file's text; {} when it does not parse (the callers then point at the method's line)."""
    try:
        return spans_of(parse_file(source, path), source)
    except (DafnyParseError, ValueError, RecursionError):
        return {}
