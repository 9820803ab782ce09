"""Which attributes leave what Dafny checks as it is: the allow-list, in this one place. Pure code.

Dafny 2.3 silently skips or assumes what some attributes mark (`{:verify false}`, `{:axiom}`, `{:extern}`,
`{:selective_checking}`, `{:ignore}`, `{:inline N}`, measured: a wrong helper verifies), and an attribute it
does not know it ignores without a word. So an attribute is read as harmless only when it is on the list below,
with the reason it cannot change what is proved; every other one (any Dafny 4 `@Attribute` too) makes the
declaration that carries it, or the declarations inside the class or module that carries it, a trusted axiom
(bot/symbolic/background.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.dafny.lexer import Token, TokKind

# name -> why it leaves every check in place (README, "What a verdict proves")
ALLOWED: dict[str, str] = {
    "trigger": "chooses the terms a quantifier is instantiated for: it changes what the prover finds, never what "
               "it assumes",
    "induction": "chooses the variables of a lemma's automatic induction, whose hypothesis Dafny proves (by "
                 "termination) before it uses it",
    "fuel": "how far a recursive function's definition is unfolded: fewer proofs may go through, none is assumed",
    "opaque": "hides a function's body until `reveal`: the function is still checked against its `ensures`",
    "timeLimit": "a time limit per procedure: a check that runs out is not concluded (no verdict), never passed",
    "timeLimitMultiplier": "the same, as a multiple of the run's limit",
    "split_here": "splits a proof obligation at this assertion: every part is still checked",
    "verify": "`{:verify true}` only, Dafny's default (`{:verify false}` skips the declaration)",
}
# attributes allowed only with these exact arguments
_ONLY_WITH: dict[str, tuple[str, ...]] = {"verify": ("true",)}
# `old@L`: a label, not a Dafny 4 attribute
_LABEL_WORDS = frozenset({"old", "unchanged", "fresh", "allocated"})


@dataclass(frozen=True)
class Attribute:
    name: str
    text: str  # as written, e.g. "{:verify false}", "@Verify(false)"
    line: int  # 1-based, of the text the tokens come from
    allowed: bool


def attributes(tokens: Sequence[Token], source: str) -> list[Attribute]:
    """Every `{:name args}` and Dafny 4 `@Name(args)` among `tokens` (significant tokens of `source`)."""
    out: list[Attribute] = []
    for i, t in enumerate(tokens):
        if t.text == "{:" and i + 1 < len(tokens):
            j, depth, args = i + 1, 0, []
            while j < len(tokens) and not (depth == 0 and tokens[j].text == "}"):
                if tokens[j].text in ("(", "[", "{", "{:"):
                    depth += 1
                elif tokens[j].text in (")", "]", "}"):
                    depth -= 1
                if j > i + 1:
                    args.append(tokens[j].text)
                j += 1
            end = tokens[j].end if j < len(tokens) else tokens[-1].end
            out.append(_attribute(tokens[i + 1].text, tuple(args), " ".join(source[t.start:end].split()), t.line))
        elif t.text == "@" and i + 1 < len(tokens) and tokens[i + 1].kind is TokKind.IDENT and not (
                i > 0 and tokens[i - 1].text in _LABEL_WORDS):
            out.append(Attribute(tokens[i + 1].text, "@" + tokens[i + 1].text, t.line, False))
    return out


def _attribute(name: str, args: tuple[str, ...], text: str, line: int) -> Attribute:
    allowed = name in ALLOWED and (name not in _ONLY_WITH or args == _ONLY_WITH[name])
    return Attribute(name, text, line, allowed)
