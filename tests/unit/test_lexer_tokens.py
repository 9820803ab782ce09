"""The lexer's two paths agree where they meet: most tokens are taken by one regular expression, the rest (non-ASCII
identifiers, block comments, verbatim strings, other single characters) character by character."""

from __future__ import annotations

import dataclasses

import pytest

from bot.dafny.lexer import Token, TokKind, tokenize

CMT, ID, NUM, OP, STR = TokKind.COMMENT, TokKind.IDENT, TokKind.NUMBER, TokKind.OP, TokKind.STRING


@pytest.mark.parametrize(("source", "tokens"), [
    # an identifier goes on with non-ASCII letters and digits (`²`), wherever they are
    ("abé+x²y", [(ID, "abé", 1, 1), (OP, "+", 1, 4), (ID, "x²y", 1, 5)]),
    # `!in` only before a word's end
    ("x!iny !in y!in", [(ID, "x", 1, 1), (OP, "!", 1, 2), (ID, "iny", 1, 3), (OP, "!in", 1, 7), (ID, "y", 1, 11),
                        (OP, "!in", 1, 12)]),
    # `{` then `:` is one attribute opener, a comment between dropped
    ("{ /* c */ :verify false} { :", [(OP, "{:", 1, 1), (ID, "verify", 1, 12), (ID, "false", 1, 19), (OP, "}", 1, 24),
                                      (OP, "{:", 1, 26)]),
    ("a//*b\n/* /* */ */c", [(ID, "a", 1, 1), (CMT, "//*b", 1, 2), (CMT, "/* /* */ */", 2, 1), (ID, "c", 2, 12)]),
    ('@x @"a""b" \\', [(OP, "@", 1, 1), (ID, "x", 1, 2), (STR, '@"a""b"', 1, 4), (OP, "\\", 1, 12)]),
    ("1.5.x 0x_Fg 12.", [(NUM, "1.5", 1, 1), (OP, ".", 1, 4), (ID, "x", 1, 5), (NUM, "0x_F", 1, 7), (ID, "g", 1, 11),
                         (NUM, "12", 1, 13), (OP, ".", 1, 15)]),
    # blanks, a byte-order mark among them, count their newlines; `١` is a digit to Python, no letter to Dafny
    ("\ufeff\t\r\n  ١ é", [(OP, "١", 2, 3), (ID, "é", 2, 5)]),
])
def test_where_the_two_paths_meet(source: str, tokens: list[tuple[TokKind, str, int, int]]) -> None:
    read = tokenize(source, keep_comments=True)
    assert [(t.kind, t.text, t.line, t.col) for t in read] == tokens
    assert all(source[t.start : t.end] == t.text for t in read if t.text != "{:")
    assert [t for t in tokenize(source) if t.kind is CMT] == []


def test_a_token_is_a_frozen_dataclass() -> None:
    (token,) = tokenize("x")
    assert token == Token(ID, "x", 0, 1, 1, 1) and dataclasses.replace(token, col=2).col == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        token.text = "y"  # type: ignore[misc]
