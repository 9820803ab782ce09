"""Dafny lexer: tokens with positions, nested comments, strings, chars and attributes.

Pure code. Everything structural in the project (declarations, test methods, dialect rewrites)
is built on these tokens, never on line-based regular expressions.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import Enum


class TokKind(Enum):
    IDENT = "ident"
    NUMBER = "number"
    STRING = "string"
    CHAR = "char"
    OP = "op"
    COMMENT = "comment"


@dataclass(frozen=True, slots=True)  # slots: a large file is a million tokens, each made and kept
class Token:
    kind: TokKind
    text: str
    start: int  # offset of the first character in the source
    end: int  # offset one past the last character
    line: int  # 1-based
    col: int  # 1-based


class LexError(ValueError):
    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(f"line {line}, column {col}: {message}")
        self.message = message
        self.line = line
        self.col = col


# Longest first: the lexer takes the first operator that matches.
_OPS = (
    "<==>", "==>", "<==", "!in", ":=", "::", "==", "!=", "<=", ">=", "&&", "||", "..", "{:", "=>",
    "!!", "->", "~>", "-->", ":|", "<<", ">>",
)
_OPS_SORTED = tuple(sorted(set(_OPS), key=len, reverse=True))
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_DIGITS = frozenset("0123456789")
_IDENT_PART = _IDENT_START | _DIGITS | frozenset("'?")
# by first character, longest first: most characters start no operator of more than one character
_OPS_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _op in _OPS_SORTED:
    _OPS_BY_FIRST[_op[0]] = (*_OPS_BY_FIRST.get(_op[0], ()), _op)
_ASCII_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_'?]*")


# What most source is made of, one match per token (blanks, with their newlines, ASCII identifiers, numbers, line
# comments, operators); the rest (block comments, strings, chars, identifiers with non-ASCII letters, `@`, `\\` and
# any other single character) goes through the loop's code, character by character.
# Groups by number: 1 blank, 2 identifier, 3 number, 4 line comment, 5 operator, 6 `:`.
_COMMON = re.compile(
    r"([ \t\r\f\v\ufeff\n]+)"
    # followed by a non-ASCII character, the loop decides (which may take it as part of the identifier)
    r"|([A-Za-z_][A-Za-z0-9_'?]*)(?![A-Za-z0-9_'?]|[^\x00-\x7f])"
    # ASCII digits only, as in Dafny (`str.isdigit` also takes `²` and `١`): `0x` and hex digits, or digits and `_`,
    # then `.` and more when a digit follows the `.`
    r"|(0[xX][0-9a-fA-F_]*|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?)"
    r"|(//[^\n]*)"
    r"|(" + "|".join(re.escape(op) + ("(?![A-Za-z0-9_'?])" if op == "!in" else "") for op in _OPS_SORTED)
    + r"|[-(){}\[\],;.<>=!&|+*%^~#$?`]|/(?!\*))"
    r"|(:)"
)
_KINDS = {2: TokKind.IDENT, 3: TokKind.NUMBER, 4: TokKind.COMMENT, 5: TokKind.OP}


def tokenize(src: str, keep_comments: bool = False) -> list[Token]:
    """Split Dafny source into tokens; raises LexError on an unterminated comment, string or char."""
    if len(src) <= _REMEMBERED_BELOW:
        return list(_remembered(src, keep_comments))  # a copy: callers may change their list, never the tokens
    return _tokenize(src, keep_comments)


# the test readers tokenize each short statement or clause several times (a 1 MB test file: 300,000 calls for
# 15,000 calls of the method); tokens are frozen, so a short text's are kept and shared. A LexError is not kept
# (lru_cache keeps results only): each such call raises it again
_REMEMBERED_BELOW = 2000


@functools.lru_cache(maxsize=4096)
def _remembered(src: str, keep_comments: bool) -> tuple[Token, ...]:
    return tuple(_tokenize(src, keep_comments))


def _tokenize(src: str, keep_comments: bool) -> list[Token]:
    toks: list[Token] = []
    append = toks.append
    common = _COMMON.match
    i, n = 0, len(src)
    line, line_start = 1, 0
    while i < n:
        m = common(src, i)
        if m is not None:
            group, j = m.lastindex or 0, m.end()  # every alternative is a group: never 0
            if group == 1:
                newlines = src.count("\n", i, j)
                if newlines:
                    line += newlines
                    line_start = src.rfind("\n", i, j) + 1
            elif group == 6:
                _colon(toks, Token(TokKind.OP, ":", i, j, line, i - line_start + 1))
            elif group != 4 or keep_comments:
                append(Token(_KINDS[group], m.group(), i, j, line, i - line_start + 1))
            i = j
            continue
        c = src[i]
        start = i
        ln, col = line, i - line_start + 1
        if c == "/" and src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    if src[j] == "\n":
                        line += 1
                        line_start = j + 1
                    j += 1
            if depth:
                raise LexError("unterminated /* comment", ln, col)
            if keep_comments:
                toks.append(Token(TokKind.COMMENT, src[i:j], i, j, ln, col))
            i = j
            continue
        if c == '"' or (c == "@" and src.startswith('@"', i)):
            verbatim = c == "@"
            j = i + (2 if verbatim else 1)
            while True:
                if j >= n or (src[j] == "\n" and not verbatim):
                    raise LexError("unterminated string literal", ln, col)
                if verbatim and src[j] == '"':
                    if src.startswith('""', j):
                        j += 2
                        continue
                    break
                if not verbatim and src[j] == "\\":
                    j += 2
                    continue
                if src[j] == '"':
                    break
                if src[j] == "\n":
                    line += 1
                    line_start = j + 1
                j += 1
            toks.append(Token(TokKind.STRING, src[start : j + 1], start, j + 1, ln, col))
            i = j + 1
            continue
        if c == "'":
            end = _char_literal_end(src, i)
            if end is None:
                raise LexError("malformed character literal", ln, col)
            toks.append(Token(TokKind.CHAR, src[i:end], i, end, ln, col))
            i = end
            continue
        if c in _IDENT_START or (not c.isascii() and c.isalpha()):
            ascii_part = _ASCII_IDENT.match(src, i)
            j = ascii_part.end() if ascii_part else i + 1
            while j < n and (src[j] in _IDENT_PART or (not src[j].isascii() and src[j].isalnum())):
                j += 1
            toks.append(Token(TokKind.IDENT, src[i:j], i, j, ln, col))
            i = j
            continue
        for op in _OPS_BY_FIRST.get(c, ()):
            if src.startswith(op, i):
                # `!in` only when `in` is a whole word (not `!inside`)
                if op == "!in" and i + 3 < n and src[i + 3] in _IDENT_PART:
                    continue
                toks.append(Token(TokKind.OP, op, i, i + len(op), ln, col))
                i += len(op)
                break
        else:
            toks.append(Token(TokKind.OP, c, i, i + 1, ln, col))
            i += 1
    return toks


def _colon(toks: list[Token], colon: Token) -> None:
    """Append a `:` to toks. `{ :verify false}` (space or comment between) is an attribute to Dafny as
    `{:verify false}` is (measured on Dafny 2.3: it skips the declaration); `{` then `:` opens nothing else, so it
    is one `{:` token, its span the whole of it (the comments inside it dropped)."""
    k = len(toks) - 1
    while k >= 0 and toks[k].kind is TokKind.COMMENT:
        k -= 1
    if k >= 0 and toks[k].kind is TokKind.OP and toks[k].text == "{":
        brace = toks[k]
        del toks[k:]
        toks.append(Token(TokKind.OP, "{:", brace.start, colon.end, brace.line, brace.col))
    else:
        toks.append(colon)


def _char_literal_end(src: str, i: int) -> int | None:
    """End offset of a char literal starting at src[i] == "'", or None."""
    n = len(src)
    if i + 2 < n and src[i + 1] == "\\":
        if src[i + 2] == "u":
            j = i + 3
            while j < n and src[j] in "0123456789abcdefABCDEF":
                j += 1
            return j + 1 if j < n and src[j] == "'" else None
        if src[i + 2] == "U" and i + 3 < n and src[i + 3] == "{":
            # closed on the same line: a `}'` lines below is no part of it (its lines would not be counted)
            eol = src.find("\n", i)
            j = src.find("}", i, n if eol < 0 else eol)
            return j + 2 if j > 0 and j + 1 < n and src[j + 1] == "'" else None
        return i + 4 if i + 3 < n and src[i + 3] == "'" else None
    if i + 2 < n and src[i + 2] == "'" and src[i + 1] != "\n":
        return i + 3
    return None


def significant(tokens: list[Token]) -> list[Token]:
    """Tokens without comments."""
    return [t for t in tokens if t.kind is not TokKind.COMMENT]


def matching_close(tokens: list[Token], open_index: int) -> int:
    """Index of the bracket closing tokens[open_index] ('(', '[', '{' or '{:'); -1 if unbalanced."""
    pairs = {"(": ")", "[": "]", "{": "}", "{:": "}"}
    depth = 0
    for k in range(open_index, len(tokens)):
        t = tokens[k]
        if t.kind is not TokKind.OP:
            continue
        if t.text in pairs:
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return k
    return -1
