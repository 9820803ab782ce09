"""Structural parser: the declarations of a Dafny file, found from lexer tokens.

Pure code. It reads declarations (methods, lemmas, functions, predicates, constructors and their
Dafny 2/3/4 variants) at top level and inside modules, classes, traits and datatype member blocks,
and records their signatures, specification clauses and body spans. Everything else (datatype
constructors, types, constants, fields, imports, iterators) is skipped by bracket structure.
Statements inside bodies are not parsed: a body is a balanced `{ ... }` span.
"""

from __future__ import annotations

import bisect

from bot.dafny.decls import Clause, DafnyFile, Decl, Param
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, tokenize
from bot.dafny.types import (
    NO_DATATYPES,
    BoolT,
    CtorDecl,
    DafnyType,
    DatatypeDecl,
    Datatypes,
    FieldDecl,
    SynonymDecl,
    TypeTooDeep,
    parse_type,
    type_extent,
)


class DafnyParseError(ValueError):
    """Malformed Dafny: where, what, and what to fix."""

    def __init__(self, path: str, line: int, col: int, message: str, fix: str = "") -> None:
        self.path = path
        self.line = line
        self.col = col
        self.message = message
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        fix = f" ({self.fix})" if self.fix else ""
        return f"{self.path}:{self.line}:{self.col}: {self.message}{fix}"


CLAUSE_KEYWORDS = frozenset({"requires", "ensures", "modifies", "reads", "decreases"})
LOOP_SPEC_KEYWORDS = frozenset({"invariant", "decreases", "modifies"})

# Modifiers that may precede a declaration keyword, in any order.
_MODIFIERS = frozenset({"ghost", "static", "opaque", "abstract", "replaceable", "protected", "private"})
_SIMPLE_CALLABLES = frozenset({"method", "lemma", "constructor", "copredicate", "colemma"})
# `twostate function`, `least predicate`, ...: the first word is contextual, so it needs the second
_PREFIXED_CALLABLES: dict[str, frozenset[str]] = {
    "twostate": frozenset({"function", "predicate", "lemma"}),
    "least": frozenset({"predicate", "lemma"}),
    "greatest": frozenset({"predicate", "lemma"}),
    "inductive": frozenset({"predicate", "lemma"}),
}
_FUNCTION_WORDS = frozenset({"function", "predicate"})
_OTHER_DECL_HEADS = frozenset(
    {
        "module",
        "class",
        "trait",
        "datatype",
        "codatatype",
        "type",
        "newtype",
        "const",
        "var",
        "import",
        "include",
        "export",
        "iterator",
    }
)
# Declaration keywords whose name can hide a constructor of the same name
_SHADOWING_WORDS = frozenset({"function", "predicate", "method", "lemma", "const", "type", "newtype", "codatatype",
                              "class", "trait", "module", "iterator", "copredicate", "colemma"})
# Words after which a `{` opens a set display (or a block inside an expression), never a body.
_WORDS_BEFORE_DISPLAY = frozenset({"in", "then", "else", "multiset", "iset", "set", "returns", "is", "as"})
# Words that open an expression ending in `;` followed by the rest: `var x := 1; x + 1`
_STATEMENT_EXPRESSIONS = frozenset({"var", "assert", "assume", "expect", "reveal"})
_OPENERS = {"(": ")", "[": "]", "{": "}", "{:": "}"}
# Dafny's internal name of an anonymous constructor
ANONYMOUS_CONSTRUCTOR = "_ctor"
# modules, classes and types with members inside each other: far beyond real specs, well within Python's stack
MAX_DECL_NESTING = 64


def parse_file(source: str, path: str = "<input>", included: Datatypes = NO_DATATYPES) -> DafnyFile:
    """All callable declarations of a Dafny source; raises DafnyParseError on malformed structure.
    `included`: the datatypes of the files it includes, which its signatures may name too."""
    parser = _Parser(source, path, included)
    try:
        return parser.parse()
    except RecursionError as e:  # a backstop: the nesting limits stop far earlier
        raise DafnyParseError(path, 1, 1, "nested too deeply to be read", "flatten the nesting") from e


class TokenView:
    """Significant tokens with the lookahead helpers shared by the parser and the dialect rewriter."""

    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.n = len(tokens)

    def text(self, k: int) -> str:
        return self.toks[k].text if 0 <= k < self.n else ""

    def is_word(self, k: int, words: frozenset[str] | str) -> bool:
        """Token k is an identifier-like word in `words` (and not a member access such as `f.reads`)."""
        if not 0 <= k < self.n or self.toks[k].kind is not TokKind.IDENT:
            return False
        text = self.toks[k].text
        hit = text == words if isinstance(words, str) else text in words
        return hit and self.text(k - 1) != "."

    def close(self, k: int) -> int:
        """Index of the bracket closing token k; the bracket pre-check guarantees it exists."""
        j = matching_close(self.toks, k)
        return j if j >= 0 else self.n - 1

    def skip_attributes(self, k: int, stop: int) -> int:
        """Index after `{:attr}` groups and Dafny 4 `@Attr(...)` annotations starting at k."""
        while k < stop:
            if self.text(k) == "{:":
                k = self.close(k) + 1
            elif self.text(k) == "@" and k + 1 < stop and self.toks[k + 1].kind is TokKind.IDENT:
                k += 2
                if self.text(k) == "(" and self.toks[k].start == self.toks[k - 1].end:
                    k = self.close(k) + 1
            else:
                return k
        return k

    def callable_kind(self, k: int) -> tuple[str, int] | None:
        """(kind as written, index after the kind words) when token k starts a callable's keywords."""
        if not self.is_word(k, _SIMPLE_CALLABLES | _FUNCTION_WORDS | frozenset(_PREFIXED_CALLABLES)):
            return None
        word = self.toks[k].text
        if word in _FUNCTION_WORDS:
            if self.is_word(k + 1, "method"):
                return f"{word} method", k + 2
            return word, k + 1
        if word in _SIMPLE_CALLABLES:
            return word, k + 1
        if self.is_word(k + 1, _PREFIXED_CALLABLES[word]):
            return f"{word} {self.toks[k + 1].text}", k + 2
        return None

    def is_decl_head(self, k: int, stop: int) -> bool:
        """Token k is a declaration keyword (not a let-expression's `var`)."""
        if self.callable_kind(k) is not None:
            return True
        if not self.is_word(k, _OTHER_DECL_HEADS):
            return False
        if self.toks[k].text == "var":
            return not self._is_let_var(k, stop)
        return True

    def starts_decl(self, k: int, stop: int) -> bool:
        """A declaration starts at token k: modifiers and attributes, then a declaration keyword."""
        j = k
        while j < stop:
            if self.is_word(j, _MODIFIERS):
                j += 1
            elif self.text(j) in ("{:", "@") and not (self.text(j) == "@" and self.is_word(j - 1, "old")):
                after = self.skip_attributes(j, stop)
                if after == j:
                    return False
                j = after
            else:
                break
        return j < stop and self.is_decl_head(j, stop)

    def _is_let_var(self, k: int, stop: int) -> bool:
        # `var x := e; body` in an expression, against a field `var x: T` (fields have no `:=`)
        j = k + 1
        while j < stop:
            t = self.text(j)
            if t in (":=", ":|"):
                return True
            if t in (";", "}") or (j > k + 1 and self.is_decl_head(j, stop) and t != "var"):
                return False
            if t in ("(", "[", "{:"):
                j = self.close(j)
            elif t == "{":
                return False
            j += 1
        return False

    def expression_end(self, start: int, stop: int, stop_words: frozenset[str]) -> int:
        """Index of the first token after an expression that starts at `start`.

        The expression ends at a `;`, a word of `stop_words` (not after `.`), a declaration start, or
        a `{` that opens a body rather than a set display: a body brace follows a complete operand.
        """
        pending = 0  # `var x := e;`, `assert e;` ... inside the expression: their `;` does not end it
        k = start
        while k < stop:
            t = self.toks[k]
            if t.kind is TokKind.OP:
                if t.text in ("{:", "@") and k > start and self.starts_decl(k, stop):
                    return k
                if t.text == "{":
                    if self._is_body_brace(k, start):
                        return k
                    k = self.close(k) + 1
                    continue
                if t.text in _OPENERS:
                    k = self.close(k) + 1
                    continue
                if t.text == ";" and pending:
                    pending -= 1
                elif t.text in (";", "}", ")", "]"):
                    return k
            elif self.is_word(k, stop_words) or (k > start and self.starts_decl(k, stop)):
                return k
            elif self.is_word(k, _STATEMENT_EXPRESSIONS):
                pending += 1
            k += 1
        return stop

    def _is_body_brace(self, k: int, start: int) -> bool:
        """A `{` after a complete operand opens a body; after an operator it opens a display."""
        if k == start:
            return False
        if self._opens_match(k, start):
            return False
        if self.toks[k - 1].text == "*":
            return k - 1 == start  # `decreases *`, `reads *`, `while *`
        if self.toks[k - 1].text == "|":
            # `|s| {`: the bar closes a cardinality when an operand precedes it, `== |{1}|` opens one
            return k - 1 > start and self.ends_operand(k - 2)
        return self.ends_operand(k - 1)

    def _opens_match(self, k: int, start: int) -> bool:
        """The `{` at k opens the cases of a `match` expression (`ensures n == match c { case A => 0 ... }`): a
        `match` before it at its level, with no braced block between them."""
        depth = 0
        for j in range(k - 1, start - 1, -1):
            text = self.toks[j].text
            if text in (")", "]"):
                depth += 1
            elif text in ("(", "["):
                depth -= 1
                if depth < 0:
                    return False
            elif depth == 0 and text in ("{", "}", "case", "=>"):
                return False  # a block, or cases without braces (`match c case A => 0 {` ends with a body)
            elif depth == 0 and self.toks[j].kind is TokKind.IDENT and text == "match":
                return True
        return False

    def ends_operand(self, k: int) -> bool:
        """Token k can end an operand: a literal, a name, or a closing bracket."""
        t = self.toks[k]
        if t.kind in (TokKind.NUMBER, TokKind.STRING, TokKind.CHAR):
            return True
        if t.kind is TokKind.IDENT:
            return t.text not in _WORDS_BEFORE_DISPLAY
        return t.text in (")", "]", "}", "|")


class _Parser:
    def __init__(self, source: str, path: str, included: Datatypes = NO_DATATYPES) -> None:
        self.included = included
        self.src = source
        self.path = path
        try:
            all_toks = tokenize(source, keep_comments=True)
        except LexError as e:
            raise DafnyParseError(path, e.line, e.col, e.message, "close it or escape it") from e
        self.comments = [t for t in all_toks if t.kind is TokKind.COMMENT]
        self.comment_starts = [c.start for c in self.comments]
        self.v = TokenView([t for t in all_toks if t.kind is not TokKind.COMMENT])
        self.toks = self.v.toks
        self.decls: list[Decl] = []
        self.others: list[Decl] = []  # consts, fields, types, classes, modules (DafnyFile.others)
        self.nesting = 0  # modules, classes and types whose members are being read
        self.datatypes = NO_DATATYPES  # what the signatures' types may name: read before them

    def parse(self) -> DafnyFile:
        self._check_brackets()
        self.datatypes = Datatypes(tuple(self._datatype_decls()) + self.included.decls,
                                   self._other_names() | self.included.shadowed,
                                   synonyms=tuple(self._synonym_decls()) + self.included.synonyms)
        self._members(0, len(self.toks), "")
        return DafnyFile(self.path, self.src, tuple(self.decls), self.datatypes, tuple(self.others))

    # -- datatypes ---------------------------------------------------------------------------

    def _datatype_decls(self) -> list[DatatypeDecl]:
        """Every `datatype` declaration, at any nesting; one the tool cannot read is left out (its uses
        stay unsupported types, and the verifier reports real syntax errors)."""
        out: list[DatatypeDecl] = []
        for k in range(len(self.toks)):
            if self.v.is_word(k, "datatype"):
                try:
                    d = self._datatype(k)
                except (DafnyParseError, IndexError):
                    d = None
                if d is not None:
                    out.append(d)
        return out

    def _synonym_decls(self) -> list[SynonymDecl]:
        """Every type synonym `type Name<T> = Type`, at any nesting. Subset types (`type Pos = x: int | x > 0`),
        abstract types and anything else the tool cannot read are left out: their uses stay unsupported."""
        out: list[SynonymDecl] = []
        v = self.v
        for k in range(len(self.toks)):
            if not v.is_word(k, "type") or (k > 0 and v.text(k - 1) in (".", ":")):
                continue
            j = v.skip_attributes(k + 1, len(self.toks))
            if j >= len(self.toks) or self.toks[j].kind is not TokKind.IDENT:
                continue
            name = self.toks[j].text
            j += 1
            params: list[str] = []
            if v.text(j) == "<":
                end = self._skip_type_params(j)
                for part in self._split(j + 1, end - 1):
                    words = [self.toks[i].text for i in part if self.toks[i].kind is TokKind.IDENT]
                    params.append(words[0] if len(words) == 1 else "")
                j = end
            if v.text(j) != "=" or "" in params:
                continue
            stop = type_extent(self.toks, j + 1)
            if stop is None or stop == j + 1 or v.text(stop) in (":", "|", "witness"):
                continue  # a subset type (`x: int | ...`) or no type
            text = self.src[self.toks[j + 1].start : self.toks[stop - 1].end]
            out.append(SynonymDecl(name, tuple(params), text, self.toks[k].line))
        return out

    def _other_names(self) -> frozenset[str]:
        """The names the file declares as anything but a datatype or a constructor (functions, methods, constants,
        types, modules): where one is also a constructor's name, the bare name means the other declaration."""
        v = self.v
        out: set[str] = set()
        for k in range(len(self.toks)):
            if not v.is_word(k, _SHADOWING_WORDS):
                continue
            j = k + 1
            if self.toks[k].text in ("function", "predicate") and v.is_word(j, "method"):
                j += 1
            j = v.skip_attributes(j, len(self.toks))
            if j < len(self.toks) and self.toks[j].kind is TokKind.IDENT:
                out.add(self.toks[j].text)
        return frozenset(out)

    def _datatype(self, k: int) -> DatatypeDecl | None:
        v = self.v
        stop = len(self.toks)
        j = v.skip_attributes(k + 1, stop)
        if self.toks[j].kind is not TokKind.IDENT:
            return None
        name = self.toks[j].text
        j += 1
        params: list[str] = []
        if v.text(j) == "<":
            end = self._skip_type_params(j)
            for part in self._split(j + 1, end - 1):
                words = [self.toks[i].text for i in part if self.toks[i].kind is TokKind.IDENT]
                if not words:
                    return None
                params.append(words[0])  # `+T`, `T(==)`, `T(0)`: the name comes first
            j = end
        if v.text(j) != "=":
            return None  # an abstract type or a malformed one
        j += 1
        ctors: list[CtorDecl] = []
        while j < stop:
            if v.text(j) == "|":
                j += 1
            j = v.skip_attributes(j, stop)
            if j >= stop or self.toks[j].kind is not TokKind.IDENT or v.starts_decl(j, stop):
                return None
            ctor = self.toks[j].text
            j += 1
            fields: tuple[FieldDecl, ...] = ()
            if v.text(j) == "(":
                close = v.close(j)
                fields = tuple(FieldDecl(p.name, p.type_text) for p in self._params(j + 1, close))
                j = close + 1
            ctors.append(CtorDecl(ctor, fields))
            if v.text(j) != "|":
                break
        if not ctors or len({c.name for c in ctors}) != len(ctors):
            return None
        return DatatypeDecl(name, tuple(params), tuple(ctors), self.toks[k].line)

    def _split(self, k: int, stop: int) -> list[list[int]]:
        """Token indexes k..stop-1 split at top-level commas."""
        parts: list[list[int]] = [[]]
        while k < stop:
            if self.v.text(k) in _OPENERS:
                close = self.v.close(k)
                parts[-1].extend(range(k, close + 1))
                k = close + 1
                continue
            if self.v.text(k) == ",":
                parts.append([])
            else:
                parts[-1].append(k)
            k += 1
        return [p for p in parts if p]

    # -- errors and structure --------------------------------------------------------------

    def _error(self, k: int, message: str, fix: str) -> DafnyParseError:
        if k < len(self.toks):
            t = self.toks[k]
            return DafnyParseError(self.path, t.line, t.col, message, fix)
        lines = self.src.split("\n")
        return DafnyParseError(self.path, len(lines), len(lines[-1]) + 1, message, fix)

    def _check_brackets(self) -> None:
        stack: list[int] = []
        for k, t in enumerate(self.toks):
            if t.kind is not TokKind.OP:
                continue
            if t.text in _OPENERS:
                stack.append(k)
            elif t.text in (")", "]", "}"):
                if not stack:
                    raise self._error(k, f"unmatched '{t.text}'", "remove it or add the bracket it closes")
                opener = self.toks[stack.pop()]
                if _OPENERS[opener.text] != t.text:
                    raise self._error(
                        k,
                        f"'{t.text}' closes '{opener.text}' opened at line {opener.line}",
                        f"balance the brackets between line {opener.line} and line {t.line}",
                    )
        if stack:
            opener = self.toks[stack[-1]]
            closer = _OPENERS[opener.text]
            raise self._error(stack[-1], f"'{opener.text}' is never closed", f"add the missing '{closer}'")

    def _text(self, first: int, last: int) -> str:
        """Source text of tokens first..last inclusive, stripped, without comments (a block comment
        becomes one space), so that the text can be pasted on one line or several."""
        start, end = self.toks[first].start, self.toks[last].end
        k = bisect.bisect_left(self.comment_starts, start)
        out: list[str] = []
        at = start
        while k < len(self.comments) and self.comments[k].start < end:
            c = self.comments[k]
            out.append(self.src[at : c.start])
            out.append(" " if c.text.startswith("/*") else "")
            at = c.end
            k += 1
        out.append(self.src[at:end])
        return "".join(out).strip()

    # -- declarations -----------------------------------------------------------------------

    def _members(self, k: int, stop: int, container: str) -> None:
        if self.nesting > MAX_DECL_NESTING:
            raise self._error(
                k - 1,
                f"declarations nested more than {MAX_DECL_NESTING} levels deep",
                "flatten the modules and classes",
            )
        self.nesting += 1
        try:
            while k < stop:
                k = self._member(k, stop, container)
        finally:
            self.nesting -= 1

    def _member(self, k: int, stop: int, container: str) -> int:
        v = self.v
        start = k
        ghost = False
        while k < stop:
            if v.is_word(k, _MODIFIERS):
                ghost = ghost or self.toks[k].text == "ghost"
                k += 1
                continue
            after = v.skip_attributes(k, stop)
            if after == k:
                break
            k = after
        if k >= stop:
            if k > start:
                raise self._error(
                    start,
                    "modifiers or attributes without a declaration",
                    "finish the declaration or remove them",
                )
            return stop
        kind = v.callable_kind(k)
        if kind is not None:
            return self._callable(start, k, kind[0], kind[1], ghost, stop, container)
        word = self.toks[k].text if self.toks[k].kind is TokKind.IDENT else ""
        if word == "module":
            return self._module(start, k, stop, container)
        if word in ("class", "trait"):
            return self._class(start, k, stop, container)
        if word in ("datatype", "codatatype", "type", "newtype"):
            return self._type_with_members(start, k, stop, container)
        if word:  # constants, fields, imports, iterators: skip to the next declaration
            end = self._skip(k + 1, stop)
            if word in ("const", "var"):
                self._other(start, k, end - 1, end - 1, container, ghost)
            return end
        # a stray token: tolerated, like the verifier would report it, not our job
        if self.toks[k].text in _OPENERS:
            return self.v.close(k) + 1
        return k + 1 if self.toks[k].text == ";" else self._skip(k + 1, stop)

    def _skip(self, k: int, stop: int) -> int:
        v = self.v
        while k < stop:
            t = self.toks[k].text
            if v.starts_decl(k, stop):
                return k
            if t in _OPENERS:
                k = v.close(k) + 1
                continue
            if t == ";":
                return k + 1
            k += 1
        return stop

    def _name(self, k: int, what: str) -> tuple[str, int]:
        """A (possibly dotted) declaration name at k after attributes."""
        k = self.v.skip_attributes(k, len(self.toks))
        if k >= len(self.toks) or self.toks[k].kind is not TokKind.IDENT or self.v.starts_decl(k, len(self.toks)):
            raise self._error(
                k if k < len(self.toks) else k - 1,
                f"{what} without a name",
                f"write the {what}'s name after the keyword",
            )
        parts = [self.toks[k].text]
        k += 1
        while self.v.text(k) == "." and k + 1 < len(self.toks) and self.toks[k + 1].kind is TokKind.IDENT:
            parts.append(self.toks[k + 1].text)
            k += 2
        return ".".join(parts), k

    def _block_after(self, k: int, stop: int) -> int | None:
        """Index of the first plain `{` before the next `;` or declaration, skipping other brackets."""
        v = self.v
        while k < stop:
            t = self.toks[k].text
            if t == "{":
                return k
            if t in _OPENERS:
                k = v.close(k) + 1
                continue
            if t == ";" or v.starts_decl(k, stop):
                return None
            k += 1
        return None

    def _other(self, start: int, kw: int, header_last: int, last: int, container: str, ghost: bool = False) -> None:
        """Records a declaration that is not a callable (DafnyFile.others): its header runs to token
        `header_last`, the whole to token `last` (a class's or module's closing brace)."""
        try:
            name = self._name(kw + 1, self.toks[kw].text)[0]
        except DafnyParseError:
            return  # `var` or `const` without a name: the verifier says more
        last = max(last, kw)
        header_last = max(min(header_last, last), kw)
        self.others.append(Decl(
            kind=self.toks[kw].text, name=name, ghost=ghost, params=(), returns=(), clauses=(),
            start=self.toks[start].start, header_end=self.toks[header_last].end, body=None,
            end=self.toks[last].end, line=self.toks[kw].line, end_line=self.toks[last].line, container=container))

    def _module(self, start: int, k: int, stop: int, container: str) -> int:
        name, j = self._name(k + 1, "module")
        brace = self._block_after(j, stop)
        if brace is None:
            return self._skip(j, stop)
        close = self.v.close(brace)
        self._other(start, k, brace, close, container)
        self._members(brace + 1, close, _nest(container, f"module {name}"))
        return close + 1

    def _class(self, start: int, k: int, stop: int, container: str) -> int:
        word = self.toks[k].text
        name, j = self._name(k + 1, word)
        brace = self._block_after(j, stop)
        if brace is None:
            raise self._error(k, f"{word} {name} has no body", "add '{ }' after its header")
        close = self.v.close(brace)
        self._other(start, k, brace, close, container)
        self._members(brace + 1, close, _nest(container, f"{word} {name}"))
        return close + 1

    def _type_with_members(self, start: int, k: int, stop: int, container: str) -> int:
        """A datatype, type or newtype, with its optional member block `{ ... }` after the definition."""
        word = self.toks[k].text
        name, j = self._name(k + 1, word)
        v = self.v
        # datatype constructors have no braces outside parentheses, so their first plain `{` opens
        # the members; a subset type's constraint may hold a set display: `x in {1, 2}`
        datatype = word in ("datatype", "codatatype")
        while j < stop:
            t = self.toks[j].text
            if t == "{" and (datatype or v.ends_operand(j - 1)):
                close = v.close(j)
                self._other(start, k, j, close, container)
                self._members(j + 1, close, _nest(container, f"{word} {name}"))
                return close + 1
            if v.starts_decl(j, stop):
                self._other(start, k, j - 1, j - 1, container)
                return j
            if t in _OPENERS:
                j = v.close(j) + 1
                continue
            if t == ";":
                self._other(start, k, j, j, container)
                return j + 1
            j += 1
        self._other(start, k, stop - 1, stop - 1, container)
        return stop

    def _callable(self, start: int, kw: int, kind: str, k: int, ghost: bool, stop: int, container: str) -> int:
        v = self.v
        n = len(self.toks)
        words = set(kind.split())
        is_function = bool(words & {"function", "predicate", "copredicate"})
        is_predicate = bool(words & {"predicate", "copredicate"})
        after_attrs = v.skip_attributes(k, n)
        if kind == "constructor" and v.text(after_attrs) in ("(", "<"):
            name, k = ANONYMOUS_CONSTRUCTOR, after_attrs
        else:
            name, k = self._name(k, kind)
        generic = v.text(k) == "<"
        if generic:
            k = self._skip_type_params(k)
        if v.text(k) == "[":  # `least predicate P[nat](...)`
            k = v.close(k) + 1
        if v.text(k) != "(":
            raise self._error(
                min(k, n - 1),
                f"{kind} {name}: '(' expected after the name",
                "add the parameter list, e.g. '()'",
            )
        close = v.close(k)
        params = self._params(k + 1, close)
        sig_end = close
        k = close + 1
        returns: tuple[Param, ...] = ()
        if is_function:
            if v.text(k) == ":":
                returns, sig_end = self._result(k + 1, stop, kind, name)
                k = sig_end + 1
            elif is_predicate:
                returns = (Param("", "bool", BoolT()),)
        elif v.is_word(k, "returns"):
            if v.text(k + 1) != "(":
                raise self._error(
                    k,
                    f"{kind} {name}: '(' expected after 'returns'",
                    "write the out-parameters as 'returns (r: T)'",
                )
            close = v.close(k + 1)
            returns = self._params(k + 2, close)
            sig_end = close
            k = close + 1
        clauses: list[Clause] = []
        while k < stop and v.is_word(k, CLAUSE_KEYWORDS):
            clause, k = self._clause(k, stop, kind, name)
            clauses.append(clause)
        header_end = clauses[-1].end if clauses else self.toks[sig_end].end
        body: tuple[int, int] | None = None
        last = k - 1
        if k < stop and v.text(k) == "{":
            close = v.close(k)
            body = (self.toks[k].start, self.toks[close].end)
            last = close
            k = close + 1
            if is_function and v.is_word(k, "by") and v.is_word(k + 1, "method") and v.text(k + 2) == "{":
                last = v.close(k + 2)
                k = last + 1
        self.decls.append(
            Decl(
                kind=kind,
                name=name,
                ghost=ghost,
                params=params,
                returns=returns,
                clauses=tuple(clauses),
                start=self.toks[start].start,
                header_end=header_end,
                body=body,
                end=self.toks[last].end,
                line=self.toks[kw].line,
                end_line=self.toks[last].line,
                container=container,
                generic=generic,
            )
        )
        return k

    def _skip_type_params(self, k: int) -> int:
        depth = 0
        while k < len(self.toks):
            t = self.toks[k].text
            if t == "(":
                k = self.v.close(k) + 1
                continue
            depth += {"<": 1, ">": -1, ">>": -2}.get(t, 0)
            k += 1
            if depth <= 0:
                return k
        raise self._error(k - 1, "unclosed type parameter list", "add the missing '>'")

    def _params(self, k: int, close: int) -> tuple[Param, ...]:
        v = self.v
        params: list[Param] = []
        while k < close:
            while v.is_word(k, frozenset({"ghost", "nameonly", "older", "new"})) and k + 1 < close:
                k += 1
            k = v.skip_attributes(k, close)
            name = ""
            # a datatype field may be named by digits: `Pair(0: int, 1: bool)`
            if self.toks[k].kind in (TokKind.IDENT, TokKind.NUMBER) and v.text(k + 1) == ":":
                name = self.toks[k].text
                k += 2
            type_start = k
            depth = 0
            while k < close:
                t = self.toks[k].text
                if t in _OPENERS:
                    k = v.close(k) + 1
                    continue
                depth += {"<": 1, ">": -1, ">>": -2}.get(t, 0)
                if depth <= 0 and t in (",", ":="):
                    break
                k += 1
            if k == type_start:
                raise self._error(k, f"parameter {name or '?'} has no type", "write it as 'name: type'")
            type_text = self._text(type_start, k - 1)
            if v.text(k) == ":=":  # default value: skip the expression
                k += 1
                while k < close and v.text(k) != ",":
                    k = v.close(k) + 1 if v.text(k) in _OPENERS else k + 1
            params.append(Param(name, type_text, self._type(type_start, type_text)))
            if v.text(k) == ",":
                k += 1
        return tuple(params)

    def _result(self, k: int, stop: int, kind: str, name: str) -> tuple[tuple[Param, ...], int]:
        """A function's result after ':': `T` or a named `(r: T)`; returns it and its last index."""
        v = self.v
        if v.text(k) == "(" and self.toks[k + 1].kind is TokKind.IDENT and v.text(k + 2) == ":":
            close = v.close(k)
            named = self._params(k + 1, close)
            if len(named) != 1:
                raise self._error(
                    k,
                    f"{kind} {name}: a named result must be one '(name: type)'",
                    "write the result as '(r: T)'",
                )
            return (Param("", named[0].type_text, named[0].type),), close
        j = k
        while j < stop:
            t = self.toks[j].text
            if t in ("(", "["):
                j = v.close(j) + 1
                continue
            if t in ("{", "{:", ";", "}") or v.is_word(j, CLAUSE_KEYWORDS) or v.starts_decl(j, stop):
                break
            j += 1
        if j == k:
            raise self._error(k, f"{kind} {name}: result type expected after ':'", "write the result type")
        type_text = self._text(k, j - 1)
        return (Param("", type_text, self._type(k, type_text)),), j - 1

    def _type(self, k: int, text: str) -> DafnyType:
        """parse_type of the type text starting at token k; a type nested too deeply is an error there."""
        try:
            return parse_type(text, self.datatypes)
        except TypeTooDeep as e:
            raise self._error(k, str(e), "flatten the type") from e

    def _clause(self, k: int, stop: int, kind: str, name: str) -> tuple[Clause, int]:
        v = self.v
        kw = self.toks[k]
        j = v.skip_attributes(k + 1, stop)
        # labelled clause `requires L: e` (Dafny 3+): the label is not part of the expression
        if j + 1 < stop and self.toks[j].kind is TokKind.IDENT and v.text(j + 1) == ":":
            j += 2
        end = v.expression_end(j, stop, CLAUSE_KEYWORDS)
        if end == j:
            raise self._error(
                k,
                f"{kind} {name}: '{kw.text}' without an expression",
                f"write the {kw.text} expression or remove the keyword",
            )
        text = self._text(j, end - 1)
        clause_end = self.toks[end - 1].end
        if end < stop and v.text(end) == ";":
            clause_end = self.toks[end].end
            end += 1
        return Clause(kw.text, text, kw.line, kw.start, clause_end), end


def _nest(container: str, part: str) -> str:
    return f"{container}.{part}" if container else part
