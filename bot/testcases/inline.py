"""The functions, predicates and constants a test file declares, read into the checks that use them. Pure code.

A check may call a function of the test file's own (`expect IsSq(4, r);`, `expect r == Sq(K);`). The harness
holds the spec files' declarations only, and a declaration it took from the test file would be one more thing its
verdicts rest on. So such a call is read as what the test computes: the function's body, its parameters bound to the
arguments by a let (`(var n, m := 4, r; m == (var n := n; n * n))`), so no argument is captured by a name of the
body; a constant as its initializer. What is read is exactly the formula the test checks at run time, and nothing
of the test file is trusted.

Only the plainest declarations are read (an allow-list): a function or predicate of the top level, declared once,
with a body and no contract (`requires`, `ensures`, `reads`, `decreases`), no attribute and no type parameters,
calling no function of the test file recursively; a constant of the top level declared once with an initializer.
Anything else the check calls leaves it unreadable, with the declaration and the reason named.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.expr import (
    Call,
    Expr,
    ExprError,
    Let,
    Name,
    bound_names,
    free_vars,
    map_children,
    parse_expr,
    subterms,
    unparse,
)
from bot.dafny.lexer import LexError, Token, TokKind, significant, tokenize

FUNCTION_KINDS = frozenset({"function", "function method", "predicate", "predicate method"})
MOST_INLINED = 64  # calls read in one check: a body that calls another function twice doubles them per level


class NotInlined(ValueError):
    """Why a check calling the test file's declarations is not read (the message names the declaration)."""


@dataclass(frozen=True)
class Inlined:
    text: str  # the check with every call of the test file's functions and use of its constants read in place
    names: tuple[str, ...]  # the declarations read into it, in order of first use


def follows_scopes(file: DafnyFile, tokens: Sequence[Token] | None = None) -> str:
    """Why the names of `file`'s top level are not known to be what its test methods mean ("" when they are): a
    module, class or trait (a test method in it sees its members, inherited ones too, and in a module none of the top
    level's declarations but an opened import's) or an import is not followed."""
    declared = (*file.decls, *file.others)
    for d in sorted(declared, key=lambda d: (not d.container, d.start)):
        if d.container:
            # a module's, a class's or a trait's members (inherited ones too) are what a name means inside it
            return (f"the test file declares {d.container.split('.')[0]} (line {d.line}): which declaration a name "
                    "means there is not followed")
    try:
        toks = tokens if tokens is not None else tokenize(file.source)  # the caller's, when it has them
    except LexError:
        return "the test file does not lex"
    if any(t.kind is TokKind.IDENT and t.text == "import" for t in toks):
        return "the test file imports modules: which declaration a name means there is not followed"
    return ""


def declared_counts(file: DafnyFile) -> dict[str, int]:
    """How many declarations of `file` (callables, constants, types, in any scope) have each name."""
    counts: dict[str, int] = {}
    for d in (*file.decls, *file.others):
        counts[d.name] = counts.get(d.name, 0) + 1
    return counts


def declared_names(file: DafnyFile) -> frozenset[str]:
    """Every name the test file declares: callables, constants, types."""
    return frozenset(d.name for d in (*file.decls, *file.others))


def inline_declared(text: str, file: DafnyFile, outputs: Collection[str] = ()) -> Inlined:
    """`text` (a check's formula, in the out-parameters' names `outputs`) with the test file's functions and
    constants read in place; NotInlined says which one cannot be, and why."""
    try:
        expr = parse_expr(text)
    except ExprError as e:
        raise NotInlined(f"it does not parse ({e})") from None
    reader = _Reader(file)
    clash = sorted(free_vars(expr) & set(outputs) & set(reader.counts))
    if clash:
        raise NotInlined(f"the output `{clash[0]}` has the name of a declaration of the test file")
    out = reader.expand(expr, ())
    # parenthesised when anything was read in place: a let's body reaches as far right as it can
    return Inlined(f"({unparse(out)})" if reader.used else text, tuple(reader.used))


class _Reader:
    def __init__(self, file: DafnyFile) -> None:
        self.file = file
        self.counts = declared_counts(file)
        self.functions = {d.name: d for d in file.decls if d.kind in FUNCTION_KINDS}
        self.constants = {d.name: d for d in file.others if d.kind == "const"}
        self.used: list[str] = []
        self.calls = 0

    def _declaration(self, name: str, d: Decl | None, what: str) -> Decl:
        if self.counts.get(name, 0) != 1 or d is None:
            many = self.counts.get(name, 0) > 1
            raise NotInlined(f"`{name}` is declared {'more than once' if many else 'there as no ' + what}: which "
                             "declaration it means is not followed")
        if d.container:
            raise NotInlined(f"`{name}` is declared inside {d.container}: only the top level's are read")
        if name not in self.used:
            self.used.append(name)
        return d

    def expand(self, e: Expr, stack: tuple[str, ...]) -> Expr:
        """`e` with each call of a test file's function and each of its constants read in place. A name the test
        file declares that `e` binds (a quantifier's, a let's) is refused: which one a use means is not followed."""
        for x in subterms(e):
            taken = sorted(set(bound_names(x)) & set(self.counts))
            if taken:
                raise NotInlined(f"it binds `{taken[0]}`, which the test file declares too")
        return self._walk(e, stack)

    def _walk(self, e: Expr, stack: tuple[str, ...]) -> Expr:
        if isinstance(e, Name) and e.name in self.counts:
            return self._constant(e.name, stack)
        if isinstance(e, Call) and e.name in self.counts:
            return self._call(e, stack)
        return map_children(e, lambda x: self._walk(x, stack))

    def _call(self, call: Call, stack: tuple[str, ...]) -> Expr:
        name = call.name
        d = self._declaration(name, self.functions.get(name), "function or predicate")
        if name in stack:
            raise NotInlined(f"`{name}` is recursive ({' -> '.join((*stack, name))}): only its body once is read")
        self.calls += 1
        if self.calls > MOST_INLINED:
            raise NotInlined(f"it uses the test file's functions and constants more than {MOST_INLINED} times, read "
                             "in place")
        header = self.file.source[d.start : d.body[0] if d.body else d.end]
        if d.body is None:
            raise NotInlined(f"`{name}` has no body: what it computes is not known")
        if d.clauses:
            raise NotInlined(f"`{name}` has a contract (`{d.clauses[0].kind}`): only a plain body is read")
        if d.generic:
            raise NotInlined(f"`{name}` has type parameters")
        if _has_attribute(header):
            raise NotInlined(f"`{name}` has an attribute: only a plain declaration is read")
        if len(call.args) != len(d.params):
            raise NotInlined(f"`{name}` is called with {len(call.args)} arguments, and it has {len(d.params)}")
        try:
            body = parse_expr(self.file.source[d.body[0] + 1 : d.body[1] - 1])
        except ExprError as e:
            raise NotInlined(f"the body of `{name}` is not read ({e})") from None
        params = tuple(p.name for p in d.params)
        for p in (*d.params, *d.returns):
            if not plain_type(p.type_text):
                raise NotInlined(f"`{name}` has the type `{p.type_text}`: {_PLAIN_ONLY}")
        typed = sorted({w for p in d.params for w in _words(p.type_text)} & set(self.counts))
        if typed:  # the let states each parameter's type, and the harness has none of the test file's
            raise NotInlined(f"a parameter of `{name}` has the type `{typed[0]}`, which the test file declares")
        taken = sorted(set(params) & set(self.counts))
        if taken:
            raise NotInlined(f"a parameter of `{name}` is named `{taken[0]}`, as a declaration of the test file is")
        stray = sorted(free_vars(body) - set(params) - set(self.constants))
        if stray:
            raise NotInlined(f"the body of `{name}` names `{stray[0]}`, which is none of its parameters")
        inner = self.expand(body, (*stack, name))
        args = tuple(self._walk(a, stack) for a in call.args)
        # each parameter with its declared type: an argument such as `[]` has none of its own
        return Let(params, args, inner, tuple(p.type_text for p in d.params)) if params else inner

    def _constant(self, name: str, stack: tuple[str, ...]) -> Expr:
        d = self._declaration(name, self.constants.get(name), "constant")
        self.calls += 1  # each use is its initializer again: `const C1 := C0 + C0` doubles per level, as calls do
        if self.calls > MOST_INLINED:
            raise NotInlined(f"it uses the test file's functions and constants more than {MOST_INLINED} times, read "
                             "in place")
        if name in stack:
            raise NotInlined(f"`{name}` is defined by itself ({' -> '.join((*stack, name))})")
        text = self.file.source[d.start : d.header_end]
        if _has_attribute(text):
            raise NotInlined(f"`{name}` has an attribute: only a plain declaration is read")
        initializer = constant_initializer(text)
        if initializer is None:
            raise NotInlined(f"`{name}` has no initializer: its value is not known")
        declared = constant_type(text)
        if declared is not None and not plain_type(declared):
            raise NotInlined(f"`{name}` has the type `{declared}`: {_PLAIN_ONLY}")
        try:
            value = parse_expr(initializer)
        except ExprError as e:
            raise NotInlined(f"the initializer of `{name}` is not read ({e})") from None
        stray = sorted(free_vars(value) - set(self.constants))
        if stray:
            raise NotInlined(f"the initializer of `{name}` names `{stray[0]}`")
        return self.expand(value, (*stack, name))


_PLAIN_ONLY = ("only int, real, bool, char, string and their collections are read in place (a subset type, newtype or "
               "bit-vector changes what a body computes, or whether it is defined)")
_PLAIN_TYPE_WORDS = frozenset({"int", "real", "bool", "char", "string", "seq", "set", "iset", "multiset", "map",
                               "imap"})


def plain_type(text: str) -> bool:
    """A type of the allow-list: int, real, bool, char, string, and sequences, sets, multisets and maps of them."""
    try:
        toks = significant(tokenize(text))
    except LexError:
        return False
    return bool(toks) and all(
        t.text in _PLAIN_TYPE_WORDS if t.kind is TokKind.IDENT else t.text in ("<", ">", ">>", ",") for t in toks)


def constant_type(text: str) -> str | None:
    """The declared type of `const K: T := E` (None for `const K := E`)."""
    try:
        toks = significant(tokenize(text))
    except LexError:
        return None
    colon = next((k for k, t in enumerate(toks) if t.text == ":"), -1)
    assign = next((k for k, t in enumerate(toks) if t.text == ":="), len(toks))
    if colon < 0 or colon > assign or colon + 1 >= assign:
        return None
    return text[toks[colon + 1].start : toks[assign - 1].end]


def _words(text: str) -> set[str]:
    try:
        return {t.text for t in significant(tokenize(text)) if t.kind is TokKind.IDENT}
    except LexError:
        return {text}


def _has_attribute(text: str) -> bool:
    try:
        return any(t.text == "{:" or t.text == "@" for t in significant(tokenize(text)))
    except LexError:
        return True


def constant_initializer(text: str) -> str | None:
    """The text after `:=` of `const K := E` (or `const K: T := E`), None when it has none."""
    try:
        toks = significant(tokenize(text))
    except LexError:
        return None
    at = next((k for k, t in enumerate(toks) if t.kind is TokKind.OP and t.text == ":="), -1)
    if at < 0 or at == len(toks) - 1:
        return None
    return text[toks[at + 1].start : toks[-1].end]
