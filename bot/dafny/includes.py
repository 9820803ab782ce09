"""`include "path"` directives: found from tokens, followed only inside a root folder, never left to the verifier.

A spec may `include` helper files. Generated programs are verified in a temporary folder, and Dafny follows
an include wherever it points (an absolute path outside the repository included), so the directive never
reaches the verifier: the tool reads the included files itself, and only those that resolve (after
symlinks) inside the root it is given, and inlines their declarations (bot.symbolic.harness.programs.make_prelude).

Reading is the only I/O here; finding the directives is pure.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.dafny.decls import DafnyFile
from bot.dafny.lexer import LexError, TokKind, significant, tokenize
from bot.dafny.parser import DafnyParseError, parse_file

MAX_INCLUDED_FILES = 100  # files one spec may pull in, directly or not
MAX_INCLUDE_BYTES = 1_000_000  # size of one included file

NO_ROOT = "include directives are not followed here (no include root was given)"
OUTSIDE_ROOT = "it leads outside {root} (only files inside it are read)"
NOT_FOUND = "no such file: {path}"
NOT_A_FILE = "not a regular file: {path}"
TOO_LARGE = "{path} is larger than {limit} bytes"
TOO_MANY = "more than {limit} files are included"
NOT_A_STRING = "`include` must be followed by a string literal (the path)"
ESCAPES = "escape sequences in include paths are not supported"


class IncludeError(ValueError):
    """An include directive the tool will not or cannot follow: where it is, and why."""

    def __init__(self, where: str, line: int, directive: str, reason: str, chain: Sequence[str] = ()) -> None:
        self.where = where
        self.line = line
        self.directive = directive
        self.reason = reason
        self.chain = tuple(chain)  # `file:line` of the includes that led to `where`, outermost first
        super().__init__(str(self))

    def __str__(self) -> str:
        via = f" (included from {' <- '.join(reversed(self.chain))})" if self.chain else ""
        return f"{self.where}:{self.line}: {self.directive}: {self.reason}{via}"


@dataclass(frozen=True)
class Include:
    """One directive: the path as written, and the span to blank out (`include`, the string, a `;`)."""

    path: str
    line: int
    start: int
    end: int

    @property
    def directive(self) -> str:
        return f'include "{self.path}"'


def find_includes(source: str, where: str = "<input>") -> list[Include]:
    """Every `include` directive of a Dafny source (`include` is a reserved word: every occurrence is one).

    Raises IncludeError on an `include` without a string literal or with escapes in it, and on text the
    lexer cannot split."""
    try:
        toks = significant(tokenize(source))
    except LexError as e:
        raise IncludeError(where, e.line, "include", f"cannot read the file: {e.message}") from e
    found: list[Include] = []
    for k, t in enumerate(toks):
        if t.kind is not TokKind.IDENT or t.text != "include":
            continue
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if nxt is None or nxt.kind is not TokKind.STRING:
            raise IncludeError(where, t.line, "include", NOT_A_STRING)
        if nxt.text.startswith("@"):
            path = nxt.text[2:-1].replace('""', '"')
        else:
            path = nxt.text[1:-1]
            if "\\" in path:
                raise IncludeError(where, t.line, f"include {nxt.text}", ESCAPES)
        end = nxt.end
        if k + 2 < len(toks) and toks[k + 2].text == ";":
            end = toks[k + 2].end
        found.append(Include(path, t.line, t.start, end))
    return found


def blank(source: str, spans: Sequence[tuple[int, int]]) -> str:
    """`source` with each span replaced by spaces, its newlines kept (line numbers do not move)."""
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:
            continue
        out.append(source[pos:start])
        out.append("".join(c if c == "\n" else " " for c in source[start:end]))
        pos = end
    out.append(source[pos:])
    return "".join(out)


def included_files(file: DafnyFile, root: Path | None, spec_path: Path | None = None) -> list[DafnyFile]:
    """The files `file` includes, directly or through other included files: each once, in the order first
    met (depth first), the spec itself never (an include cycle ends there).

    A path is relative to the directory of the file holding the directive, as Dafny reads it (for the
    spec: `spec_path`, by default `Path(file.path)` from the current directory). A file is read only when
    it resolves, symlinks followed, inside `root`; anything else (no root, outside the root, missing, not
    a regular file, unreadable, not parsed, too large, too many files) raises IncludeError naming the file
    and line of the directive. Included files are named by their path relative to the root (in messages
    and in `DafnyFile.path`)."""
    own = find_includes(file.source, file.path)
    if not own:
        return []
    if root is None:
        raise IncludeError(file.path, own[0].line, own[0].directive, NO_ROOT)
    spec = Path(os.path.abspath(spec_path if spec_path is not None else file.path))
    walk = _Walk(root, root.resolve(), {spec.resolve()}, [])
    walk.follow(file, spec.parent, own, ())
    return walk.found


@dataclass
class _Walk:
    root: Path  # as given, for messages
    top: Path  # resolved
    seen: set[Path]  # resolved paths of the spec and every file read
    found: list[DafnyFile]

    def follow(self, holder: DafnyFile, directory: Path, includes: Sequence[Include], chain: tuple[str, ...]) -> None:
        for inc in includes:
            written = Path(os.path.normpath(directory / inc.path))  # what Dafny would open
            target = written.resolve()
            if target in self.seen and target.is_relative_to(self.top):
                continue
            parsed = self._read(holder, inc, target, chain)
            inner = (*chain, f"{holder.path}:{inc.line}")
            try:
                nested = find_includes(parsed.source, parsed.path)
            except IncludeError as e:
                raise IncludeError(e.where, e.line, e.directive, e.reason, inner) from e
            self.follow(parsed, written.parent, nested, inner)

    def _read(self, holder: DafnyFile, inc: Include, target: Path, chain: tuple[str, ...]) -> DafnyFile:
        def fail(reason: str) -> IncludeError:
            return IncludeError(holder.path, inc.line, inc.directive, reason, chain)

        if not target.is_relative_to(self.top):
            raise fail(OUTSIDE_ROOT.format(root=self.root))
        shown = str(target.relative_to(self.top))
        if not target.exists():
            raise fail(NOT_FOUND.format(path=shown))
        if not target.is_file():
            raise fail(NOT_A_FILE.format(path=shown))
        if len(self.found) >= MAX_INCLUDED_FILES:
            raise fail(TOO_MANY.format(limit=MAX_INCLUDED_FILES))
        try:
            if target.stat().st_size > MAX_INCLUDE_BYTES:
                raise fail(TOO_LARGE.format(path=shown, limit=MAX_INCLUDE_BYTES))
            source = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise fail(f"cannot read {shown}: {e}") from e
        try:
            parsed = parse_file(source, shown)
        except DafnyParseError as e:
            raise fail(f"{shown} does not parse: {e}") from e
        self.seen.add(target)
        self.found.append(parsed)
        return parsed
