"""Statements of test code: splitting, variable substitution and pairing calls with expectations.

Pure code, shared by the `.dfy` test-method reader and the MBPP JSON reader. Test code is a flat list
of statements (`var a1 := new int[] [1, 2];`, `var r := M(a1);`, `assert r == 5;`) plus comments that
carry expectations (`//expected [4, 5]`, `//assert r == 5;`). Only `parse_statements` raises (on text
that does not even lex); otherwise what cannot be read becomes a `CallProblem` saying where and why.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from bot.dafny.decls import Decl
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, tokenize
from bot.dafny.types import ArrayT, DafnyType, SeqT, StringT
from bot.dafny.values import ArrayV, SeqV, Value, ValueParseError, parse_value


class StmtKind(Enum):
    VAR = "var"  # var x := E;  var x: T := E;  var r1, r2 := M(..);
    ASSIGN = "assign"  # x := E;
    CALL = "call"  # M(args);
    ASSERT = "assert"
    EXPECT = "expect"
    PRINT = "print"
    EXPECTED_COMMENT = "expected comment"  # //expected [4, 5]
    OTHER = "other"


@dataclass(frozen=True)
class Call:
    name: str  # the method name (the last part of a qualified name)
    args: tuple[str, ...]  # argument texts as written
    qualifier: str = ""  # what stands before the name: `A.B` in `A.B.Add(..)`, "" for `Add(..)`


@dataclass(frozen=True)
class Stmt:
    kind: StmtKind
    line: int
    end_line: int
    text: str  # as written
    targets: tuple[str, ...] = ()  # variables a VAR or ASSIGN defines
    expr: str = ""  # right-hand side, condition, or the value text of an expected comment
    call: Call | None = None  # when the statement is, or assigns, exactly one call
    commented: bool = False  # read from a `//` comment
    problem: str = ""  # why the statement is malformed (e.g. a missing `;`)


# Keywords that start a statement: seeing one in the middle of a statement means a `;` is missing.
_STARTERS = frozenset({"var", "assert", "expect", "print"})
# Identifiers a literal may contain besides variables.
_LITERAL_WORDS = frozenset(
    {"true", "false", "new", "null", "as", "int", "nat", "bool", "char", "real", "string", "seq", "array"}
)
# Statements whose `{` opens a block rather than a set display.
_BLOCK_HEADS = frozenset({"if", "else", "while", "for", "forall", "match", "case", "calc", "label"})
_BV = re.compile(r"bv\d+\Z")
_MAX_SHOWN = 60
_MISSING_SEMICOLON = "missing `;`"
# Operators binding more weakly than `==`: a condition using one is no plain equality.
_WEAKER_THAN_EQ = ("||", "==>", "<==", "<==>")


def _short(text: str) -> str:
    """Text for a message: one line, at most _MAX_SHOWN characters."""
    one = " ".join(text.split())
    return one if len(one) <= _MAX_SHOWN else one[: _MAX_SHOWN - 3] + "..."


def is_equality_helper(name: str) -> bool:
    """`arrayEquals`, `assertArrayEquals`, `sequenceEquals`...: tests call them to compare two values."""
    return name.lower().endswith("equals")


# ---------------------------------------------------------------------------------------------------
# splitting


def parse_statements(text: str) -> list[Stmt]:
    """The statements of a piece of test code; raises LexError (with line and column) on broken text."""
    return split_statements(tokenize(text, keep_comments=True), text)


def split_statements(tokens: Sequence[Token], source: str) -> list[Stmt]:
    """Split tokens (of `source`, comments kept) into statements; blocks are flattened."""
    out: list[Stmt] = []
    cur: list[Token] = []
    opened: list[Token] = []  # brackets open in the current statement

    def flush(problem: str = "") -> None:
        if cur:
            out.append(_statement(cur, source, problem=problem))
            cur.clear()
        opened.clear()

    for tok in tokens:
        if tok.kind is TokKind.COMMENT:
            stmt = _comment_statement(tok)
            if stmt is not None:
                out.append(stmt)
            continue
        if tok.kind is TokKind.OP and tok.text == ";" and opened and opened[-1].text in ("(", "["):
            # no test statement has a `;` inside parentheses or brackets: one was never closed
            flush(f"`{opened[-1].text}` at line {opened[-1].line} is not closed")
            continue
        if tok.kind is TokKind.OP and not opened:
            if tok.text == ";":
                flush()
                continue
            if tok.text == "{" and (not cur or cur[0].text in _BLOCK_HEADS):
                # a block such as `if c { .. }`: its header is no test statement, its body is read
                cur.clear()
                continue
            if tok.text == "}":
                flush(_MISSING_SEMICOLON)
                continue
        if tok.kind is TokKind.IDENT and not opened and tok.text in _STARTERS and cur:
            flush(_MISSING_SEMICOLON)
        if tok.kind is TokKind.OP:
            if tok.text in ("(", "[", "{", "{:"):
                opened.append(tok)
            elif tok.text in (")", "]", "}") and opened:
                opened.pop()
        cur.append(tok)
    flush(f"`{opened[-1].text}` at line {opened[-1].line} is not closed" if opened else _MISSING_SEMICOLON)
    return out


def _statement(toks: Sequence[Token], source: str, problem: str = "", commented: bool = False) -> Stmt:
    first, last = toks[0], toks[-1]
    text = source[first.start : last.end]
    if problem == _MISSING_SEMICOLON:
        problem = f"`{_short(text)}` has no `;` at its end"
    elif problem:
        problem = f"`{_short(text)}`: {problem}"
    base = Stmt(
        kind=StmtKind.OTHER,
        line=first.line,
        end_line=last.line,
        text=text,
        commented=commented,
        problem=problem,
    )
    head = first.text if first.kind is TokKind.IDENT else ""
    if head == "var":
        return _var_or_assign(StmtKind.VAR, toks[1:], source, base)
    if head in ("assert", "expect"):
        rest = list(toks[1:])
        # `assert {:attr} E`: drop attributes
        while rest and rest[0].text == "{:":
            close = matching_close(rest, 0)
            rest = rest[close + 1 :] if close >= 0 else []
        if head == "expect":
            comma = _top_level_index(rest, ",")
            if comma >= 0:
                rest = rest[:comma]  # the message
        kind = StmtKind.ASSERT if head == "assert" else StmtKind.EXPECT
        return replace(base, kind=kind, expr=_slice(rest, source))
    if head == "print":
        return replace(base, kind=StmtKind.PRINT)
    if _top_level_index(toks, ":=") >= 0:
        return _var_or_assign(StmtKind.ASSIGN, toks, source, base)
    call = _call_of(toks, source)
    if call is not None:
        return replace(base, kind=StmtKind.CALL, call=call, expr=text)
    return base


def _var_or_assign(kind: StmtKind, toks: Sequence[Token], source: str, base: Stmt) -> Stmt:
    at = _top_level_index(toks, ":=")
    lhs = toks if at < 0 else toks[:at]
    rhs = [] if at < 0 else toks[at + 1 :]
    names: list[str] = []
    for part in split_top(lhs, ",", angle=True):
        # `x` or `x: T` (a VAR); an ASSIGN to `a[i]` or `o.f` is no test statement
        if not part or part[0].kind is not TokKind.IDENT:
            return base
        if len(part) > 1 and not (kind is StmtKind.VAR and part[1].text == ":"):
            return base
        names.append(part[0].text)
    return replace(
        base, kind=kind, targets=tuple(names), expr=_slice(rhs, source), call=_call_of(rhs, source)
    )


def _comment_statement(tok: Token) -> Stmt | None:
    """A `//` comment that states an expectation, as a statement; None for any other comment."""
    if not tok.text.startswith("//"):
        return None
    content = tok.text[2:].strip()
    m = re.match(r"[A-Za-z]+", content)
    if m is None:
        return None
    word = m.group(0)
    if word in ("assert", "expect"):
        return _commented_code(content, tok)
    if not word.lower().startswith("expe"):
        return None
    # `expected`, and the misspellings tests contain (`expeced`)
    rest = content[len(word) :].strip()
    rest = re.sub(r"\A(?:output|result|value)?\s*[:=]?(?!=)\s*", "", rest).strip()
    rest = rest.rstrip(";").strip()
    if not rest:
        return None
    if _has_top_level(rest, "=="):
        return _commented_code("assert " + rest, tok)
    return Stmt(
        kind=StmtKind.EXPECTED_COMMENT,
        line=tok.line,
        end_line=tok.line,
        text=tok.text,
        expr=rest,
        commented=True,
    )


def _commented_code(content: str, tok: Token) -> Stmt | None:
    try:
        toks = [t for t in tokenize(content) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    # comments are not compiled: a missing `;` is no problem there
    end = _top_level_index(toks, ";")
    if end >= 0:
        toks = toks[:end]
    if len(toks) < 2:
        return None
    # positions from the comment's own text; lines from the comment
    fixed = [Token(t.kind, t.text, t.start, t.end, tok.line, t.col) for t in toks]
    return replace(_statement(fixed, content, commented=True), text=tok.text)


# ---------------------------------------------------------------------------------------------------
# token helpers


def _slice(toks: Sequence[Token], source: str) -> str:
    return source[toks[0].start : toks[-1].end] if toks else ""


def split_top(toks: Sequence[Token], sep: str, angle: bool = False) -> list[list[Token]]:
    """Split at `sep` outside brackets (and outside `<..>` when angle, for types)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind is TokKind.OP:
            if t.text in ("(", "[", "{", "{:") or (angle and t.text == "<"):
                depth += 1
            elif t.text in (")", "]", "}") or (angle and t.text == ">"):
                depth -= 1
            elif angle and t.text == ">>":
                depth -= 2
            elif t.text == sep and depth == 0:
                parts.append([])
                continue
        parts[-1].append(t)
    return parts


def _top_level_index(toks: Sequence[Token], op: str) -> int:
    depth = 0
    for k, t in enumerate(toks):
        if t.kind is not TokKind.OP:
            continue
        if t.text in ("(", "[", "{", "{:"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif t.text == op and depth == 0:
            return k
    return -1


def _has_top_level(text: str, op: str) -> bool:
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return False
    return _top_level_index(toks, op) >= 0


def _call_of(toks: Sequence[Token], source: str) -> Call | None:
    """`M(a, b)` or `X.M(a, b)` spanning exactly toks."""
    k = 0
    while k + 1 < len(toks) and toks[k].kind is TokKind.IDENT and toks[k + 1].text == ".":
        k += 2
    if k + 1 >= len(toks) or toks[k].kind is not TokKind.IDENT or toks[k + 1].text != "(":
        return None
    if toks[k].text in _LITERAL_WORDS:
        return None
    close = matching_close(list(toks), k + 1)
    if close != len(toks) - 1:
        return None
    inner = toks[k + 2 : close]
    args = tuple(_slice(p, source) for p in split_top(inner, ",")) if inner else ()
    return Call(toks[k].text, args, ".".join(t.text for t in toks[:k:2]))


def _strip_parens(toks: list[Token]) -> list[Token]:
    while len(toks) >= 2 and toks[0].text == "(" and matching_close(toks, 0) == len(toks) - 1:
        toks = toks[1:-1]
    return toks


# ---------------------------------------------------------------------------------------------------
# values


class EvalError(ValueError):
    """An expression that is not (or does not denote) a literal value; the message says why."""


@dataclass(frozen=True)
class Binding:
    """What a test variable holds: literal text with variables already substituted, or why not."""

    text: str
    lines: frozenset[int]  # source lines of the definitions the text comes from
    error: str = ""


def parse_at(text: str, t: DafnyType) -> Value:
    """parse_value, also taking an array literal where a sequence is wanted (data sets mix the two)."""
    try:
        return parse_value(text, t)
    except ValueParseError as first:
        if isinstance(t, SeqT | StringT):
            elems = array_elements_text(text)
            if elems is not None:
                try:
                    return parse_value(elems, t)
                except ValueParseError:
                    pass
        raise first


def as_array(v: Value) -> Value:
    """A sequence value given for an array becomes an array value."""
    return ArrayV(v.elems) if isinstance(v, SeqV) else v


def array_elements_text(text: str) -> str | None:
    """`[1, 2]` from `new int[] [1, 2]` (or from `new int[2][1, 2]`); None for other text."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    if not toks or toks[0].text != "new":
        return None
    k = 1
    while k < len(toks) and toks[k].text != "[":
        k += 1
    if k >= len(toks):
        return None
    size_close = matching_close(toks, k)
    if size_close < 0 or size_close + 1 >= len(toks) or toks[size_close + 1].text != "[":
        return None
    close = matching_close(toks, size_close + 1)
    if close != len(toks) - 1:
        return None
    return text[toks[size_close + 1].start : toks[close].end]


def substitute(text: str, env: Mapping[str, Binding]) -> tuple[str, frozenset[int]]:
    """text with each variable replaced by its literal text (`a[..]` of an array by its elements).

    Raises EvalError naming the first thing that is not a literal.
    """
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError as e:
        raise EvalError(f"malformed text ({e.message})") from e
    if not toks:
        raise EvalError("empty expression")
    parts: list[str] = []
    lines: set[int] = set()
    pos = 0
    k = 0
    while k < len(toks):
        t = toks[k]
        if t.kind is not TokKind.IDENT or t.text in _LITERAL_WORDS or _BV.match(t.text):
            k += 1
            continue
        if k + 1 < len(toks) and toks[k + 1].text in ("(", "."):
            raise EvalError(f"not a literal (it calls `{t.text}`)")
        b = env.get(t.text)
        if b is None:
            if k > 0 and toks[k - 1].text in ("new", "<", ":"):
                k += 1  # a type name in `new T[]`
                continue
            raise EvalError(f"`{t.text}` is not a variable defined before this line")
        if b.error:
            raise EvalError(b.error)
        replacement = b.text
        end = k + 1
        if (
            k + 4 <= len(toks)
            and toks[k + 1].text == "["
            and toks[k + 2].text == ".."
            and toks[k + 3].text == "]"
        ):
            # `a[..]`: the elements of an array, or the sequence itself
            replacement = array_elements_text(b.text) or b.text
            end = k + 4
        elif k + 1 < len(toks) and toks[k + 1].text == "[":
            raise EvalError(f"not a literal (it indexes or slices `{t.text}`)")
        parts.append(text[pos : t.start])
        parts.append(replacement)
        pos = toks[end - 1].end
        lines |= b.lines
        k = end
    parts.append(text[pos:])
    return "".join(parts).strip(), frozenset(lines)


def evaluate(text: str, t: DafnyType, env: Mapping[str, Binding]) -> tuple[Value, frozenset[int]]:
    """The value of a test expression at type t, and the definition lines it used; raises EvalError."""
    literal, lines = substitute(text, env)
    try:
        v = parse_at(literal, t)
    except ValueParseError as e:
        shown = f" in `{_short(literal)}`" if literal != text.strip() else ""
        raise EvalError(f"{e}{shown}") from e
    return (as_array(v) if isinstance(t, ArrayT) else v), lines


# ---------------------------------------------------------------------------------------------------
# pairing calls with expectations


@dataclass(frozen=True)
class ReadCall:
    """One call of the method under test with its inputs and the expectation found for it."""

    line: int  # line of the call
    inputs: tuple[Value, ...]
    expected: tuple[Value, ...]
    post: tuple[tuple[int, Value], ...]
    lines: tuple[int, ...]  # the case's source lines: definitions used, then the call to the expectation
    note: str = ""  # how the expectation was read, when not from a check (see TestCase.note)


@dataclass(frozen=True)
class CallProblem:
    line: int
    reason: str


def modified_params(target: Decl) -> tuple[int, ...]:
    """Indexes of the parameters a method's `modifies` clauses name (array parameters by default)."""
    texts = target.clause_texts("modifies")
    if not texts:
        return ()
    named = {w for text in texts for w in re.findall(r"[A-Za-z_][\w']*", text)}
    idx = tuple(i for i, p in enumerate(target.params) if p.name in named)
    if idx:
        return idx
    return tuple(i for i, p in enumerate(target.params) if isinstance(p.type, ArrayT))


def _calls(stmt: Stmt, callees: Collection[str]) -> bool:
    return (
        stmt.call is not None
        and stmt.call.name in callees
        and stmt.kind in (StmtKind.VAR, StmtKind.ASSIGN, StmtKind.CALL)
        and not stmt.commented
    )


def _plain_var(text: str) -> str | None:
    """The variable `x` of text `x`, `x[..]` or `(x)`; None otherwise."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    toks = _strip_parens(toks)
    if len(toks) == 1 and toks[0].kind is TokKind.IDENT:
        return toks[0].text
    if len(toks) == 4 and toks[0].kind is TokKind.IDENT and [t.text for t in toks[1:]] == ["[", "..", "]"]:
        return toks[0].text
    return None


def equalities(stmt: Stmt) -> list[tuple[str, str]]:
    """The `a == b` facts a statement states: conditions joined by `&&`, `*Equals(a, b)` helpers."""
    if stmt.kind in (StmtKind.VAR, StmtKind.ASSIGN, StmtKind.CALL):
        if stmt.call is not None and is_equality_helper(stmt.call.name) and len(stmt.call.args) == 2:
            return [(stmt.call.args[0], stmt.call.args[1])]
        return []
    if stmt.kind not in (StmtKind.ASSERT, StmtKind.EXPECT):
        return []
    try:
        toks = [t for t in tokenize(stmt.expr) if t.kind is not TokKind.COMMENT]
    except LexError:
        return []
    out: list[tuple[str, str]] = []
    for part in split_top(_strip_parens(toks), "&&"):
        conj = _strip_parens(part)
        if not conj or any(_top_level_index(conj, op) >= 0 for op in _WEAKER_THAN_EQ):
            continue  # `r == a || r == b` states no single value
        eq = _top_level_index(conj, "==")
        if eq > 0:
            out.append((_slice(conj[:eq], stmt.expr), _slice(conj[eq + 1 :], stmt.expr)))
            continue
        call = _call_of(conj, stmt.expr)
        if call is not None and is_equality_helper(call.name) and len(call.args) == 2:
            out.append((call.args[0], call.args[1]))
        elif len(conj) == 1 and conj[0].kind is TokKind.IDENT:
            out.append((conj[0].text, "true"))  # `assert ok;`
        elif len(conj) == 2 and conj[0].text == "!" and conj[1].kind is TokKind.IDENT:
            out.append((conj[1].text, "false"))
    return out


def _mentioned(stmt: Stmt) -> frozenset[str]:
    """The identifiers a statement mentions: in its value, condition or call (a VAR's own name is no
    mention) or, when it has none, anywhere in its text."""
    try:
        return frozenset(t.text for t in tokenize(stmt.expr or stmt.text) if t.kind is TokKind.IDENT)
    except LexError:
        return frozenset()


def _from(sorted_ints: Sequence[int], start: int) -> Iterator[int]:
    # lazily: callers usually stop at the first few
    for i in range(bisect_left(sorted_ints, start), len(sorted_ints)):
        yield sorted_ints[i]


@dataclass(frozen=True)
class _Scan:
    """The statements of one piece of test code with what is computed once for all their calls."""

    stmts: Sequence[Stmt]
    call_at: Sequence[int]  # indexes of the calls of the method under test, in order
    calls: frozenset[int]  # the same, as a set
    envs: Sequence[Mapping[str, Binding]]  # the variables visible before each statement
    mentions: Sequence[frozenset[str]]  # _mentioned of each statement
    last_mention: Mapping[str, int]  # the index of the last statement mentioning each name
    touches: Mapping[str, Sequence[int]]  # sorted indexes of the statements mentioning or assigning a name

    @staticmethod
    def of(stmts: Sequence[Stmt], call_at: Sequence[int], envs: Sequence[Mapping[str, Binding]]) -> _Scan:
        mentions = [_mentioned(s) for s in stmts]
        last: dict[str, int] = {}
        touches: dict[str, list[int]] = {}
        for j, (s, names) in enumerate(zip(stmts, mentions, strict=True)):
            for name in names:
                last[name] = j
            for name in names | set(s.targets):
                touches.setdefault(name, []).append(j)
        return _Scan(stmts, call_at, frozenset(call_at), envs, mentions, last, touches)

    def touching(self, names: Collection[str], start: int) -> Iterator[int]:
        """Indexes from `start` on of the statements mentioning or assigning any of names, in order."""
        runs = [_from(self.touches.get(name, ()), start) for name in names]
        last = -1
        for j in heapq.merge(*runs):
            if j != last:
                yield j
            last = j


def _split_values(text: str, n: int) -> list[str] | None:
    """The n parts of `[v1, v2]` or `(v1, v2)`: an expected comment for a method with n outputs."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    if len(toks) < 2 or toks[0].text not in ("[", "(") or matching_close(toks, 0) != len(toks) - 1:
        return None
    parts = split_top(toks[1:-1], ",")
    if len(parts) != n or not all(parts):
        return None
    return [_slice(p, text) for p in parts]


@dataclass(frozen=True)
class _Expectation:
    text: str  # the value's expression
    line: int
    env_at: int  # index of the statement whose environment evaluates the text
    problem: str = ""


def read_calls(
    stmts: Sequence[Stmt],
    callees: Collection[str],
    target: Decl,
    where: Callable[[int], str],
    qualifiers: Collection[str] | None = None,
) -> list[ReadCall | CallProblem]:
    """Each call of `callees` in stmts, read as a test of `target`, in order.

    `where(line)` words a line for messages ("line 14", "line 2 of the case"). With `qualifiers`, only
    calls written with one of them count (`A` for `A.Add(..)`, "" for a plain `Add(..)`): how same-named
    methods of different modules are told apart.
    """
    envs = _environments(stmts, callees, target, where)
    call_at = [
        k for k, s in enumerate(stmts)
        if _calls(s, callees) and (qualifiers is None or (s.call is not None and s.call.qualifier in qualifiers))
    ]
    if not call_at:
        return []
    scan = _Scan.of(stmts, call_at, envs)
    return [_read_call(scan, k, target, where) for k in call_at]


class _Env(Mapping[str, Binding]):
    """The variables visible before statement `at`, read from the bindings' history (no copies)."""

    def __init__(self, history: Mapping[str, tuple[list[int], list[Binding]]], at: int) -> None:
        self._history = history
        self._at = at

    def __getitem__(self, name: str) -> Binding:
        stamps, bindings = self._history[name]
        i = bisect_left(stamps, self._at)  # the last binding made by a statement before `at`
        if i == 0:
            raise KeyError(name)
        return bindings[i - 1]

    def __iter__(self) -> Iterator[str]:
        return (name for name, (stamps, _) in self._history.items() if stamps[0] < self._at)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _environments(
    stmts: Sequence[Stmt], callees: Collection[str], target: Decl, where: Callable[[int], str]
) -> list[Mapping[str, Binding]]:
    """The variables visible before each statement (and after the last one).

    Each binding is stored once with the index of the statement that made it, so a test method with
    many variables and statements costs linear space and time, not their product.
    """
    env: dict[str, Binding] = {}
    history: dict[str, tuple[list[int], list[Binding]]] = {}
    changed = modified_params(target)
    for j, s in enumerate(stmts):
        if s.commented:
            continue
        lines = frozenset(range(s.line, s.end_line + 1))
        touched: list[str] = []
        if s.kind in (StmtKind.VAR, StmtKind.ASSIGN) and s.targets:
            _bind(env, s, lines, where)
            touched += s.targets
        if _calls(s, callees) and s.call is not None:
            # an in-place call changes its arrays: as later inputs their contents are unknown
            for i in changed:
                name = _plain_var(s.call.args[i]) if i < len(s.call.args) else None
                if name is not None:
                    env[name] = Binding("", lines, f"`{name}` was changed by the call at {where(s.line)}")
                    touched.append(name)
        for name in touched:
            stamps, bindings = history.setdefault(name, ([], []))
            if stamps and stamps[-1] == j:
                bindings[-1] = env[name]
            else:
                stamps.append(j)
                bindings.append(env[name])
    return [_Env(history, k) for k in range(len(stmts) + 1)]


def _bind(env: dict[str, Binding], s: Stmt, lines: frozenset[int], where: Callable[[int], str]) -> None:
    if s.problem:
        for name in s.targets:
            env[name] = Binding("", lines, f"its definition at {where(s.line)} is broken: {s.problem}")
        return
    if s.call is not None:
        for name in s.targets:
            env[name] = Binding("", lines, f"`{name}` holds the result of `{s.call.name}(..)`, not a literal")
        return
    if not s.expr:
        for name in s.targets:
            env[name] = Binding("", lines, f"`{name}` is declared without a value")
        return
    # `var a, b := 1, 2;`
    rhs = [s.expr] if len(s.targets) == 1 else (_split_values(f"({s.expr})", len(s.targets)) or [])
    for k, name in enumerate(s.targets):
        if k >= len(rhs):
            env[name] = Binding("", lines, f"cannot tell the value of `{name}`")
            continue
        try:
            text, used = substitute(rhs[k], env)
        except EvalError as e:
            env[name] = Binding("", lines, f"`{name}` is not a literal: {e}")
            continue
        env[name] = Binding(text, used | lines)


def _read_call(scan: _Scan, k: int, target: Decl, where: Callable[[int], str]) -> ReadCall | CallProblem:
    stmts, envs = scan.stmts, scan.envs
    s = stmts[k]
    call = s.call
    if call is None:  # read_calls only passes calls
        return CallProblem(s.line, f"{where(s.line)}: not a call")
    at = where(s.line)
    if s.problem:
        return CallProblem(s.line, f"{at}: {s.problem}")
    if len(call.args) != len(target.params):
        return CallProblem(
            s.line,
            f"{at}: the call passes {len(call.args)} argument(s), `{target.name}` takes {len(target.params)}",
        )
    outs = s.targets
    if len(outs) != len(target.returns):
        if not outs:
            return CallProblem(s.line, f"{at}: the call drops the result of `{target.name}`")
        return CallProblem(
            s.line,
            f"{at}: the call assigns {len(outs)} variable(s), `{target.name}` returns {len(target.returns)}",
        )
    inputs: list[Value] = []
    lines: set[int] = {s.line}
    for i, (arg, param) in enumerate(zip(call.args, target.params, strict=True)):
        try:
            v, used = evaluate(arg, param.type, envs[k])
        except EvalError as e:
            return CallProblem(
                s.line,
                f"{at}: cannot evaluate argument {i + 1} `{_short(arg)}` "
                f"({param.name}: {param.type_text}): {e}",
            )
        inputs.append(v)
        lines |= used
    # what to look for: the result variables, and the arrays the method changes
    watch: dict[str, tuple[str, int]] = {name: ("out", i) for i, name in enumerate(outs)}
    changed = modified_params(target)
    for i in changed:
        name = _plain_var(call.args[i])
        if name is not None and name not in watch:
            watch[name] = ("post", i)
    found, note = _find_expectations(scan, k, watch, len(outs), len(changed))
    missing = [name for name in outs if name not in found]
    taken = ""
    if len(missing) == 1 and not note:
        # no check at all: perhaps the expected value sits unused in a variable declared before the call
        i = outs.index(missing[0])
        picked = _unused_before(scan, k, target.returns[i].type)
        if isinstance(picked, _Expectation):
            found[missing[0]] = picked
            taken = (
                f"expected value taken from `{picked.text}` (line {picked.line}), "
                "declared before the call and never compared"
            )
        else:
            note = picked
    if any(name not in found for name in outs) or not found:
        if not note and found and missing:
            checked = [f"`{name}`" for name in outs if name in found]
            verb = "is" if len(checked) == 1 else "are"
            at_line = max(e.line for e in found.values())
            lacking = ", ".join(f"`{name}`" for name in missing)
            note = f"only {', '.join(checked)} {verb} checked, at line {at_line}; nothing gives {lacking}"
        note = note or _unused_hint(scan, k)
        why = f" ({note})" if note else ""
        return CallProblem(s.line, f"no expected value found for the call at {at}{why}")
    expected: list[Value] = []
    post: list[tuple[int, Value]] = []
    last = s.end_line
    for name, (role, i) in watch.items():
        exp = found.get(name)
        if exp is None:
            continue
        if exp.problem:
            return CallProblem(s.line, f"{where(exp.line)}: {exp.problem}")
        param = target.returns[i] if role == "out" else target.params[i]
        try:
            v, used = evaluate(exp.text, param.type, envs[exp.env_at])
        except EvalError as e:
            if role == "post":
                what = f"`{name}` after the call"
            else:
                what = f"`{name}`" if name == param.name else f"`{name}` (out-parameter `{param.name}`)"
            return CallProblem(
                s.line,
                f"{where(exp.line)}: cannot read the expected value "
                f"`{_short(exp.text)}` of {what} as {param.type_text}: {e}",
            )
        lines |= used
        if not taken or name not in missing:
            last = max(last, exp.line)
        if role == "out":
            expected.append(v)
        else:
            post.append((i, v))
    lines |= set(range(s.line, last + 1))
    return ReadCall(
        s.line,
        tuple(inputs),
        tuple(expected),
        tuple(sorted(post, key=lambda p: p[0])),
        tuple(sorted(lines)),
        taken,
    )


def _region(scan: _Scan, k: int) -> tuple[int, int]:
    """The statements between the call before stmts[k] and the one after it (exclusive)."""
    at = bisect_left(scan.call_at, k)
    prev = scan.call_at[at - 1] if at > 0 else -1
    nxt = scan.call_at[at + 1] if at + 1 < len(scan.call_at) else len(scan.stmts)
    return prev, nxt


def _unused_vars(scan: _Scan, lo: int, hi: int) -> list[tuple[int, str]]:
    """(index, name) of the variables defined by literal VARs in stmts[lo:hi] that no later statement
    mentions."""
    out: list[tuple[int, str]] = []
    for j in range(lo, hi):
        s = scan.stmts[j]
        if s.kind is not StmtKind.VAR or s.commented or s.call is not None:
            continue
        out += [(j, name) for name in s.targets if scan.last_mention.get(name, -1) <= j]
    return out


def _unused_before(scan: _Scan, k: int, out_type: DafnyType) -> _Expectation | str:
    """The expectation an unused variable declared before the call (since the call before) gives, when
    exactly one such variable holds a value of the output's type; else a note saying why none."""
    prev, _ = _region(scan, k)
    latest = {name: j for j, name in _unused_vars(scan, prev + 1, k)}  # a name declared twice: the last
    fitting: list[tuple[int, str]] = []
    for name, j in sorted(latest.items(), key=lambda item: item[1]):
        if scan.stmts[j].problem:
            continue
        try:
            evaluate(name, out_type, scan.envs[k])
        except EvalError:
            continue
        fitting.append((j, name))
    if len(fitting) == 1:
        j, name = fitting[0]
        return _Expectation(name, scan.stmts[j].line, k)
    if len(fitting) > 1:
        names = ", ".join(f"`{name}` (line {scan.stmts[j].line})" for j, name in fitting)
        return f"{names} are declared before the call and never compared: cannot tell which is the expected value"
    return ""


def _unused_hint(scan: _Scan, k: int) -> str:
    """A variable defined near the call that nothing uses: perhaps the expected value, never compared."""
    prev, nxt = _region(scan, k)
    unused = _unused_vars(scan, prev + 1, nxt)
    if not unused:
        return ""
    j, name = unused[0]
    return f"`{name}` defined at line {scan.stmts[j].line} is never compared with the result"


def _find_expectations(
    scan: _Scan,
    k: int,
    watch: Mapping[str, tuple[str, int]],
    n_outs: int,
    n_changed: int,
) -> tuple[dict[str, _Expectation], str]:
    """The nearest expectation after stmts[k] for each watched variable, and a note when some lack one.

    Statements are read one by one up to the next call; after it only those that mention or assign a
    variable still lacking an expectation can matter, and only they are read (so a test method with
    many calls is read in linear time).
    """
    stmts = scan.stmts
    found: dict[str, _Expectation] = {}
    pending = set(watch)
    note = ""
    after_next_call = False

    def read(j: int) -> None:
        nonlocal note, after_next_call
        s = stmts[j]
        if j in scan.calls:
            after_next_call = True
            # calling the method again on the same array changes it: its state is no longer this call's
            for arg in s.call.args if s.call is not None else ():
                name = _plain_var(arg)
                if name is not None and name in pending and watch[name][0] == "post":
                    pending.discard(name)
                    note = note or f"`{name}` is changed again by the call at line {s.line} before any check"
        if not s.commented and s.kind in (StmtKind.VAR, StmtKind.ASSIGN):
            for name in s.targets:
                if name in pending:
                    pending.discard(name)
                    note = note or f"`{name}` is assigned again at line {s.line} before any check"
        if s.kind is StmtKind.EXPECTED_COMMENT:
            # a value without a variable: it belongs to the nearest call before it
            if after_next_call or found:
                return
            texts = _comment_targets(s, watch, n_outs, n_changed)
            if isinstance(texts, str):
                note = note or texts
                return
            for name, text in texts.items():
                if name in pending:
                    found[name] = _Expectation(text, s.line, j)
                    pending.discard(name)
            return
        hit = False
        other_vars: list[str] = []
        for a, b in equalities(s):
            for side, other in ((a, b), (b, a)):
                name = _plain_var(side)
                if name is not None and name in pending:
                    found[name] = _Expectation(other, s.line, j, s.problem)
                    pending.discard(name)
                    hit = True
                    break
                if name is not None:
                    other_vars.append(name)
        if hit or note or s.kind not in (StmtKind.ASSERT, StmtKind.EXPECT):
            return
        mentioned = [name for name in sorted(pending) if name in scan.mentions[j]]
        if mentioned:
            note = f"`{_short(s.text)}` at line {s.line} is not an equality with a value"
        elif other_vars and not after_next_call:
            note = f"the check `{_short(s.text)}` at line {s.line} is about `{other_vars[0]}`"

    j = k + 1
    while j < len(stmts) and pending and not after_next_call:
        read(j)
        j += 1
    if pending:
        # past the next call a statement that neither mentions nor assigns a pending variable changes
        # nothing above: comments are the previous call's, checks of other variables give no note
        for i in scan.touching(sorted(pending), j):
            if not pending:
                break
            read(i)
    return found, note


def _comment_targets(
    s: Stmt, watch: Mapping[str, tuple[str, int]], n_outs: int, n_changed: int
) -> dict[str, str] | str:
    """Which watched variable(s) an `//expected V` comment gives values for, or why it cannot tell."""
    outs = [name for name, (role, _) in watch.items() if role == "out"]
    if n_outs == 1:
        return {outs[0]: s.expr}
    if n_outs > 1:
        parts = _split_values(s.expr, n_outs)
        if parts is None:
            return f"the expected value at line {s.line} should list {n_outs} values, one per out-parameter"
        return dict(zip(outs, parts, strict=True))
    posts = [name for name, (role, _) in watch.items() if role == "post"]
    if len(posts) == 1 and n_changed == 1:
        return {posts[0]: s.expr}
    if n_changed > 1:
        return f"the expected value at line {s.line} does not say which of the changed arrays it is about"
    return f"the expected value at line {s.line} is about an array the test does not name"
