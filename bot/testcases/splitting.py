"""Statements of test code: splitting text into statements, and the token helpers they are read with.

Pure code, shared by the `.dfy` test-method reader and the MBPP JSON reader. Test code is a flat list
of statements (`var a1 := new int[] [1, 2];`, `var r := M(a1);`, `assert r == 5;`) plus comments that
carry expectations (`//expected [4, 5]`, `//assert r == 5;`). Only `parse_statements` raises (on text
that does not even lex); otherwise what cannot be read becomes a `CallProblem` saying where and why.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from bot.dafny.lexer import LexError, Token, TokKind, matching_close, tokenize


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
    scope: tuple[int, ...] = ()  # the blocks around it, outermost first (each `{ .. }` has its own number)
    cond: str = ""  # the keyword of the nearest enclosing `if`, `else`, `while`, `match`, ... block: "" when none
    changes: tuple[str, ...] = ()  # variables changed in part (`a[i] := v`, `o.f := v`, an assignment in a `case`)


# Keywords that start a statement: seeing one in the middle of a statement means a `;` is missing.
_STARTERS = frozenset({"var", "assert", "expect", "print"})
# Identifiers a literal may contain besides variables.
LITERAL_WORDS = frozenset(
    {"true", "false", "new", "null", "as", "int", "nat", "bool", "char", "real", "string", "seq", "array", "set",
     "multiset", "map"}
)
# Statements whose `{` opens a block rather than a set display.
_BLOCK_HEADS = frozenset({"if", "else", "while", "for", "forall", "match", "case", "calc", "label"})
# A statement that jumps: the code after it in its block (and the blocks around) may not run.
_JUMPS = frozenset({"return", "break", "continue"})
# Keywords after which a `{` starts an operand (a set display), not a body.
_EXPECTING_OPERAND = frozenset({"in", "invariant", "decreases", "modifies", "reads", "requires", "ensures", "then",
                                "else", "case", "if", "while", "forall", "match", "label"})
# Statements whose first word is followed by an expression: a `{` there opens a set display.
_STATES_OPERAND = frozenset({"assert", "expect", "assume", "print", "return"})
_MAX_SHOWN = 60
_MISSING_SEMICOLON = "missing `;`"


def short(text: str) -> str:
    """Text for a message: one line, at most _MAX_SHOWN characters."""
    one = " ".join(text.split())
    return one if len(one) <= _MAX_SHOWN else one[: _MAX_SHOWN - 3] + "..."


# ---------------------------------------------------------------------------------------------------
# splitting


def parse_statements(text: str) -> list[Stmt]:
    """The statements of a piece of test code; raises LexError (with line and column) on broken text."""
    return split_statements(tokenize(text, keep_comments=True), text)


def split_statements(tokens: Sequence[Token], source: str) -> list[Stmt]:
    """Split tokens (of `source`, comments kept) into statements; blocks are flattened, each statement keeping the
    blocks around it (`scope`) and the control flow it is under (`cond`), so readers can refuse what they do not
    follow."""
    out: list[Stmt] = []
    cur: list[Token] = []
    opened: list[Token] = []  # brackets open in the current statement
    blocks: list[tuple[int, str]] = []  # the blocks open: number and heading keyword ("" for a plain block)
    # per level (the method's, then each open block's): why the rest of it may not run as written ("" when it
    # does): after a `return`, `break` or `continue`, and after a `match` or `case` written without braces
    tails: list[str] = [""]
    count = [0]

    def placed(stmt: Stmt) -> Stmt:
        cond = next((head for _, head in reversed(blocks) if head), "") or next((w for w in reversed(tails) if w), "")
        return replace(stmt, scope=tuple(n for n, _ in blocks), cond=cond)

    def flush(problem: str = "") -> None:
        if cur:
            out.append(placed(_statement(cur, source, problem=problem)))
            first = cur[0].text
            if first in _JUMPS:
                tails[:] = [t or f"after `{first}`" for t in tails]  # the rest of every enclosing block
            elif first == "match" or any(tok.text == "case" for tok in cur):
                tails[-1] = tails[-1] or "match"
            cur.clear()
        opened.clear()

    def body_brace() -> bool:
        """Whether a `{` ends the heading in `cur` (an `if`, `while`, ...) and opens its body, rather than a set
        display or a block inside its condition: it follows a heading keyword alone, or a complete operand."""
        if cur and cur[0].text in _STATES_OPERAND:
            return False  # `assert {2} == r;`: the display is the check's first operand
        if not cur or cur[0].text not in _BLOCK_HEADS or len(cur) == 1:
            return bool(not cur or len(cur) == 1)
        prev = cur[-1]
        if prev.kind in (TokKind.NUMBER, TokKind.STRING, TokKind.CHAR):
            return True
        if prev.kind is TokKind.IDENT:
            return prev.text not in _EXPECTING_OPERAND
        return prev.text in (")", "]", "}") or (prev.text == "|" and sum(x.text == "|" for x in cur) % 2 == 0)

    for tok in tokens:
        if tok.kind is TokKind.COMMENT:
            stmt = _comment_statement(tok)
            if stmt is not None:
                out.append(placed(stmt))
            continue
        if tok.kind is TokKind.OP and tok.text == ";" and opened and opened[-1].text in ("(", "["):
            # no test statement has a `;` inside parentheses or brackets: one was never closed
            flush(f"`{opened[-1].text}` at line {opened[-1].line} is not closed")
            continue
        if tok.kind is TokKind.OP and not opened:
            if tok.text == ";":
                flush()
                continue
            if tok.text == "{" and body_brace():
                # a block such as `if c { .. }`: its body is read; its header is kept as a statement of its own
                # (OTHER, its condition the `expr`), so a reader sees what it names (`if r == 5 { expect false; }`
                # checks `r` though no statement of the body names it)
                if cur and cur[0].text in _BLOCK_HEADS:
                    out.append(placed(Stmt(kind=StmtKind.OTHER, line=cur[0].line, end_line=cur[-1].line,
                                           text=source[cur[0].start : cur[-1].end],
                                           expr=source[cur[1].start : cur[-1].end] if len(cur) > 1 else "")))
                count[0] += 1
                blocks.append((count[0], cur[0].text if cur else ""))
                tails.append("")
                if cur and cur[0].text == "if" and len(cur) > 1 and cur[1].text == "case":
                    tails[-1] = "if case"
                cur.clear()
                continue
            if tok.text == "}":
                flush(_MISSING_SEMICOLON)
                if blocks:
                    blocks.pop()
                    ended = tails.pop()
                    if ended.startswith("after"):  # a jump inside a block: the code after the block may not run
                        tails[-1] = tails[-1] or ended
                continue
        if tok.kind is TokKind.IDENT and not opened and tok.text in _STARTERS and cur:
            flush(_MISSING_SEMICOLON)
        if tok.kind is TokKind.OP:
            if tok.text in ("(", "[", "{", "{:"):
                opened.append(tok)
            elif tok.text in (")", "]", "}") and opened:
                opened.pop()
        cur.append(tok)
        if tok.text == "}" and not opened and _proof_at(cur) >= 0:
            flush()  # `assert E by { .. }` ends with its proof's block, no `;`
    flush(f"`{opened[-1].text}` at line {opened[-1].line} is not closed" if opened else _MISSING_SEMICOLON)
    return out


def _proof_at(toks: Sequence[Token]) -> int:
    """Where the `by` of `assert E by { .. }` is, when the statement ends with that proof's block; else -1."""
    if not toks or toks[0].text != "assert" or toks[-1].text != "}":
        return -1
    depth = 0
    for k, t in enumerate(toks):
        if t.kind is TokKind.OP and t.text in ("(", "[", "{", "{:"):
            depth += 1
        elif t.kind is TokKind.OP and t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.kind is TokKind.IDENT and t.text == "by" and k > 1 and k + 1 < len(toks):
            if toks[k + 1].text == "{" and matching_close(list(toks), k + 1) == len(toks) - 1:
                return k
            return -1
    return -1


def _statement(toks: Sequence[Token], source: str, problem: str = "", commented: bool = False) -> Stmt:
    first, last = toks[0], toks[-1]
    text = source[first.start : last.end]
    if problem == _MISSING_SEMICOLON:
        problem = f"`{short(text)}` has no `;` at its end"
    elif problem:
        problem = f"`{short(text)}`: {problem}"
    base = Stmt(
        kind=StmtKind.OTHER,
        line=first.line,
        end_line=last.line,
        text=text,
        commented=commented,
        problem=problem,
    )
    head = first.text if first.kind is TokKind.IDENT else ""
    base = replace(base, changes=_changed_in_part(toks))
    if head == "var":
        return _var_or_assign(StmtKind.VAR, toks[1:], source, base)
    if head in ("assert", "expect"):
        rest = list(toks[1:])
        # `assert {:attr} E`: drop attributes
        while rest and rest[0].text == "{:":
            close = matching_close(rest, 0)
            rest = rest[close + 1 :] if close >= 0 else []
        if head == "expect":
            comma = top_level_index(rest, ",")
            if comma >= 0:
                rest = rest[:comma]  # the message
        elif (by := _proof_at(toks)) >= 0:
            rest = rest[: by - (len(toks) - len(rest))]  # the proof (`rest` ends `toks`)
        kind = StmtKind.ASSERT if head == "assert" else StmtKind.EXPECT
        return replace(base, kind=kind, expr=slice_text(rest, source))
    if head == "print":
        return replace(base, kind=StmtKind.PRINT)
    if top_level_index(toks, ":=") >= 0:
        return _var_or_assign(StmtKind.ASSIGN, toks, source, base)
    call = call_of(toks, source)
    if call is not None:
        return replace(base, kind=StmtKind.CALL, call=call, expr=text)
    return base


def under(cond: str) -> str:
    """`inside `if`` or `after `return``: where a statement is, for messages (see Stmt.cond)."""
    return cond if cond.startswith("after ") else f"inside `{cond}`"


def _changed_in_part(toks: Sequence[Token]) -> tuple[str, ...]:
    """The variables a statement changes other than as whole targets of `:=`: `a[i] := v` and `o.f := v` change
    `a` and `o`; `case 1 => x := 4` changes `x` (the readers do not follow a `match`); `x :| P` and `modify a`
    change what they name, to values the readers do not follow."""
    if toks and toks[0].text == "modify":
        return tuple(dict.fromkeys(t.text for t in toks[1:] if t.kind is TokKind.IDENT))
    such_that = top_level_index(toks, ":|")
    at = such_that if such_that >= 0 else top_level_index(toks, ":=")
    if at < 0:
        return ()
    lhs = list(toks[:at])
    arrows = [i for i, t in enumerate(lhs) if t.text == "=>"]
    if arrows:
        lhs = lhs[arrows[-1] + 1 :]
    if lhs and lhs[0].text == "var":
        if such_that < 0:
            return ()  # `var x: T := e` declares its targets (a VAR statement's own)
        lhs = lhs[1:]
    names = []
    for part in split_top(lhs, ",", angle=True):
        if part and part[0].kind is TokKind.IDENT and (len(part) > 1 or arrows or such_that >= 0):
            names.append(part[0].text)
    return tuple(names)


def _var_or_assign(kind: StmtKind, toks: Sequence[Token], source: str, base: Stmt) -> Stmt:
    at = top_level_index(toks, ":=")
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
        base, kind=kind, targets=tuple(names), expr=slice_text(rhs, source), call=call_of(rhs, source)
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
    end = top_level_index(toks, ";")
    if end >= 0:
        toks = toks[:end]
    if len(toks) < 2:
        return None
    # positions from the comment's own text; lines from the comment
    fixed = [Token(t.kind, t.text, t.start, t.end, tok.line, t.col) for t in toks]
    return replace(_statement(fixed, content, commented=True), text=tok.text)


# ---------------------------------------------------------------------------------------------------
# token helpers


def slice_text(toks: Sequence[Token], source: str) -> str:
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


def top_level_index(toks: Sequence[Token], op: str) -> int:
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
    return top_level_index(toks, op) >= 0


def call_of(toks: Sequence[Token], source: str) -> Call | None:
    """`M(a, b)` or `X.M(a, b)` spanning exactly toks."""
    k = 0
    while k + 1 < len(toks) and toks[k].kind is TokKind.IDENT and toks[k + 1].text == ".":
        k += 2
    if k + 1 >= len(toks) or toks[k].kind is not TokKind.IDENT or toks[k + 1].text != "(":
        return None
    if toks[k].text in LITERAL_WORDS:
        return None
    close = matching_close(list(toks), k + 1)
    if close != len(toks) - 1:
        return None
    inner = toks[k + 2 : close]
    args = tuple(slice_text(p, source) for p in split_top(inner, ",")) if inner else ()
    return Call(toks[k].text, args, ".".join(t.text for t in toks[:k:2]))


def strip_parens(toks: list[Token]) -> list[Token]:
    while len(toks) >= 2 and toks[0].text == "(" and matching_close(toks, 0) == len(toks) - 1:
        toks = toks[1:-1]
    return toks


def calls(stmt: Stmt, callees: Collection[str]) -> bool:
    return (
        stmt.call is not None
        and stmt.call.name in callees
        and stmt.kind in (StmtKind.VAR, StmtKind.ASSIGN, StmtKind.CALL)
        and not stmt.commented
    )


def plain_var(text: str) -> str | None:
    """The variable `x` of text `x`, `x[..]` or `(x)`; None otherwise."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    toks = strip_parens(toks)
    if len(toks) == 1 and toks[0].kind is TokKind.IDENT:
        return toks[0].text
    if len(toks) == 4 and toks[0].kind is TokKind.IDENT and [t.text for t in toks[1:]] == ["[", "..", "]"]:
        return toks[0].text
    return None


def split_values(text: str, n: int) -> list[str] | None:
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
    return [slice_text(p, text) for p in parts]
