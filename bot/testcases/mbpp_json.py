"""Test cases from the MBPP-san-DFY-228 JSON: `{task_id: {method_signature, test_cases: {test_1: code}}}`.

Pure code. Each case is a string of Dafny statements that calls the method named in the JSON's own
`method_signature` and ends in a check (`assert out1 == 5;`, `assert arrayEquals(res1, e1);`). That
signature often differs from the spec file's method (another name, other types, other arity, another
parameter order): the call is mapped to the spec method by position, unless the types show another order
(`argument_order`), and every case that does not fit, or does not parse, is reported with the reason. The
data set is noisy; about a fifth of its cases are broken.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.decls import DafnyFile, Decl, Param
from bot.dafny.lexer import LexError, Token, TokKind, matching_close, tokenize
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.types import ArrayT, CharT, DafnyType, IntT, NatT, SeqT, StringT, TupleT, TypeTooDeep
from bot.testcases.cases import CaseProblem, ReadResult, TestCase, join_notes
from bot.testcases.dfy_methods import is_testable
from bot.testcases.expectations import CallProblem, ReadCall, read_calls
from bot.testcases.splitting import Stmt, parse_statements, split_top


@dataclass(frozen=True)
class JsonSignature:
    name: str
    params: tuple[str, ...]  # parameter texts, e.g. "arr:array<int>"
    returns: tuple[str, ...]
    head: str  # the signature up to its parameter list, for messages


def task_ids(data: object) -> list[str]:
    """The task ids of the file, in file order."""
    if not isinstance(data, dict):
        return []
    return [str(k) for k, v in data.items() if isinstance(v, dict)]


def parse_signature(text: str) -> JsonSignature | None:
    """`method last(arr:array<int>,x:int) returns (res:int)`; None when it is not such a header."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return None
    k = next((i for i, t in enumerate(toks) if t.text == "method"), -1)
    if k < 0 or k + 2 >= len(toks) or toks[k + 1].kind is not TokKind.IDENT or toks[k + 2].text != "(":
        return None
    close = matching_close(toks, k + 2)
    if close < 0:
        return None
    params = _texts(toks[k + 3 : close], text)
    returns: tuple[str, ...] = ()
    if close + 2 < len(toks) and toks[close + 1].text == "returns" and toks[close + 2].text == "(":
        rclose = matching_close(toks, close + 2)
        if rclose < 0:
            return None
        returns = _texts(toks[close + 3 : rclose], text)
    return JsonSignature(toks[k + 1].text, params, returns, text[toks[k].start : toks[close].end])


def _texts(toks: Sequence[Token], text: str) -> tuple[str, ...]:
    if not toks:
        return ()
    return tuple(text[p[0].start : p[-1].end] for p in split_top(toks, ",", angle=True) if p)


def spec_method_for(file: DafnyFile, data: object, task_id: str) -> Decl | None:
    """The spec method a task's JSON cases test: the one named like the JSON's, or the file's only
    top-level method with a result or a `modifies` clause."""
    entry = data.get(task_id) if isinstance(data, dict) else None
    sig = parse_signature(str(entry.get("method_signature", ""))) if isinstance(entry, dict) else None
    methods = file.methods()
    if sig is not None:
        for d in methods:
            if d.name.lower() == sig.name.lower():
                return d
    called: set[str] = set()
    for d in methods:
        if d.body is None:
            continue
        try:
            toks = tokenize(file.source[d.body[0] : d.body[1]])
        except LexError:
            continue
        pairs = zip(toks, toks[1:], strict=False)
        called |= {a.text for a, b in pairs if a.kind is TokKind.IDENT and b.text == "("}
    roots = [
        d
        for d in methods
        if d.name not in called and is_testable(d) and "test" not in d.name.lower() and d.name != "Main"
    ]
    return roots[0] if len(roots) == 1 else None


def read_mbpp_json(data: object, path: str, task_id: str, target: Decl, text: str = "") -> ReadResult:
    """The cases of one task, as tests of `target`; `text` (the file's text) only locates lines."""
    entry = data.get(task_id) if isinstance(data, dict) else None
    if not isinstance(entry, dict):
        return _one_problem(path, _task_line(text, task_id), f"task {task_id} is not in the file", target)
    tests = entry.get("test_cases")
    if not isinstance(tests, dict) or not tests:
        return _one_problem(path, _task_line(text, task_id), f"task {task_id} has no `test_cases`", target)
    sig_text = _scalars(str(entry.get("method_signature", "")))
    sig = parse_signature(sig_text)
    # the same for every case of the task
    order = None if sig is None else argument_order(sig, target)
    moved = "" if sig is None or order is None else _order_note(sig, target, order)
    cases: list[TestCase] = []
    problems: list[CaseProblem] = []
    for test_name, raw_code in tests.items():
        name = _scalars(str(test_name))
        code = _scalars(raw_code) if isinstance(raw_code, str) else raw_code
        line = _test_line(text, task_id, name)
        got = _read_case(name, code, sig, sig_text, target, order, moved)
        if isinstance(got, str):
            problems.append(CaseProblem(path, line, f"{name}: {got}", method=target.qualified, name=name))
            continue
        for k, read in enumerate(got, start=1):
            case_name = name if k == 1 else f"{name}#{k}"
            if isinstance(read, CallProblem):
                problems.append(
                    CaseProblem(path, line, f"{case_name}: {read.reason}", method=target.qualified, name=case_name)
                )
            else:
                cases.append(read.case(case_name, target.qualified, path, line, str(code).strip()))
    return ReadResult(tuple(cases), tuple(problems))


def _read_case(
    name: str, code: object, sig: JsonSignature | None, sig_text: str, target: Decl,
    order: tuple[int, ...] | None = None, moved: str = "",
) -> str | list[ReadCall | CallProblem]:
    """The reads of one case string, or why it cannot be read at all; `order` is `argument_order`'s, and `moved`
    the note that says so."""
    if not isinstance(code, str):
        return "the case is not a string of Dafny statements"
    if sig is None:
        return f"cannot read the JSON signature `{_short(sig_text)}`"
    if len(sig.params) != len(target.params):
        return (
            f"the JSON signature `{_short(sig.head)}` has {len(sig.params)} parameter(s), "
            f"the spec method `{target.name}` has {len(target.params)}"
        )
    if len(sig.returns) != len(target.returns):
        return (
            f"the JSON signature `{_short(sig_text)}` returns {len(sig.returns)} value(s), "
            f"the spec method `{target.name}` returns {len(target.returns)}"
        )
    try:
        stmts = parse_statements(code)
    except LexError as e:
        return f"line {e.line} of the case: cannot read the statements: {e.message}"
    if order is not None:
        stmts = [_reordered(s, sig.name, order) for s in stmts]
    reads = read_calls(stmts, {sig.name, target.name}, target, lambda n: f"line {n} of the case")
    if order is not None:
        reads = [r if isinstance(r, CallProblem) else replace(r, note=join_notes(r.note, moved)) for r in reads]
    if not reads:
        broken = next((s for s in stmts if s.problem), None)
        if broken is not None:
            return f"line {broken.line} of the case: {broken.problem}"
        return f"no call of `{sig.name}` in the case"
    return reads


MAX_REORDERED = 6  # parameters: beyond this, arguments are mapped by position (6! orders to try)


def argument_order(sig: JsonSignature, target: Decl) -> tuple[int, ...] | None:
    """For each spec parameter, the JSON argument it takes, when the types show that the JSON signature lists the
    parameters in another order; None to map them by position.

    Names come first: the same names by position keep the order, the same names in another order give it. Else
    another order is used only when the types do not match by position and exactly one reordering matches them
    all (e.g. `addLists(arr: array<int>, se: seq<int>)` for `Append(s: seq<int>, a: array<int>)`); parameters
    of one type can be told apart by nothing but position. Types are compared as written first, then by shape
    (`nat` as `int`, `array<T>` as `seq<T>`, `string` as `seq<char>`), since the JSON's often differ that way.
    """
    params = _json_params(sig)
    if params is None or len(params) != len(target.params) or len(params) > MAX_REORDERED:
        return None
    # the names settle it when they can: the same names by position keep the order whatever the types say, and
    # the same names in another order give that order
    names, our_names = [p.name for p in params], [p.name for p in target.params]
    if names == our_names:
        return None
    if sorted(names) == sorted(our_names) and len(set(names)) == len(names):
        return tuple(names.index(n) for n in our_names)
    theirs = [p.type for p in params]
    ours = [p.type for p in target.params]
    for compare in (lambda t: t, _shape):
        a, b = [compare(t) for t in theirs], [compare(t) for t in ours]
        if a == b:
            return None
        fits = [
            order for order in itertools.permutations(range(len(b)))
            if all(a[j] == b[i] for i, j in enumerate(order))
        ]
        if len(fits) == 1:
            return fits[0]
        if fits:
            return None  # several orders fit: only the position tells
    return None


def _json_params(sig: JsonSignature) -> tuple[Param, ...] | None:
    """The JSON signature's parameters, read as a spec method's are; None when its header does not parse."""
    try:
        decl = parse_file(sig.head + "\n").find(sig.name)
    except (DafnyParseError, TypeTooDeep):
        return None
    return None if decl is None else decl.params


def _shape(t: DafnyType) -> DafnyType:
    if isinstance(t, NatT):
        return IntT()
    if isinstance(t, StringT):
        return SeqT(CharT())
    if isinstance(t, ArrayT | SeqT):
        return SeqT(_shape(t.elem))
    if isinstance(t, TupleT):
        return TupleT(tuple(_shape(e) for e in t.elems))
    return t


def _reordered(stmt: Stmt, name: str, order: tuple[int, ...]) -> Stmt:
    """The statement with the arguments of its call of `name` in the spec's order."""
    call = stmt.call
    if call is None or call.name != name or len(call.args) != len(order):
        return stmt
    return replace(stmt, call=replace(call, args=tuple(call.args[j] for j in order)))


def _order_note(sig: JsonSignature, target: Decl, order: tuple[int, ...]) -> str:
    params = _json_params(sig) or ()
    names = [p.name or f"argument {j + 1}" for j, p in enumerate(params)]
    pairs = ", ".join(f"`{names[j]}` as `{p.name}`" for p, j in zip(target.params, order, strict=True))
    return f"the JSON signature lists the parameters in another order; read {pairs}"


_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_SHOWN = 60


def _scalars(text: str) -> str:
    """text with each unpaired surrogate (a JSON `\\udc80` escape, which json.loads keeps) replaced by U+FFFD:
    such a string is no Unicode text and cannot be printed or written as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def _short(text: str) -> str:
    """Text for a message: one line, at most _MAX_SHOWN characters."""
    one = " ".join(text.split())
    return one if len(one) <= _MAX_SHOWN else one[: _MAX_SHOWN - 3] + "..."


def _one_problem(path: str, line: int, reason: str, target: Decl) -> ReadResult:
    return ReadResult((), (CaseProblem(path, line, reason, method=target.qualified),))


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _task_line(text: str, task_id: str) -> int:
    m = re.search(r'"' + re.escape(task_id) + r'"\s*:\s*\{', text) if text else None
    return _line_at(text, m.start()) if m else 0


def _test_line(text: str, task_id: str, test_name: str) -> int:
    if not text:
        return 0
    m = re.search(r'"' + re.escape(task_id) + r'"\s*:\s*\{', text)
    if m is None:
        return 0
    t = re.compile(r'"' + re.escape(test_name) + r'"\s*:').search(text, m.end())
    return _line_at(text, t.start()) if t else _line_at(text, m.start())
