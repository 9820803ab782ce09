"""Pairing the calls of the method under test with the expectations the test code states for them."""

from __future__ import annotations

import functools
import heapq
import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.dafny.decls import Decl
from bot.dafny.expr import Call, ExprError, bound_names, free_vars, parse_expr, subterms, unparse, unparse_operand
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, significant, tokenize
from bot.dafny.types import ArrayT, DafnyType, RealT
from bot.dafny.values import RealV, Value, placeholder
from bot.testcases.bindings import Binding, EvalError, environments, evaluate, modified_params
from bot.testcases.cases import UNCHECKED, TestCase, Tolerance, join_notes
from bot.testcases.helpers import Helpers
from bot.testcases.splitting import Call as CallText
from bot.testcases.splitting import (
    Stmt,
    StmtKind,
    call_of,
    calls,
    parse_statements,
    plain_var,
    short,
    slice_text,
    split_top,
    split_values,
    strip_parens,
    top_level_index,
    under,
)

# Operators binding more weakly than `==`: a condition using one is no plain equality.
_WEAKER_THAN_EQ = ("||", "==>", "<==", "<==>")


# words of a helper's name that say it compares less than equality (or the opposite of it)
_NOT_EQUALITY_WORDS = frozenset({"not", "approx", "approximately", "almost", "close", "near", "nearly", "roughly",
                                 "fuzzy", "similar", "set", "multiset", "perm", "permutation", "unordered"})


def name_words(name: str) -> list[str]:
    """The words of a camelCase or snake_case name, lower-cased: `assertArrayEquals` -> assert, array, equals."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return [w.lower() for w in re.split(r"[_\d']+", spaced) if w]


def is_equality_helper(name: str) -> bool:
    """`arrayEquals`, `assertArrayEquals`, `sequenceEquals`...: tests call them to compare two values. Not a name
    that says it compares less, or the opposite (`assertNotEquals`, `setEquals`, `approxEquals`)."""
    words = name_words(name)
    if len(words) == 1 and words[0].endswith("equals"):  # `arrayequals`: no word breaks to read
        return not words[0].startswith(("not", "approx", "almost", "set", "multiset", "perm", "unordered"))
    return bool(words) and words[-1] == "equals" and not _NOT_EQUALITY_WORDS & set(words)


@dataclass(frozen=True)
class ReadCall:
    """One call of the method under test with its inputs and the expectation found for it."""

    line: int  # line of the call
    inputs: tuple[Value, ...]
    expected: tuple[Value, ...]
    post: tuple[tuple[int, Value], ...]
    lines: tuple[int, ...]  # the case's source lines: definitions used, then the call to the expectation
    note: str = ""  # how the expectation was read, when not from a check (see TestCase.note)
    guessed: bool = False  # the expected value is inferred, not stated by a check (see TestCase.guessed)
    arrays: tuple[tuple[int, int, str], ...] | None = None  # see TestCase.arrays
    refs: tuple[tuple[int, int], ...] = ()  # see TestCase.refs
    tolerances: tuple[Tolerance, ...] = ()  # see TestCase.tolerances
    unchecked: tuple[int, ...] = ()  # see TestCase.unchecked
    property: str = ""  # see TestCase.property

    def case(self, name: str, method: str, source: str, line: int, text: str) -> TestCase:
        """The test case this call is, named and placed by its reader."""
        return TestCase(name=name, method=method, inputs=self.inputs, expected=self.expected, post=self.post,
                        source=source, line=line, text=text, note=self.note, guessed=self.guessed,
                        arrays=self.arrays, refs=self.refs, tolerances=self.tolerances,
                        unchecked=self.unchecked, property=self.property)


@dataclass(frozen=True)
class CallProblem:
    line: int
    reason: str
    checked: bool = False  # the test states a check of the call's results (one the readers could not use)


def equality_call(name: str, helpers: Helpers | None, stored: bool) -> bool:
    """Whether a call of `name` with two arguments states their equality. With the test file's `helpers`, only a
    helper it declares whose body is an equality (bot/testcases/helpers.py): a function (or a method with one bool
    result, `stored` in a variable) or, called as a statement, a method whose body is the check. Without them (a
    JSON or TOML case, which declares nothing), the name: `arrayEquals`, `sequenceEquals`."""
    if helpers is None:
        return is_equality_helper(name)
    return name in (helpers.comparing if stored else helpers.asserting)


def equalities(stmt: Stmt, helpers: Helpers | None = None) -> list[tuple[str, str]]:
    """The `a == b` facts a statement states: conditions joined by `&&`, `*Equals(a, b)` helpers."""
    return [pair for pairs in conjunct_equalities(stmt, helpers) for pair in pairs]


def conjunct_equalities(stmt: Stmt, helpers: Helpers | None = None) -> list[list[tuple[str, str]]]:
    """Per conjunct of a check, the `a == b` facts it states ([] for a conjunct that is no equality)."""
    if stmt.kind in (StmtKind.VAR, StmtKind.ASSIGN, StmtKind.CALL):
        stored = stmt.kind is not StmtKind.CALL
        call = stmt.call
        if (call is not None and (helpers is None or not call.qualifier) and equality_call(call.name, helpers, stored)
                and len(call.args) == 2):
            return [[(call.args[0], call.args[1])]]
        return []
    out: list[list[tuple[str, str]]] = []
    for conj in _conjuncts(stmt):
        out.append(_conjunct_pairs(conj, stmt, helpers))
    return out


def _unnegated(conj: list[Token]) -> tuple[list[Token], bool]:
    """`!(!(X))` -> (X, False); `!(X)` -> (X, True); anything else -> (conj, False): the negations of a conjunct
    peeled off in pairs, and whether one is left."""
    negated = False
    while True:
        compared = _compared_with_bool(conj)
        if compared is not None:
            conj, flip = compared
            negated = negated != flip
            continue
        if not (len(conj) >= 2 and conj[0].text == "!"):
            break
        inner = conj[1:]
        if inner[0].text == "(" and matching_close(inner, 0) == len(inner) - 1:
            inner = strip_parens(inner)
        elif not (len(inner) >= 2 and inner[0].text == "!"):
            break  # `!x`, `!f(x)`: a negated operand, not a negated comparison
        conj, negated = inner, not negated
    return conj, negated


def _compared_with_bool(conj: list[Token]) -> tuple[list[Token], bool] | None:
    """`(X) == true` / `true == (X)` -> (X, False); with `false`, or `!=`, -> (X, True): a parenthesized condition
    compared with a bool literal (`(r == 4) == true` is `r == 4`), else None."""
    if len(conj) < 5:
        return None
    for group, op, literal in ((conj[:-2], conj[-2], conj[-1]), (conj[2:], conj[1], conj[0])):
        if (op.text in ("==", "!=") and literal.text in ("true", "false") and group[0].text == "("
                and matching_close(group, 0) == len(group) - 1):
            return strip_parens(group), (op.text == "!=") != (literal.text == "false")
    return None


_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "in", "!in")


def _one_comparison(conj: list[Token], op: str) -> int:
    """The index of `op` when it is the conjunct's only top-level comparison (Dafny chains `a == b == c` into
    `a == b && b == c`: no single equality), else -1."""
    k = top_level_index(conj, op)
    if k <= 0 or k == len(conj) - 1:
        return -1
    for other in _COMPARISONS:
        if top_level_index(conj[k + 1 :], other) >= 0 or (other != op and top_level_index(conj[:k], other) >= 0):
            return -1
    return k


def _conjunct_pairs(conj: list[Token], stmt: Stmt, helpers: Helpers | None = None) -> list[tuple[str, str]]:
    if not conj or any(top_level_index(conj, op) >= 0 for op in _WEAKER_THAN_EQ):
        return []  # `r == a || r == b` states no single value
    conj, negated = _unnegated(conj)
    if any(top_level_index(conj, op) >= 0 for op in (*_WEAKER_THAN_EQ, "&&")):
        return []  # `!(r != a && ..)`: no single equality either
    if negated:
        # `!(r != E)` is `r == E`; `!(r == E)` states no value
        ne = _one_comparison(conj, "!=")
        if ne > 0:
            return [(slice_text(conj[:ne], stmt.expr), slice_text(conj[ne + 1 :], stmt.expr))]
        if len(conj) == 1 and conj[0].kind is TokKind.IDENT:
            return [(conj[0].text, "false")]
        if len(conj) == 2 and conj[0].text == "!" and conj[1].kind is TokKind.IDENT:
            return [(conj[1].text, "true")]  # `!(!ok)`
        return []
    eq = top_level_index(conj, "==")
    if eq > 0 and _one_comparison(conj, "==") < 0:
        return []  # `r == E == true` is `r == E && E == true`: not one equality
    if eq > 0:
        pairs = _display_pairs(conj[:eq], conj[eq + 1 :])
        # `[s, p] == [0, 1]` (or tuples): two outputs compared as one collection, an equality per element
        if pairs:
            return [(slice_text(a, stmt.expr), slice_text(b, stmt.expr)) for a, b in pairs]
        return [(slice_text(conj[:eq], stmt.expr), slice_text(conj[eq + 1 :], stmt.expr))]
    call = call_of(conj, stmt.expr)
    if (call is not None and (helpers is None or not call.qualifier) and equality_call(call.name, helpers, True)
            and len(call.args) == 2):
        return [(call.args[0], call.args[1])]
    if len(conj) == 1 and conj[0].kind is TokKind.IDENT:
        return [(conj[0].text, "true")]  # `assert ok;`
    if len(conj) == 2 and conj[0].text == "!" and conj[1].kind is TokKind.IDENT:
        return [(conj[1].text, "false")]
    return []


@dataclass(frozen=True)
class ToleranceFact:
    """`abs(a - b) < e` (or `<=`), as a check states it: a, b and e as written, and the conjuncts it takes."""

    a: str
    b: str
    bound: str
    strict: bool
    conjuncts: tuple[int, ...]  # indexes in _conjuncts(stmt)


def tolerances(stmt: Stmt, helpers: Helpers | None = None) -> list[ToleranceFact]:
    """The tolerance facts a check states, each exactly (strict `<` or `<=`): `abs(a - b) < e` and `e > abs(a - b)`
    with `abs` a function of the test file whose body is the absolute value (a name is no evidence: without the
    file's helpers, none is), `a - b < e && b - a < e`, and `-e < a - b < e`. Anything else is no tolerance."""
    out: list[ToleranceFact] = []
    diffs: dict[tuple[str, str], tuple[str, bool, int]] = {}  # `a - b < e`, waiting for `b - a < e`
    for k, conj in enumerate(_conjuncts(stmt)):
        if any(top_level_index(conj, op) >= 0 for op in _WEAKER_THAN_EQ):
            continue  # `abs(r - x) < e || ...` states no tolerance of its own
        chained = _chained(conj, stmt.expr)
        if chained is not None:
            a, b, e, strict = chained
            out.append(ToleranceFact(a, b, e, strict, (k,)))
            continue
        bound = _bounded(conj)
        if bound is None:
            continue
        inside, e_toks, strict = bound
        e = slice_text(e_toks, stmt.expr)
        call = call_of(inside, stmt.expr)
        if call is not None:
            if helpers is not None and not call.qualifier and helpers.is_absolute(call.name) and len(call.args) == 1:
                try:
                    arg = [t for t in tokenize(call.args[0]) if t.kind is not TokKind.COMMENT]
                except LexError:
                    continue
                diff = _difference(strip_parens(arg), call.args[0])
                if diff is not None:
                    out.append(ToleranceFact(*diff, e, strict, (k,)))
            continue
        diff = _difference(strip_parens(inside), stmt.expr)
        if diff is not None:
            a, b = diff
            other = diffs.get((b, a))
            if other is not None and other[:2] == (e, strict):
                out.append(ToleranceFact(a, b, e, strict, (other[2], k)))
            diffs[(a, b)] = (e, strict, k)
    return out


def _chained(conj: list[Token], source: str) -> tuple[str, str, str, bool] | None:
    """`-e < a - b < e` (both `<`, or both `<=`) -> (a, b, e, strict)."""
    for op in ("<", "<="):
        parts = split_top(conj, op)
        if len(parts) != 3 or any(not p for p in parts):
            continue
        low, mid, high = parts
        if any(top_level_index(p, c) >= 0 for p in parts for c in _COMPARISONS):
            return None
        if [t.text for t in low] not in (["-", *(t.text for t in high)], ["-", "(", *(t.text for t in high), ")"]):
            return None
        diff = _difference(strip_parens(mid), source)
        if diff is None:
            return None
        return (*diff, slice_text(high, source), op == "<")
    return None


def _conjuncts(stmt: Stmt) -> list[list[Token]]:
    """The `&&`-joined parts of a check's condition (an `assert` or `expect`), each without outer parentheses."""
    if stmt.kind not in (StmtKind.ASSERT, StmtKind.EXPECT):
        return []
    try:
        toks = [t for t in tokenize(stmt.expr) if t.kind is not TokKind.COMMENT]
    except LexError:
        return []
    return [strip_parens(part) for part in split_top(strip_parens(toks), "&&")]


def _bounded(conj: list[Token]) -> tuple[list[Token], list[Token], bool] | None:
    """`X < e` / `X <= e` / `e > X` / `e >= X`, the conjunct's one comparison -> (X, e, strict)."""
    found = [(op, top_level_index(conj, op)) for op in _COMPARISONS if top_level_index(conj, op) >= 0]
    if len(found) != 1 or found[0][0] not in ("<", "<=", ">", ">="):
        return None
    op, k = found[0]
    if k <= 0 or k >= len(conj) - 1 or top_level_index(conj[k + 1 :], op) >= 0:
        return None
    left, right = conj[:k], conj[k + 1 :]
    return (right, left, op == ">") if op in (">", ">=") else (left, right, op == "<")


def _difference(toks: list[Token], source: str) -> tuple[str, str] | None:
    """`a - b` at the top level (one minus, not unary) -> (a, b)."""
    k = top_level_index(toks, "-")
    if k <= 0 or top_level_index(toks[k + 1 :], "-") >= 0 or top_level_index(toks, "+") >= 0:
        return None
    return slice_text(toks[:k], source), slice_text(toks[k + 1 :], source)


def _display_pairs(left: list[Token], right: list[Token]) -> list[tuple[list[Token], list[Token]]]:
    """The element pairs of two sequence (or tuple) displays of one length, or [] when either side is none."""
    sides = []
    for toks in (left, right):
        if len(toks) < 3 or toks[0].text not in ("[", "(") or matching_close(toks, 0) != len(toks) - 1:
            return []
        sides.append((toks[0].text, split_top(toks[1:-1], ",")))
    (lk, la), (rk, ra) = sides
    if lk != rk or len(la) != len(ra) or len(la) < 2 or any(not part for part in la + ra):
        return []
    return list(zip(la, ra, strict=True))


@functools.lru_cache(maxsize=8192)  # each statement's names are asked again for every call read before it
def _text_names(text: str) -> frozenset[str]:
    try:
        return _token_names(tokenize(text))
    except LexError:
        return frozenset()


def _token_names(toks: Sequence[Token]) -> frozenset[str]:
    return frozenset(t.text for t in toks if t.kind is TokKind.IDENT)


def _mentioned(stmt: Stmt) -> frozenset[str]:
    """The identifiers a statement mentions: in its value, condition or call (a VAR's own name is no
    mention) or, when it has none, anywhere in its text; an assertion's proof too (`assert true by { assert r == 3; }`
    checks `r`: see _in_proof)."""
    names = _text_names(stmt.expr or stmt.text)
    return names | _text_names(stmt.text) if stmt.kind is StmtKind.ASSERT else names


def _in_proof(s: Stmt, name: str) -> bool:
    """`s` is an assertion whose proof (`by { .. }`) names `name`: a check the reader does not read (`assert r == 5 by
    { assert r == 3; }`)."""
    if s.kind is not StmtKind.ASSERT or name not in _text_names(s.text):
        return False
    at = s.text.find(s.expr) if s.expr else -1
    return at < 0 or name in _text_names(s.text[at + len(s.expr):])


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
    helpers: Helpers | None = None  # the test file's helpers, read by their bodies (None: a JSON or TOML case)

    @staticmethod
    def of(stmts: Sequence[Stmt], call_at: Sequence[int], envs: Sequence[Mapping[str, Binding]],
           helpers: Helpers | None = None) -> _Scan:
        mentions = [_mentioned(s) for s in stmts]
        last: dict[str, int] = {}
        touches: dict[str, list[int]] = {}
        for j, (s, names) in enumerate(zip(stmts, mentions, strict=True)):
            for name in names:
                last[name] = j
            for name in names | set(s.targets):
                touches.setdefault(name, []).append(j)
        return _Scan(stmts, call_at, frozenset(call_at), envs, mentions, last, touches, helpers)

    def touching(self, names: Collection[str], start: int) -> Iterator[int]:
        """Indexes from `start` on of the statements mentioning or assigning any of names, in order."""
        runs = [_from(self.touches.get(name, ()), start) for name in names]
        last = -1
        for j in heapq.merge(*runs):
            if j != last:
                yield j
            last = j


@dataclass(frozen=True)
class _Expectation:
    text: str  # the value's expression
    line: int
    env_at: int  # index of the statement whose environment evaluates the text
    problem: str = ""
    whole: bool = False  # the check names the variable itself (`r == a`), not its contents (`r[..] == ..`)
    tolerance: str = ""  # the test's own tolerance (`abs(r - x) < e`): the text of e
    strict: bool = True  # that tolerance is `< e` (else `<= e`)


def read_calls(
    stmts: Sequence[Stmt],
    callees: Collection[str],
    target: Decl,
    where: Callable[[int], str],
    qualifiers: Collection[str] | None = None,
    quiet: Collection[str] = frozenset(),
    hidden: Collection[str] = frozenset(),
    helpers: Helpers | None = None,
    constants: Mapping[str, Binding] | None = None,
) -> list[ReadCall | CallProblem]:
    """Each call of `callees` in stmts, read as a test of `target`, in order.

    `where(line)` words a line for messages ("line 14", "line 2 of the case"). With `qualifiers`, only
    calls written with one of them count (`A` for `A.Add(..)`, "" for a plain `Add(..)`): how same-named
    methods of different modules are told apart. `quiet` names callables known to change no array they are
    given; an array passed to any other after the call is no longer known to be the call's output. `helpers`: the
    test file's own (bot/testcases/helpers.py), read by their bodies; None for cases that declare none.
    """
    if target.tested_function:
        stmts = _direct_checks(stmts, callees)
    envs = environments(stmts, callees, target, where, quiet, hidden, constants)
    call_at = [
        k for k, s in enumerate(stmts)
        if calls(s, callees) and (qualifiers is None or (s.call is not None and s.call.qualifier in qualifiers))
    ]
    if not call_at:
        return []
    if helpers is not None:
        # a local variable of the test named like a helper (`var abs := (x: real) => x;`) is what a call reaches
        helpers = helpers.without({name for st in stmts for name in st.targets})
    scan = _Scan.of(stmts, call_at, envs, helpers)
    return [_read_call(scan, k, target, where, frozenset(quiet)) for k in call_at]


def _direct_checks(stmts: Sequence[Stmt], callees: Collection[str]) -> list[Stmt]:
    """A check that calls a tested function itself (`expect Fact(3) == 6;`, `assert 6 == Fact(3);`,
    `expect IsPal("aba");`, `expect !IsPal("ab");`) read as the call into a variable of its own, then the check of
    that variable, both on the check's line: the form the readers follow (`var v := Fact(3); expect v == 6;`)."""
    taken: set[str] = {name for s in stmts for name in (*s.targets, *_mentioned(s))}
    out: list[Stmt] = []
    for s in stmts:
        split = None if s.commented or s.kind not in (StmtKind.ASSERT, StmtKind.EXPECT) else _split_direct(s, callees)
        if split is None:
            out.append(s)
            continue
        call, before, after = split
        name = _fresh_name(f"{call.name}_result", taken)
        taken.add(name)
        qualified = f"{call.qualifier}.{call.name}" if call.qualifier else call.name
        keyword = "assert" if s.kind is StmtKind.ASSERT else "expect"
        try:
            made = parse_statements(f"var {name} := {qualified}({', '.join(call.args)});\n"
                                    f"{keyword} {before}{name}{after};\n")
        except LexError:
            out.append(s)
            continue
        out += [replace(m, line=s.line, end_line=s.end_line, scope=s.scope, cond=s.cond, problem=s.problem)
                for m in made]
    return out


def _split_direct(s: Stmt, callees: Collection[str]) -> tuple[CallText, str, str] | None:
    """The call of a callee a check is about, and the check's text before and after it: `F(..) == E`, `E == F(..)`,
    `F(..)` or `!F(..)`, the whole check (a call inside a larger expression is not split off)."""
    try:
        toks = strip_parens([t for t in tokenize(s.expr) if t.kind is not TokKind.COMMENT])
    except LexError:
        return None
    if any(top_level_index(toks, op) >= 0 for op in (*_WEAKER_THAN_EQ, "&&")):
        return None
    # `!(F(..) != E)` is `F(..) == E`, `!(!F(..))` is `F(..)`
    toks, flipped = _unnegated(toks)
    if any(top_level_index(toks, op) >= 0 for op in (*_WEAKER_THAN_EQ, "&&")):
        return None
    eq = _one_comparison(toks, "!=" if flipped else "==")
    if eq < 0 and any(top_level_index(toks, op) >= 0 for op in ("==", "!=")):
        return None  # `!(F(..) == E)`, `F(..) != E`, a chain: no value
    if eq > 0:
        for part, other, left in ((toks[:eq], toks[eq + 1 :], True), (toks[eq + 1 :], toks[:eq], False)):
            call = call_of(strip_parens(part), s.expr)
            if call is not None and call.name in callees and not _token_names(other) & set(callees):
                rest = slice_text(other, s.expr)
                return (call, "", f" == {rest}") if left else (call, f"{rest} == ", "")
        return None
    bang = bool(toks) and toks[0].text == "!"
    negated = bang != flipped
    call = call_of(strip_parens(toks[1:] if bang else toks), s.expr)
    if call is None or call.name not in callees:
        return None
    return call, "!" if negated else "", ""


def _fresh_name(base: str, taken: Collection[str]) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


def _read_call(
    scan: _Scan, k: int, target: Decl, where: Callable[[int], str], quiet: frozenset[str] = frozenset()
) -> ReadCall | CallProblem:
    stmts, envs = scan.stmts, scan.envs
    s = stmts[k]
    call = s.call
    if call is None:  # read_calls only passes calls
        return CallProblem(s.line, f"{where(s.line)}: not a call")
    at = where(s.line)
    if s.problem:
        return CallProblem(s.line, f"{at}: {s.problem}")
    if s.cond:
        return CallProblem(s.line, f"{at}: the call is {under(s.cond)}: whether and how it runs is not followed")
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
                f"{at}: cannot evaluate argument {i + 1} `{short(arg)}` "
                f"({param.name}: {param.type_text}): {e}",
            )
        inputs.append(v)
        lines |= used
    # what to look for: the result variables, and the arrays the method changes
    watch: dict[str, tuple[str, int]] = {name: ("out", i) for i, name in enumerate(outs)}
    changed = modified_params(target)
    for i in changed:
        name = plain_var(call.args[i])
        if name is not None and name not in watch:
            watch[name] = ("post", i)
    arrays = frozenset(name for name, (role, i) in watch.items()
                       if role == "post" or isinstance(target.returns[i].type, ArrayT))
    checks: list[tuple[str, int, str, bool]] = []
    found, note = _find_expectations(scan, k, watch, len(outs), len(changed), arrays, quiet, checks)
    stated = bool(found or checks)  # some check of the results is written, read or not
    missing = [name for name in outs if name not in found]
    taken = ""
    if len(missing) == 1 and not note and not stated:
        # no check at all (a check the test states, `expect r != e;`, is never replaced by a guess): perhaps the
        # expected value sits unused in a variable declared before the call
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
    unchecked: list[int] = []
    partial = ""
    local = frozenset(name for st in scan.stmts for name in st.targets)
    if scan.helpers is not None:
        local |= scan.helpers.shadowed
    prop, prop_note, prop_lines = _property(checks, outs, found, target, local)
    if prop_note:
        # a check the test states and the tool cannot read: never dropped, the case is not read
        return CallProblem(s.line, f"no expected value found for the call at {at} ({prop_note})", checked=stated)
    if prop and any(name not in found for name in outs):
        unread = _unread_property_mentions(scan, k, [n for n in outs if n not in found], checks, where)
        if unread:
            # a statement says more of an output read only by its properties: never dropped, the case is not read
            return CallProblem(s.line, f"no expected value found for the call at {at} ({unread})", checked=stated)
        # a property expectation (`expect |v| == 3;`): the outputs it is about are any value the spec admits that
        # satisfies it
        unchecked = [i for i, name in enumerate(outs) if name not in found]
        lacking = ", ".join(f"`{target.returns[i].name}`" for i in unchecked)
        verb = "is" if len(unchecked) == 1 else "are"
        partial = (f"{lacking} {verb} {UNCHECKED} that has the property "
                   f"`{short(prop)}` (a property expectation, not a value: no mutants of {lacking})")
    elif found and any(name not in found for name in outs):
        # a partial expectation: the test checks some outputs only; the others are any value the spec admits
        unchecked = [i for i, name in enumerate(outs) if name not in found]
        lacking = ", ".join(f"`{target.returns[i].name}`" for i in unchecked)
        verb = "is" if len(unchecked) == 1 else "are"
        partial = f"{lacking} {verb} {UNCHECKED}" + (
            f" ({note})" if note else "")
    elif any(name not in found for name in outs) or not found:
        note = note or _unused_hint(scan, k)
        why = f" ({note})" if note else ""
        return CallProblem(s.line, f"no expected value found for the call at {at}{why}", checked=stated)
    expected: list[Value] = []
    post: list[tuple[int, Value]] = []
    refs: list[tuple[int, int]] = []
    tolerances: list[Tolerance] = []
    last = s.end_line
    for name, (role, i) in watch.items():
        exp = found.get(name)
        if exp is None:
            if role == "out" and i in unchecked:
                expected.append(placeholder(target.returns[i].type))
            continue
        if exp.problem:
            return CallProblem(s.line, f"{where(exp.line)}: {exp.problem}", checked=stated)
        param = target.returns[i] if role == "out" else target.params[i]
        other = plain_var(exp.text) if exp.whole and exp.text.strip().isidentifier() else None
        other_bound = envs[exp.env_at].get(other) if other is not None else None
        if other_bound is not None and not other_bound.error and not other_bound.text.startswith("new "):
            other = None  # a sequence or other value: compared by value
        fresh = exp.whole and exp.text.strip().startswith("new ")
        if isinstance(param.type, ArrayT) and (fresh or (role == "post" and other is not None)):
            # `r == new int[] [1, 2]`, or an array changed in place `== b` of another new array: Dafny compares
            # arrays by reference, so the check is false whatever the contents (read by value, it would not be)
            shown = short(exp.text) if fresh else other
            return CallProblem(s.line, f"{where(exp.line)}: `{name} == {shown}` compares arrays by reference, and a "
                                       f"new array is never `{name}`: compare contents (`{name}[..] == ..`) to state "
                                       "the elements", checked=stated)
        if role == "out" and isinstance(param.type, ArrayT) and other is not None:
            # `r == a` on arrays is Dafny's reference equality: the test says `r` is that very array
            given = [j for j, arg in enumerate(call.args) if plain_var(arg) == other and arg.strip() == other
                     and isinstance(target.params[j].type, ArrayT)]
            if not given:
                return CallProblem(s.line, f"{where(exp.line)}: `{name} == {other}` compares arrays by reference, "
                                           f"and `{other}` is no array the call was given: compare contents "
                                           f"(`{name}[..] == {other}[..]`) to state the output's elements",
                                   checked=stated)
            refs.append((i, given[0]))
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
                f"`{short(exp.text)}` of {what} as {param.type_text}: {e}", checked=stated)
        lines |= used
        if exp.tolerance:
            if not isinstance(param.type, RealT) or not isinstance(v, RealV):
                return CallProblem(s.line, f"{where(exp.line)}: a tolerance (`{short(exp.tolerance)}`) for "
                                           f"`{name}`, which is no real", checked=stated)
            try:
                eps, _ = evaluate(exp.tolerance, RealT(), envs[exp.env_at])
            except EvalError as err:
                return CallProblem(s.line, f"{where(exp.line)}: cannot read the tolerance "
                                           f"`{short(exp.tolerance)}` as a real: {err}", checked=stated)
            assert isinstance(eps, RealV)
            if eps.v <= 0:
                return CallProblem(s.line, f"{where(exp.line)}: the tolerance `{short(exp.tolerance)}` is not "
                                           "positive", checked=stated)
            further = _further_checks(scan, k, name, exp, where)
            if further:
                return CallProblem(s.line, further, checked=stated)
            tolerances.append(Tolerance(i, eps.v, exp.strict))
        elif not (taken and name in missing):
            again = _checked_again(scan, k, name, exp, where)
            if again:
                return CallProblem(s.line, again, checked=stated)
        if not taken or name not in missing:
            last = max(last, exp.line)
        if role == "out":
            expected.append(v)
        else:
            post.append((i, v))
    if tolerances and (unchecked or post):
        # within a tolerance the expected value's rejection proves nothing, and the search for an accepted value
        # within it does not also find the unchecked outputs or the arrays' states: such a case is not read
        what = (f"`{target.returns[unchecked[0]].name}` is not checked" if unchecked
                else f"the call changes `{target.params[post[0][0]].name}`")
        return CallProblem(s.line, f"{at}: a real output compared within a tolerance, and {what}: not supported in "
                                   "one case", checked=stated)
    last = max([last, *prop_lines])
    lines |= set(range(s.line, last + 1))
    return ReadCall(
        s.line,
        tuple(inputs),
        tuple(expected),
        tuple(sorted(post, key=lambda p: p[0])),
        tuple(sorted(lines)),
        join_notes(taken, partial),
        bool(taken),
        _array_identities(scan, k, target),
        tuple(refs),
        tuple(sorted(tolerances, key=lambda t: t.output)),
        tuple(unchecked),
        prop,
    )


def _further_checks(scan: _Scan, k: int, name: str, exp: _Expectation, where: Callable[[int], str]) -> str:
    """Why the case is not read when its output `name`, compared within a tolerance by the check at `exp`, is named
    anywhere else after the call before it is assigned again ("" when it is not): another conjunct of that check, a
    later check (`expect r < 1.05;`), a second tolerance, a helper it is passed to, a variable computed from it.
    Each of those says more of the output than the tolerance; none is dropped, and carrying them with it is not
    supported."""
    tolerance_stmt = scan.stmts[exp.env_at]
    extra = [conj for conj in _conjuncts(tolerance_stmt) if name in _token_names(conj)]
    if len(extra) > (2 if _two_sided(tolerance_stmt, name) else 1):
        return (f"{where(exp.line)}: `{short(tolerance_stmt.text)}` states more of `{name}` than its tolerance: a "
                "tolerance is read only as the one check of its output")
    for j in _after_call(scan, k, name):
        s = scan.stmts[j]
        if j == exp.env_at or s.commented or s.kind is StmtKind.PRINT or _idle_head(scan, j):
            continue
        if name in scan.mentions[j]:
            return (f"{where(s.line)}: `{short(s.text)}` also names `{name}`, compared within a tolerance at "
                    f"line {exp.line}: a tolerance is read only as the one check of its output")
        if name in s.targets:
            break  # assigned again: a later mention is of another value
    return ""


def _after_call(scan: _Scan, k: int, name: str) -> Iterator[int]:
    """The statements after the call stmts[k] that mention or assign `name`, while `name` is the call's result's
    variable: up to the end of the block that declares it (after it, the name is another variable)."""
    at_call = scan.stmts[k]
    own = at_call.scope if at_call.kind is StmtKind.VAR else ()
    for j in scan.touching([name], k + 1):
        if own and scan.stmts[j].scope[: len(own)] != own:
            return
        yield j


def _checked_again(scan: _Scan, k: int, name: str, exp: _Expectation, where: Callable[[int], str]) -> str:
    """Why the case is not read when its output `name`, given the value `exp.text` by a check, is checked again after
    the call ("" when it is not, or only by the same equality again): `expect r == 5; expect r > 9;`,
    `expect r == 5 && r == 6;`, or a variable computed from it (`var d := r + 1;`). With such a check the test may
    pass for no output at all; the reader does not decide whether all of them hold at the value, so the case is not
    read, rather than read with a check dropped."""
    value = exp.text.strip()
    for j in _after_call(scan, k, name):
        s = scan.stmts[j]
        if s.commented or s.kind in (StmtKind.PRINT, StmtKind.EXPECTED_COMMENT):
            continue
        # a check naming it, a value computed from it, or a method given it (which may check it: `Check(r);` with
        # `expect v == 3;` in its body); not another call of the method under test given it: what is checked of
        # that call is its own result
        checkless = _checkless_call(s, scan.helpers) or _idle_head(scan, j)
        if (name in scan.mentions[j] and j not in scan.calls and not checkless
                and (_in_proof(s, name) or not _same_equality(s, name, value, scan.helpers))):
            what = ("a value computed from it" if s.kind in (StmtKind.VAR, StmtKind.ASSIGN)
                    else "a call given it, whose checks are not read" if s.kind is StmtKind.CALL else "a further check")
            return (f"{where(s.line)}: `{short(s.text)}` is {what} of `{name}`, given the value "
                    f"`{short(value)}` at line {exp.line}: every check of an output is read, or none")
        if name in s.targets or name in s.changes:
            break  # assigned again (or changed): a later mention is of another value
    return ""


def _unread_property_mentions(scan: _Scan, k: int, names: Sequence[str], checks: Sequence[tuple[str, int, str, bool]],
                              where: Callable[[int], str]) -> str:
    """Why a case whose outputs `names` are read only by their properties (`checks`) is not read ("" when it is):
    a statement after the call that names one and is no check read as a property (`var s := r; expect s == 3;`,
    `if r > 0 { expect r == 3; }`, `Check(r);`, `var b := r == 3; expect b;`) says more of it than the property."""
    read = {(line, text) for _, line, text, _ in checks}
    for name in names:
        for j in _after_call(scan, k, name):
            s = scan.stmts[j]
            if (s.commented or s.kind in (StmtKind.PRINT, StmtKind.EXPECTED_COMMENT) or j in scan.calls
                    or _checkless_call(s, scan.helpers) or _idle_head(scan, j)):
                continue
            if name in scan.mentions[j] and (_in_proof(s, name) or not (
                    s.kind in (StmtKind.ASSERT, StmtKind.EXPECT) and not s.cond and (s.line, s.text) in read)):
                return (f"{where(s.line)}: `{short(s.text)}` names `{name}`, which only properties check: every "
                        "check of an output is read, or none")
            if name in s.targets or name in s.changes:
                break
    return ""


def _idle_head(scan: _Scan, j: int) -> bool:
    """stmts[j] is the head of an `if` whose block only prints and that has no `else` (`if s > 100 { print s; }`):
    whatever its condition, it checks nothing. Any other head (`if r == 5 { expect false; }`, a loop, a `match`)
    may check what its condition names."""
    head = scan.stmts[j]
    if head.kind is not StmtKind.OTHER or not head.text.startswith("if") or head.text[2:3].isalnum():
        return False
    k = j + 1
    while k < len(scan.stmts) and len(scan.stmts[k].scope) > len(head.scope):
        if not (scan.stmts[k].commented or scan.stmts[k].kind is StmtKind.PRINT):
            return False
        k += 1
    return not (k < len(scan.stmts) and scan.stmts[k].text.startswith("else"))


def _checkless_call(s: Stmt, helpers: Helpers | None) -> bool:
    """`s` calls, unqualified, a method of the test file whose body checks nothing (`PrintArray(r);`)."""
    return (s.kind is StmtKind.CALL and s.call is not None and not s.call.qualifier and helpers is not None
            and s.call.name in helpers.checkless)


def _same_equality(s: Stmt, name: str, value: str, helpers: Helpers | None) -> bool:
    """Every part of `s` that names `name` is `name == value` again, as written (`assert r == 5;` after
    `expect r == 5;`, or the check that gave the value)."""
    if s.kind in (StmtKind.ASSERT, StmtKind.EXPECT):
        parts = list(zip(_conjuncts(s), conjunct_equalities(s, helpers), strict=True))
    else:
        try:
            toks = tokenize(s.expr) if s.expr else []
        except LexError:
            return False
        parts = [(toks, pairs) for pairs in conjunct_equalities(s, helpers)]
        if not parts:
            return False  # `var d := r + 1;`: no equality at all
    for conj, pairs in parts:
        if name not in _token_names(conj) and not any(name in _text_names(a) | _text_names(b) for a, b in pairs):
            continue
        if not pairs:
            return False
        for a, b in pairs:
            if name in _text_names(a) | _text_names(b) and not (
                    (plain_var(a) == name and b.strip() == value) or (plain_var(b) == name and a.strip() == value)):
                return False
    return True


def _two_sided(stmt: Stmt, name: str) -> bool:
    """The check states `name`'s tolerance in two conjuncts (`r - x < e && x - r < e`)."""
    return any(len(f.conjuncts) == 2 and name in (f.a.strip(), f.b.strip()) for f in tolerances(stmt, None))


def called_names(text: str) -> frozenset[str]:
    """The functions an expression calls (none when it does not parse)."""
    try:
        e = parse_expr(text)
    except ExprError:
        return frozenset()
    return frozenset(x.name for x in subterms(e) if isinstance(x, Call))


def _property(
    checks: Sequence[tuple[str, int, str, bool]], outs: Sequence[str], found: Mapping[str, _Expectation],
    target: Decl, local: frozenset[str] = frozenset(),
) -> tuple[str, str, list[int]]:
    """The checks of the outputs that are properties (`|v| == 3`, `IsSorted(v)`), joined and written in the
    method's own out-parameter names; a note when one cannot be used (it names other variables of the test), and
    the lines of those used."""
    texts: list[str] = []
    lines: list[int] = []
    names = {name: target.returns[i].name for i, name in enumerate(outs)}
    missing = {name for name in outs if name not in found}
    for text, line, written, stale in checks:
        said = f"`{short(written)}` at line {line} is not an equality with a value"
        if stale and _text_names(text) & missing:
            # it names a result assigned again (or changed) after the call: about the call's outputs only in part
            return "", f"{said} (it names a result no longer the call's)", []
        try:
            e = parse_expr(text)
        except ExprError:
            if _text_names(text) & missing:
                return "", said, []
            continue
        if not free_vars(e) & missing:
            # about outputs the test gives a value of: true or false of those values whatever the spec says, so
            # it changes no verdict about the spec (a check that contradicts them is the test's own fault)
            continue
        others = sorted(free_vars(e) - set(names))
        if others:
            return "", f"{said} (it names `{others[0]}`, not only the results)", []
        shadowing = sorted(called_names(text) & local)
        if shadowing:
            # `var abs := (x: real) => x; .. expect abs(r - 1.0) < 0.1;`: the call reaches the test's variable, which
            # the harness does not have (it would reach a function of that name instead)
            return "", f"{said} (it calls `{shadowing[0]}`, a variable of the test)", []
        renamed = {a: b for a, b in names.items() if a != b}
        if set(renamed.values()) & {name for x in subterms(e) for name in bound_names(x)}:
            # `exists r :: r == x + 1` with `x` the test's name of out-parameter `r`: renaming would capture it
            return "", f"{said} (its bound variables clash with the method's out-parameter names)", []
        texts.append(unparse_operand(e, names) if len(checks) > 1 else unparse(e, names))
        lines.append(line)
    return " && ".join(texts), "", lines


def _array_identities(scan: _Scan, k: int, target: Decl) -> tuple[tuple[int, int, str], ...]:
    """For each pair of array parameters of one type: whether the call passes them the same array ("same": one
    variable twice), arrays the test allocated apart ("distinct": each argument a `new` array or a variable last
    bound to one), or arrays it does not tell apart ("unknown": e.g. `var b := a;`)."""
    call = scan.stmts[k].call
    assert call is not None
    arrays = [i for i, p in enumerate(target.params) if isinstance(p.type, ArrayT)]

    def fresh(arg: str) -> bool:
        """A `new` array: written here, or the value of a variable bound to one (a copy, `var b := a;`, is no
        longer bound to a value, see bot/testcases/bindings.py)."""
        text = arg.strip()
        if text.startswith("new "):
            return True
        name = plain_var(text)
        bound = scan.envs[k].get(name) if name is not None else None
        return bound is not None and not bound.error and bound.text.startswith("new ")

    out = []
    for n, i in enumerate(arrays):
        for j in arrays[n + 1 :]:
            if target.params[i].type != target.params[j].type:
                continue
            a, b = call.args[i].strip(), call.args[j].strip()
            if plain_var(a) is not None and a == b:
                out.append((i, j, "same"))
            elif fresh(a) and fresh(b):
                out.append((i, j, "distinct"))
            else:
                out.append((i, j, "unknown"))
    return tuple(out)


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
    arrays: frozenset[str] = frozenset(),
    quiet: frozenset[str] = frozenset(),
    properties: list[tuple[str, int, str, bool]] | None = None,
) -> tuple[dict[str, _Expectation], str]:
    """The nearest expectation after stmts[k] for each watched variable, and a note when some lack one.

    Statements are read one by one up to the next call; after it only those that mention or assign a
    variable still lacking an expectation can matter, and only they are read (so a test method with
    many calls is read in linear time).
    """
    stmts = scan.stmts
    found: dict[str, _Expectation] = {}
    # a commented check is taken only when no live one is found: a live check wins, and a commented one that it
    # contradicts is ignored (the code says what the test checks; a comment may be stale)
    commented: dict[str, _Expectation] = {}
    pending = set(watch)
    watch_names = frozenset(watch)
    note = ""
    after_next_call = False

    at_call = stmts[k]
    own = at_call.scope if at_call.kind is StmtKind.VAR else ()  # its results live in the block it declares them in

    def stale() -> bool:
        """The statement being read names a result no longer the call's (assigned again, changed, shared): what it
        says is not about the call, so it is no property of its outputs."""
        return bool((watch_names - pending - set(found) - set(commented)) & scan.mentions[current[0]])

    current = [k]

    def read(j: int) -> None:
        nonlocal note, after_next_call
        current[0] = j
        s = stmts[j]
        if own and s.scope[: len(own)] != own:
            # past the end of the block that declared the results: a name there is another variable
            for gone in [n for n in pending if watch[n][0] == "out"]:
                pending.discard(gone)
                note = note or f"`{gone}` is out of scope at line {s.line}, after the block that declared it"
            return
        if j in scan.calls:
            after_next_call = True
            # calling the method again on the same array changes it: its state is no longer this call's
            for arg in s.call.args if s.call is not None else ():
                name = plain_var(arg)
                if name is not None and name in pending and watch[name][0] == "post":
                    pending.discard(name)
                    note = note or f"`{name}` is changed again by the call at line {s.line} before any check"
        if not s.commented and s.kind in (StmtKind.VAR, StmtKind.ASSIGN):
            for name in s.targets:
                if name in pending:
                    pending.discard(name)
                    note = note or f"`{name}` is assigned again at line {s.line} before any check"
            # `var b := r;` (or `m[0] := r`, `new Box(r)`): the array is reachable under another name
            shared = plain_var(s.expr) if s.expr else None
            if shared in arrays and shared in pending and shared not in s.targets:
                pending.discard(shared)
                note = note or f"`{shared}` is shared at line {s.line} before any check: changes are not followed"
        if not s.commented:
            # `a[i] := v` after the call: what a later check says is no longer the call's output
            for name in s.changes:
                if name in pending:
                    pending.discard(name)
                    note = note or f"`{name}` is changed at line {s.line} before any check"
            stored = [plain_var(s.text.split(":=", 1)[-1])] if s.changes else []
            if re.match(r"new\s+[A-Za-z_][\w.]*\s*(<[^>]*>)?\s*\(", s.expr.strip()):
                stored += sorted(scan.mentions[j])  # handed to a constructor
            for kept in [n for n in stored if n in arrays and n in pending]:
                pending.discard(kept)
                note = note or f"`{kept}` is stored at line {s.line} before any check: changes are not followed"
            # an array handed to another method may be changed by it (a check helper compares, it is read below)
            callee = s.call
            if (callee is not None and j not in scan.calls and callee.name not in quiet
                    and not (equality_call(callee.name, scan.helpers, True)
                             or equality_call(callee.name, scan.helpers, False))):
                for arg in callee.args:
                    name = plain_var(arg)
                    if name in arrays and name in pending:
                        pending.discard(name)
                        note = note or (f"`{name}` is passed to `{callee.name}` at line {s.line} before any check, "
                                        "which may change it")
        if s.cond and any(name in pending for name in scan.mentions[j]):
            # a check under `if`/`while`/`match` may not run, and says nothing of this call otherwise
            note = note or f"the check at line {s.line} is {under(s.cond)}: whether it runs is not followed"
            return
        if s.kind is StmtKind.EXPECTED_COMMENT:
            # a value without a variable: it belongs to the nearest call before it
            if after_next_call or found or commented:
                return
            texts = _comment_targets(s, watch, n_outs, n_changed)
            if isinstance(texts, str):
                note = note or texts
                return
            for name, text in texts.items():
                if name in pending:
                    commented.setdefault(name, _Expectation(text, s.line, j))
            return
        hit = False
        other_vars: list[str] = []
        per_conjunct = conjunct_equalities(s, scan.helpers)
        if s.kind in (StmtKind.VAR, StmtKind.ASSIGN) and per_conjunct and not _held(scan, j, s.targets):
            per_conjunct = []  # `var same := seqEquals(r, e); expect !same;`: the comparison is not asserted
        pairs = [pair for conj_pairs in per_conjunct for pair in conj_pairs]
        used = 0  # the pairs read as an expectation
        for a, b in pairs:
            for side, other in ((a, b), (b, a)):
                name = plain_var(side)
                if (name is not None and name in pending and watch[name][0] == "out" and not s.commented
                        and s.kind in (StmtKind.ASSERT, StmtKind.EXPECT) and _calls_declared(other, scan.helpers)):
                    # `expect r == Sq(3);` with `Sq` a function of the test file: no value the reader computes, but a
                    # property of `r` (read below, then with `Sq`'s body in place: bot/testcases/discover.py)
                    continue
                if name is not None and name in pending:
                    used += 1
                    # `r == a` names the array itself; a helper (`arrayEquals(r, a)`) compares contents
                    whole = side.strip() == name and not _by_helper(s, scan.helpers)
                    if s.commented:
                        commented.setdefault(name, _Expectation(other, s.line, j, s.problem, whole))
                    else:
                        found[name] = _Expectation(other, s.line, j, s.problem, whole)
                        pending.discard(name)
                    hit = True
                    break
                if name is not None:
                    other_vars.append(name)
        consumed: set[int] = set()  # the conjuncts read as a tolerance
        for fact in tolerances(s, scan.helpers):
            for side, other in ((fact.a, fact.b), (fact.b, fact.a)):
                name = plain_var(side)
                if name is not None and name in pending and side.strip() == name:
                    expectation = _Expectation(other, s.line, j, s.problem, tolerance=fact.bound, strict=fact.strict)
                    if s.commented:
                        commented.setdefault(name, expectation)
                    else:
                        found[name] = expectation
                        pending.discard(name)
                    hit = True
                    consumed |= set(fact.conjuncts)
                    break
        if hit and not s.commented and properties is not None and s.kind in (StmtKind.ASSERT, StmtKind.EXPECT):
            # a check read in part (`expect ok && i > 5;`, `expect r == 5 && r == 6;`): the rest is a property of
            # the outputs, never dropped (one naming an output read with a tolerance makes the case unreadable:
            # see _further_checks)
            rest = used < len(pairs) or any(not conj_pairs and i not in consumed
                                            for i, conj_pairs in enumerate(per_conjunct))
            if rest:
                properties.append((s.expr, s.line, s.text, stale()))
        if (not hit and not note and s.kind is StmtKind.CALL and s.call is not None and scan.helpers is not None
                and s.call.name in scan.helpers.declared and is_equality_helper(s.call.name)
                and j not in scan.calls and any(name in pending for name in scan.mentions[j])):
            # a helper of the test file named as an equality whose body is none the reader knows: a check it cannot
            # read (its name is no evidence)
            note = (f"`{short(s.text)}` at line {s.line} calls `{s.call.name}`, whose body is no check the reader "
                    "knows (a helper is read by what its body says, not by its name)")
        if hit or note or s.kind not in (StmtKind.ASSERT, StmtKind.EXPECT):
            return
        mentioned = [name for name in sorted(pending) if name in scan.mentions[j]]
        if not mentioned and not after_next_call and not s.commented and properties is not None:
            mentioned = [name for name in sorted(found) if name in scan.mentions[j]]
            if mentioned:  # another check of an output read already (`assert r == 5; assert r > 9;`)
                properties.append((s.expr, s.line, s.text, stale()))
                return
        if mentioned and properties is not None and not s.commented:
            # a property of the output: read by _property (or why not)
            properties.append((s.expr, s.line, s.text, stale()))
        elif mentioned:
            note = f"`{short(s.text)}` at line {s.line} is not an equality with a value"
        elif other_vars and not after_next_call:
            note = f"the check `{short(s.text)}` at line {s.line} is about `{other_vars[0]}`"

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
    for name, expectation in commented.items():
        found.setdefault(name, expectation)
    return found, note


def _calls_declared(text: str, helpers: Helpers | None) -> bool:
    """Whether text calls a function the test file declares (one no local variable of the test method hides)."""
    if helpers is None:
        return False
    names = helpers.declared - helpers.shadowed
    try:
        toks = significant(tokenize(text))
    except LexError:
        return False
    return any(t.kind is TokKind.IDENT and t.text in names and toks[k + 1].text == "("
               and (k == 0 or toks[k - 1].text != ".") for k, t in enumerate(toks[:-1]))


def _by_helper(s: Stmt, helpers: Helpers | None) -> bool:
    """The check compares by a helper (`arrayEquals(r, a)` compares contents), not by `==` on the names."""
    if helpers is None:
        return "equals(" in s.text.lower()
    return bool(_text_names(s.text) & (helpers.comparing | helpers.asserting))


def _held(scan: _Scan, j: int, targets: Sequence[str]) -> bool:
    """Whether the result of the comparison helper stmts[j] stores (`var same := arrayEquals(r, e);`) is asserted
    true by the next statement that names it (`expect same;`, `assert same == true;`): only then is it a check."""
    if len(targets) != 1:
        return False
    name = targets[0]
    nxt = next((k for k in scan.touching([name], j + 1) if scan.stmts[k].kind is not StmtKind.PRINT), None)
    if nxt is None:
        return False
    s = scan.stmts[nxt]
    if s.commented or s.cond:
        return False
    accepted = ([name], [name, "==", "true"], ["true", "==", name])
    return any([t.text for t in conj] in accepted for conj in _conjuncts(s))  # none unless an assert or expect


def _comment_targets(
    s: Stmt, watch: Mapping[str, tuple[str, int]], n_outs: int, n_changed: int
) -> dict[str, str] | str:
    """Which watched variable(s) an `//expected V` comment gives values for, or why it cannot tell."""
    outs = [name for name, (role, _) in watch.items() if role == "out"]
    if n_outs == 1:
        return {outs[0]: s.expr}
    if n_outs > 1:
        parts = split_values(s.expr, n_outs)
        if parts is None:
            return f"the expected value at line {s.line} should list {n_outs} values, one per out-parameter"
        return dict(zip(outs, parts, strict=True))
    posts = [name for name, (role, _) in watch.items() if role == "post"]
    if len(posts) == 1 and n_changed == 1:
        return {posts[0]: s.expr}
    if n_changed > 1:
        return f"the expected value at line {s.line} does not say which of the changed arrays it is about"
    return f"the expected value at line {s.line} is about an array the test does not name"
