"""Test cases written as Dafny test methods: calls of the method under test and their expectations.

Pure code. A test method builds inputs, calls the method (`var res1 := SharedElements(a1, a2);`) and
states the expected output: `assert res1 == [4, 5];`, `expect res1 == [4, 5];`, a helper such as
`assertArrayEquals(e1, res1)`, or a comment (`//expected [4, 5]`, `//assert res1 == 5;`). Methods that
change an array in place (`modifies a`) are checked by the array's contents after the call.
"""

from __future__ import annotations

import textwrap
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace

from bot.dafny.decls import Clause, DafnyFile, Decl, Param
from bot.dafny.lexer import LexError, Token, TokKind, tokenize
from bot.dafny.types import unsupported_parts
from bot.testcases.bindings import constant_bindings
from bot.testcases.cases import CaseProblem, ReadResult, TestCase
from bot.testcases.expectations import CallProblem, ReadCall, is_equality_helper, name_words, read_calls
from bot.testcases.helpers import helpers_of
from bot.testcases.inline import follows_scopes
from bot.testcases.splitting import split_statements


def read_dfy_tests(file: DafnyFile, target: Decl | Sequence[Decl] | None = None) -> ReadResult:
    """The cases of `target` (by default: of every method the file's tests call) in the file's methods.

    A target from another file (a spec whose tests live in a separate file) is found by its name;
    its parameter types come from the target's own signature. Several targets are read in one pass,
    with the cases and problems of each in the order of the file, caller by caller.
    """
    try:
        tokens = tokenize(file.source, keep_comments=True)
    except LexError as e:
        return ReadResult((), (CaseProblem(file.path, e.line, f"cannot read the file: {e.message}"),))
    # bodiless methods can be tested (a spec without its implementation); only bodies call anything
    methods = file.methods()
    bodies = _bodies(tokens, methods)
    callers_all = [d for d in methods if d.body is not None]
    if target is None:
        targets = _tested(methods, bodies)
        testers = [d for d in methods if _is_test_method(d)]
        targets += function_targets(file, {n for d in testers for n in _called(bodies[id(d)])}, methods)
        tested = {t.name for t in targets}
        callers = [d for d in callers_all if _is_test_method(d) and d.name not in tested]
    else:
        # a target's own body is no test of it (see the loop below), but may test another target
        targets = [target] if isinstance(target, Decl) else list(target)
        callers = callers_all
    by_name: dict[str, list[int]] = {}
    for i, t in enumerate(targets):
        by_name.setdefault(t.name, []).append(i)
    # counted once, not once per caller and target (a file of n test methods is read in linear time)
    # functions too: a call `A.F(1)` of a function must not be read as a test of a method `B.F`
    name_count = Counter(d.name for d in file.decls if d.kind == "method" or d.kind in _FUNCTION_KINDS)
    own = {id(d) for d in methods}
    lines = file.source.splitlines()
    # what the file declares that changes no array it is given (functions, methods without `modifies`): an
    # array handed to one after the call keeps its contents (anything else may change them)
    quiet = frozenset(d.name for d in file.decls if not d.clause_texts("modifies")) - {
        d.name for d in file.decls if d.clause_texts("modifies")}
    # the file's own helpers (`abs`, `assertEquals`) mean what their bodies say, never what their names do
    helpers = helpers_of(file, tokens)
    # a test may pass the file's constants, or compare with them: only where the file's top level is what a name
    # means (no module, no import)
    constants = {} if follows_scopes(file, tokens) else constant_bindings(file)
    cases: list[TestCase] = []
    problems: list[CaseProblem] = []
    used_names: dict[str, set[str]] = {}
    for caller in callers:
        body = bodies[id(caller)]
        # only the targets this caller calls (each caller is read once, not once per target)
        mine = [targets[i] for i in sorted(i for name in _called(body) for i in by_name.get(name, ()))]
        if not mine:
            continue
        stmts = split_statements(body, file.source)
        found: list[tuple[int, TestCase | CaseProblem]] = []
        # the caller's parameters and results shadow the file's constants of their names
        own_names = {p.name for p in (*caller.params, *caller.returns)}
        own_constants = {} if _untracked_binders(body) else {
            n: b for n, b in constants.items() if n not in own_names}
        # the caller's parameters shadow the file's helpers (and the spec's functions) of their names, and so may a
        # name the body binds otherwise (a pattern `var (Sq, z) := ..`, `:|`, a quantifier's or lambda's variable):
        # a check calling it is not read as a call of the function
        own_helpers = helpers.without(own_names | _named_otherwise(body))
        for t in mine:
            if t.name == caller.name:
                continue
            names = used_names.setdefault(t.qualified, set())
            qualifiers = _qualifiers(t, caller) if len(by_name[t.name]) > 1 or _shadowed(t, name_count, own) else None
            reads = read_calls(stmts, {t.name}, t, _where, qualifiers, quiet, file.datatypes.shadowed, own_helpers,
                               own_constants)
            for k, read in enumerate(reads, start=1):
                name = _unique(f"{caller.name}#{k}", names)
                found.append((read.line, _to_case(read, name, t, file.path, lines)))
        for _, item in sorted(found, key=lambda p: p[0]):
            if isinstance(item, TestCase):
                cases.append(item)
            else:
                problems.append(item)
    # a call of a function whose results no check names is a helper giving a value, not a test of it; one that a
    # check names is a test the readers could not use, and stays a problem (or a broken test would vanish unseen)
    functions = {t.qualified for t in targets if t.tested_function}
    return ReadResult(tuple(cases), tuple(p for p in problems if p.method not in functions or p.checked))


def _shadowed(t: Decl, name_count: Counter[str], own: set[int]) -> bool:
    """Another method of the file has t's name: `name_count` counts the file's methods by name, `own` holds
    their ids (t may be a method of another file, the spec)."""
    return name_count[t.name] - (id(t) in own) > 0


def _qualifiers(t: Decl, caller: Decl) -> frozenset[str]:
    """How a call from `caller` may name `t` when another method shares its name: by its module path
    or a tail of it (`A.B.Add`, `B.Add`), or plainly from inside t's own module."""
    parts = t.scope.split(".") if t.scope else []
    names = {".".join(parts[i:]) for i in range(len(parts))}
    if caller.scope == t.scope:
        names.add("")
    return frozenset(names)


def tested_methods(file: DafnyFile) -> list[Decl]:
    """The methods a file's tests call: with an out-parameter or a `modifies` clause, called from a
    test method (one without parameters and results, or with "test" in its name), equality helpers
    such as `assertArrayEquals` excluded."""
    try:
        tokens = tokenize(file.source, keep_comments=True)
    except LexError:
        return []
    # bodiless methods count: a spec written before (or without) its implementation is still tested
    methods = file.methods()
    return _tested(methods, _bodies(tokens, methods))


def called_from_tests(file: DafnyFile) -> set[str]:
    """Names of everything the file's test methods call."""
    try:
        tokens = tokenize(file.source, keep_comments=True)
    except LexError:
        return set()
    methods = [d for d in file.methods() if d.body is not None and _is_test_method(d)]
    bodies = _bodies(tokens, methods)
    return {name for d in methods for name in _called(bodies[id(d)])}


def is_testable(d: Decl) -> bool:
    """A method whose effect a test can observe: a result or a changed array."""
    observable = bool(d.returns or d.clause_texts("modifies"))
    return d.kind == "method" and observable and not is_equality_helper(d.name)


def _where(line: int) -> str:
    return f"line {line}"


def _bodies(tokens: Sequence[Token], methods: Sequence[Decl]) -> dict[int, list[Token]]:
    """The tokens inside each method's body (without its braces), by id of the method.

    Tokens are in source order and do not overlap, so each body is found by bisection: reading a file
    of n methods takes time linear in its size, not in n times its size.
    """
    starts = [t.start for t in tokens]
    ends = [t.end for t in tokens]
    out: dict[int, list[Token]] = {}
    for d in methods:
        if d.body is None:
            out[id(d)] = []
            continue
        lo, hi = d.body
        out[id(d)] = list(tokens[bisect_right(starts, lo) : bisect_left(ends, hi)])
    return out


_BINDING_WORDS = frozenset({"case", "forall", "exists", "for", "match", "=>"})


def _untracked_binders(body: Sequence[Token]) -> bool:
    """Whether a body binds names in ways the test reader does not follow (a pattern `var (a, K) := ..` or `var
    Pt(K, z) := ..`, `case`, a quantifier, a lambda, a `for` loop): where it does, no constant of the file is read
    as a value there, as the name may be the bound one."""
    toks = [t for t in body if t.kind is not TokKind.COMMENT]
    for k, t in enumerate(toks):
        if t.text in _BINDING_WORDS:
            return True
        if t.text == "var":
            nxt = toks[k + 1].text if k + 1 < len(toks) else ""
            after = toks[k + 2].text if k + 2 < len(toks) else ""
            if nxt == "(" or after == "(":
                return True
    return False


# Dafny's reserved words (and its built-in type names): never a variable, so never a binding that hides a function
# (`multiset<int>` then `multiset(r)` is no variable `multiset` called; `array2` or `bv8` is never called at all)
_RESERVED = frozenset({
    "abstract", "allocated", "array", "as", "assert", "assume", "bool", "break", "by", "calc", "case", "char",
    "class", "codatatype", "colemma", "const", "constructor", "continue", "copredicate", "datatype", "decreases",
    "downto", "else", "ensures", "exists", "expect", "export", "extends", "false", "for", "forall", "fresh",
    "function", "ghost", "greatest", "if", "imap", "import", "in", "include", "inductive", "int", "invariant", "is",
    "iset", "iterator", "label", "least", "lemma", "map", "match", "method", "modifies", "modify", "module",
    "multiset", "nameonly", "nat", "new", "newtype", "null", "object", "old", "opened", "ORDINAL", "predicate",
    "print", "private", "protected", "reads", "real", "refines", "requires", "return", "returns", "reveal",
    "reveals", "seq", "set", "static", "string", "then", "this", "to", "trait", "true", "twostate", "type",
    "unchanged", "var", "while", "witness", "yield", "yields"
})


def _named_otherwise(body: Sequence[Token]) -> set[str]:
    """The names the body uses other than by calling them (`var (Sq, z) := ..`, `var IsSq :| ..`, `forall Sq: int ->
    int :: ..`, `Map(Sq, s)`): each may be a variable the body binds, which a call of that name then reaches instead
    of the test file's or the spec's function (an over-approximation: a function passed as a value counts too, and
    leaves its checks unread)."""
    toks = [t for t in body if t.kind is not TokKind.COMMENT]
    return {t.text for k, t in enumerate(toks)
            if t.kind is TokKind.IDENT and t.text not in _RESERVED
            and (k + 1 >= len(toks) or toks[k + 1].text != "(") and (k == 0 or toks[k - 1].text != ".")}


def _is_test_method(d: Decl) -> bool:
    # tests take no inputs and return nothing; some carry their role in their name (`TestMax`, `max_tests`: a word of
    # it, not its letters: `Greatest` is no test)
    words = name_words(d.name)
    return (not d.params and not d.returns) or any(w in ("test", "tests") or w.startswith("test") for w in words)


def _called(toks: Sequence[Token]) -> set[str]:
    return {a.text for a, b in zip(toks, toks[1:], strict=False) if a.kind is TokKind.IDENT and b.text == "("}


def _tested(methods: Sequence[Decl], bodies: dict[int, list[Token]]) -> list[Decl]:
    testers = {d.name for d in methods if _is_test_method(d)}
    called = {name for d in methods if d.name in testers for name in _called(bodies[id(d)])}
    return [d for d in methods if is_testable(d) and d.name not in testers and d.name in called]


_FUNCTION_KINDS = frozenset({"function", "predicate", "function method", "predicate method"})


def function_target(d: Decl) -> Decl | None:
    """A function a test calls directly (`var v := Fib(10); expect v == 55;`), as the method the rest of the tool
    scores: its parameters and `requires`, one result, and `ensures result == Fib(n)`, so that the function's body
    is its specification. None for what is no such function: a method, a member of a class, a generic function
    or one with a type the tool cannot build values of."""
    if d.kind not in _FUNCTION_KINDS or not d.in_module_only or len(d.returns) != 1 or "<" in d.name:
        return None
    if any(unsupported_parts(p.type) for p in (*d.params, *d.returns)):
        return None
    taken = {p.name for p in d.params}
    result = "result"
    while result in taken:
        result += "_"
    call = f"{d.name}({', '.join(p.name for p in d.params)})"
    ensures = Clause("ensures", f"{result} == {call}", d.line, d.start, d.start)
    requires = tuple(c for c in d.clauses if c.kind == "requires")
    ret = d.returns[0]
    return replace(d, kind="method", ghost=False, returns=(Param(result, ret.type_text, ret.type),),
                   clauses=(*requires, ensures), body=None, tested_function=True)


def function_targets(file: DafnyFile, called: Collection[str], methods: Sequence[Decl]) -> list[Decl]:
    """The functions of `file` that `called` names and no method of `methods` shares a name with, as methods
    (function_target)."""
    taken = {m.name for m in methods}
    found = [function_target(d) for d in file.decls if d.name in called and d.name not in taken]
    return [d for d in found if d is not None]


def _unique(name: str, used: set[str]) -> str:
    # two test methods of the same name (in different modules) must still give distinct case names
    out, n = name, 2
    while out in used:
        out, n = f"{name}.{n}", n + 1
    used.add(out)
    return out


def case_text(lines: Sequence[str], numbers: Sequence[int]) -> str:
    """The given source lines, dedented, with `...` where lines are left out."""
    picked = [n for n in numbers if 0 < n <= len(lines)]
    dedented = textwrap.dedent("\n".join(lines[n - 1] for n in picked)).split("\n")
    out: list[str] = []
    for k, (n, text) in enumerate(zip(picked, dedented, strict=True)):
        if k and n > picked[k - 1] + 1:
            out.append("...")
        out.append(text)
    return "\n".join(out).strip()


def _to_case(
    read: ReadCall | CallProblem, name: str, target: Decl, path: str, lines: Sequence[str]
) -> TestCase | CaseProblem:
    if isinstance(read, CallProblem):
        return CaseProblem(path, read.line, read.reason, method=target.qualified, name=name, checked=read.checked)
    return read.case(name, target.qualified, path, read.line, case_text(lines, read.lines))
