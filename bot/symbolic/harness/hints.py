"""Proof hints for concrete cases: extra facts that help the verifier, never change what is proved.

Pure code. Every hint is an assertion the verifier checks (or a fuel attribute), and each one is
implied by the clause it comes from, so a hint can fail only where the clause fails too:
- instances of a top-level `forall x :: G(x) ==> P(x)` clause: `assert G(k) ==> P(k);` for every k of
  the concrete range (measured: a per-element `forall` over `seq<bv32>` timed out at 20 s without them
  and verified in 0.05 s with them);
- mentions of every other quantifier's body on the concrete range, `assert B(k) || !B(k);`: the ground
  terms are the witnesses an `exists` without a good trigger needs (`exists k :: 2 <= k < n && n % k == 0`);
- mentions of recursive functions on every smaller argument (every prefix of a count, every prefix and
  suffix of a sequence) whose preconditions hold, plus `{:fuel f, N}`, so each unfolding step is available.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, Token, TokKind, tokenize
from bot.dafny.types import DafnyType
from bot.dafny.values import ArrayV, DatatypeV, IntV, SeqV, TupleV, Value
from bot.symbolic.harness.evaluate import NoValue, integer_value, requires_hold


@dataclass(frozen=True)
class Hints:
    attributes: str  # method attributes, e.g. "{:fuel countTo, 6} "
    statements: tuple[str, ...]  # assertions, placed where every name they use has its value


def _toks(text: str) -> list[Token]:
    try:
        return [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return []


def _idents(text: str) -> set[str]:
    return {t.text for t in _toks(text) if t.kind is TokKind.IDENT}


def _functions(file: DafnyFile) -> dict[str, Decl]:
    return {d.name: d for d in file.decls if d.kind.startswith(("function", "predicate")) and d.body is not None}


def spec_functions(file: DafnyFile, texts: Sequence[str]) -> list[str]:
    """Functions and predicates the texts use, directly or through other functions."""
    funcs = _functions(file)
    todo = sorted(set().union(set(), *(_idents(t) for t in texts)) & funcs.keys())
    seen: set[str] = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        body = funcs[f].body
        assert body is not None
        todo += sorted((_idents(file.source[body[0] : body[1]]) & funcs.keys()) - seen)
    return sorted(seen)


def recursive_functions(file: DafnyFile, names: Sequence[str]) -> list[str]:
    funcs = _functions(file)
    out = []
    for f in names:
        body = funcs[f].body
        assert body is not None
        if f in _idents(file.source[body[0] : body[1]]):
            out.append(f)
    return out


# -- concrete evaluation of small integer expressions (bounds, lengths, counts): the one evaluator's


def evaluate(toks: Sequence[Token], env: Mapping[str, Value]) -> int:
    """The integer value of a small expression over the case's values (evaluate.integer_value); raises NoValue."""
    if not toks:
        raise NoValue
    return integer_value(" ".join(t.text for t in toks), env)


# -- token-level structure


def _split_top(toks: Sequence[Token], seps: tuple[str, ...]) -> list[tuple[list[Token], str]]:
    """Split at top-level separators; each part with the separator that ended it ('' for the last)."""
    parts: list[tuple[list[Token], str]] = []
    depth = 0
    cur: list[Token] = []
    for t in toks:
        if t.kind is TokKind.OP and t.text in ("(", "[", "{", "{:"):
            depth += 1
        elif t.kind is TokKind.OP and t.text in (")", "]", "}"):
            depth -= 1
        if depth == 0 and t.kind is TokKind.OP and t.text in seps:
            parts.append((cur, t.text))
            cur = []
            continue
        cur.append(t)
    parts.append((cur, ""))
    return parts


def _strip_parens(toks: list[Token]) -> list[Token]:
    while len(toks) >= 2 and toks[0].text == "(" and _close(toks, 0) == len(toks) - 1:
        toks = toks[1:-1]
    return toks


def _close(toks: Sequence[Token], i: int) -> int:
    depth = 0
    for k in range(i, len(toks)):
        if toks[k].text in ("(", "[", "{", "{:"):
            depth += 1
        elif toks[k].text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return k
    return -1


@dataclass(frozen=True)
class _Quantifier:
    kind: str  # "forall" | "exists"
    names: tuple[str, ...]
    guard: tuple[Token, ...]  # the range part (`|` form) or the left side of `==>` (forall) / whole body
    body: tuple[Token, ...]  # everything after `::`
    ranged: bool  # written `forall x | R :: P`
    start: int  # token index of the keyword
    end: int  # token index one past the body


def _quantifiers(toks: Sequence[Token]) -> Iterator[_Quantifier]:
    for q, t in enumerate(toks):
        if t.kind is not TokKind.IDENT or t.text not in ("forall", "exists"):
            continue
        k = q + 1
        names: list[str] = []
        depth = 0
        expect_name = True
        while k < len(toks):
            x = toks[k]
            if depth == 0 and x.text in ("::", "|"):
                break
            if x.text == "<":
                depth += 1
            elif x.text == ">":
                depth -= 1
            elif x.text == ">>":
                depth -= 2
            elif x.text == "{:":
                k = _close(toks, k)
                if k < 0:
                    break
            elif depth == 0 and x.text == ",":
                expect_name = True
            elif expect_name and x.kind is TokKind.IDENT:
                names.append(x.text)
                expect_name = False
            k += 1
        if k >= len(toks) or not names:
            continue
        ranged = toks[k].text == "|"
        range_toks: list[Token] = []
        if ranged:
            j = k + 1
            while j < len(toks) and toks[j].text != "::":
                j += 1
            range_toks = list(toks[k + 1 : j])
            k = j
        # the body reaches to the end of the enclosing bracket (or the end of the text)
        depth = 0
        end = k + 1
        while end < len(toks):
            word = toks[end].text
            if word in ("(", "[", "{", "{:"):
                depth += 1
            elif word in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            elif word == ";" and depth == 0:
                break
            end += 1
        body = tuple(toks[k + 1 : end])
        if ranged:
            guard = tuple(range_toks)
        elif t.text == "forall":
            parts = _split_top(body, ("==>",))
            guard = tuple(parts[0][0]) if len(parts) > 1 else ()
        else:
            guard = body
        yield _Quantifier(t.text, tuple(names), guard, body, ranged, q, end)


def _ranges(q: _Quantifier, env: Mapping[str, Value]) -> dict[str, range] | None:
    """Concrete ranges of the bound variables from chained comparisons in the guard."""
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    links: list[tuple[str, str, int]] = []  # (a, b, d): a + d <= b
    for conj, _ in _split_top(q.guard, ("&&",)):
        chain = _split_top(_strip_parens(conj), ("<", "<="))
        if len(chain) < 2:
            continue
        for p in range(len(chain) - 1):
            left, op = chain[p]
            right, _ = chain[p + 1]
            d = 1 if op == "<" else 0
            lname = left[0].text if len(left) == 1 and left[0].text in q.names else None
            rname = right[0].text if len(right) == 1 and right[0].text in q.names else None
            if lname and rname:
                links.append((lname, rname, d))
                continue
            try:
                if rname:
                    lo[rname] = max(lo.get(rname, -(10**9)), evaluate(left, env) + d)
                if lname:
                    hi[lname] = min(hi.get(lname, 10**9), evaluate(right, env) - d + 1)
            except NoValue:
                continue
    for _ in range(len(q.names)):
        for a, b, d in links:
            if a in lo:
                lo[b] = max(lo.get(b, -(10**9)), lo[a] + d)
            if b in hi:
                hi[a] = min(hi.get(a, 10**9), hi[b] - d)
    out = {}
    for n in q.names:
        if n not in lo or n not in hi or abs(lo[n]) >= 10**9 or abs(hi[n]) >= 10**9:
            return None
        out[n] = range(lo[n], max(lo[n], hi[n]))
    return out


def _render(toks: Sequence[Token], text: str, subst: Mapping[str, int]) -> str:
    """The source text of toks with bound variables replaced by numbers."""
    if not toks:
        return ""
    out: list[str] = []
    pos = toks[0].start
    for i, t in enumerate(toks):
        out.append(text[pos : t.start])
        prev = toks[i - 1].text if i else ""
        if t.kind is TokKind.IDENT and t.text in subst and prev != ".":
            v = subst[t.text]
            out.append(str(v) if v >= 0 else f"({v})")
        else:
            out.append(t.text)
        pos = t.end
    return "".join(out)


def _instances(q: _Quantifier, env: Mapping[str, Value], limit: int) -> list[dict[str, int]] | None:
    ranges = _ranges(q, env)
    if ranges is None:
        return None
    total = 1
    for r in ranges.values():
        total *= len(r)
    if total > limit:
        return None
    names = list(ranges)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(ranges[n] for n in names))]


def quantifier_hints(clauses: Sequence[str], env: Mapping[str, Value], limit: int) -> list[str]:
    """Case splits for positive top-level `forall`s, mentions for every other quantifier."""
    out: list[str] = []
    for text in clauses:
        toks = _toks(text)
        qs = list(_quantifiers(toks))
        positive = _positive(toks, qs)
        for q in qs:
            enclosing = [o for o in qs if o.start < q.start and q.end <= o.end]
            insts = _instances(q, env, limit)
            if not insts:
                continue
            if q.start in positive:
                children = [c for c in qs if q.start < c.start and c.end <= q.end
                            and not any(q.start < o.start < c.start and c.end <= o.end for o in qs)]
                inner = [m for c in children for m in _mentions(c, text, env, limit, indent="    ")]
                out += _case_split(q, text, env, insts, inner)
            elif not enclosing:
                out += _mentions(q, text, env, limit)
    return out


def _positive(toks: Sequence[Token], qs: Sequence[_Quantifier]) -> set[int]:
    """Token indexes of the `forall`s the clause asserts outright (a top-level conjunct, not nested,
    not under `<==>`, `==>`, `<==` or `||`): only those may be proved by cases."""
    depth = 0
    starts = {q.start for q in qs}
    for k, t in enumerate(toks):
        if t.text in ("(", "[", "{", "{:"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and k in starts:
            break  # the rest of the clause is this quantifier's body
        elif depth == 0 and t.text in ("<==>", "==>", "<==", "||"):
            return set()
    heads = set()
    for conj, _ in _split_top(toks, ("&&",)):
        conj = _strip_parens(conj)
        if conj and conj[0].text == "forall":
            heads.add(conj[0].start)
    out = set()
    for q in qs:
        nested = any(o.start < q.start and q.end <= o.end for o in qs)
        if q.kind == "forall" and not nested and toks[q.start].start in heads and q.end == _conj_end(toks, q):
            out.add(q.start)
    return out


def _mentions(q: _Quantifier, text: str, env: Mapping[str, Value], limit: int, indent: str = "  ") -> list[str]:
    """`assert B(k) || !B(k);` for each k: ground terms the solver can use as witnesses."""
    insts = _instances(q, env, limit) or []
    out = []
    for subst in insts:
        body = _render(q.body, text, subst)
        formula = f"({_render(q.guard, text, subst)}) ==> ({body})" if q.ranged else f"({body})"
        out.append(f"{indent}assert {formula} || !{formula};")
    return out


def _case_split(
    q: _Quantifier, text: str, env: Mapping[str, Value], insts: Sequence[Mapping[str, int]], inner: Sequence[str]
) -> list[str]:
    """A `forall` statement proving the clause by cases over the concrete range.

    Measured: `forall i :: 0 <= i < |r| ==> r[i] == a[i] ^ b[i]` over 4 elements timed out at 20 s
    even with every instance asserted, and verified in 0.05 s when the range was split into cases.
    The statement proves exactly the clause (same range, same body), so it fails only where the
    clause does. `inner` holds mentions for quantifiers nested in the body, which may use q's names.
    """
    consequent = list(q.body) if q.ranged else list(q.body[len(q.guard) + 1 :])
    if not q.guard or not consequent:
        return []
    cases = []
    for subst in insts:
        local = dict(env)
        local.update({n: IntV(v) for n, v in subst.items()})
        if _guard_value(q.guard, local) is False:
            continue
        parts = [f"{n} == {v}" if v >= 0 else f"{n} == ({v})" for n, v in subst.items()]
        cases.append(" && ".join(parts) if len(parts) == 1 else "(" + " && ".join(parts) + ")")
    if not cases:
        return []
    return [
        f"  forall {', '.join(q.names)} | {_render(q.guard, text, {})} ensures {_render(consequent, text, {})} {{",
        f"    assert {' || '.join(cases)};",
        *inner,
        "  }",
    ]


def _guard_value(guard: Sequence[Token], env: Mapping[str, Value]) -> bool | None:
    """True/False when every conjunct is a chain of comparisons of known integers, else None."""
    if not guard:
        return None
    for conj, _ in _split_top(guard, ("&&",)):
        chain = _split_top(_strip_parens(conj), ("<", "<="))
        if len(chain) < 2:
            return None
        try:
            vals = [evaluate(part, env) for part, _ in chain]
        except NoValue:
            return None
        for (a, (_, op)), b in zip(zip(vals, chain, strict=False), vals[1:], strict=False):
            if (op == "<" and not a < b) or (op == "<=" and not a <= b):
                return False
    return True


def _conj_end(toks: Sequence[Token], q: _Quantifier) -> int:
    """Where the top-level conjunct starting at q ends (a quantifier body runs to it when positive)."""
    depth = 0
    for k in range(q.start, len(toks)):
        x = toks[k].text
        if x in ("(", "[", "{", "{:"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return k
    return len(toks)


def _calls(toks: Sequence[Token], names: set[str]) -> Iterator[tuple[str, list[list[Token]]]]:
    for i, t in enumerate(toks[:-1]):
        if t.kind is TokKind.IDENT and t.text in names and toks[i + 1].text == "(":
            j = _close(toks, i + 1)
            if j < 0:
                continue
            args = [a for a, _ in _split_top(toks[i + 2 : j], (",",))]
            yield t.text, args


def recursion_hints(
    clauses: Sequence[str],
    rec: Sequence[str],
    env: Mapping[str, Value],
    limit: int,
    *,
    file: DafnyFile | None = None,
    types: Mapping[str, DafnyType] | None = None,
) -> list[str]:
    """Mention each recursive call on every smaller concrete argument, so every unfolding is at hand.

    With the file, a mention is kept only when the function's `requires` evaluate to true on its
    concrete arguments: `sumTo(a, start, 0)` with `requires start <= end` and start = 1 is itself a
    precondition violation (an assertion failure on the hint's line), and so is any mention whose
    preconditions cannot be evaluated."""
    out: list[str] = []
    seen: set[str] = set()
    for text in clauses:
        toks = _toks(text)
        for name, args in _calls(toks, set(rec)):
            texts = [_render(a, text, {}) for a in args]
            for pos, arg in enumerate(args):
                variants: list[str] = []
                try:
                    n = evaluate(arg, env)
                    variants = [str(k) for k in range(0, min(n, limit))]
                except NoValue:
                    if len(arg) == 1 and isinstance(env.get(arg[0].text), SeqV):
                        val = env[arg[0].text]
                        assert isinstance(val, SeqV)
                        m = min(len(val.elems), limit)
                        x = arg[0].text
                        variants = [f"{x}[..{k}]" for k in range(m)] + [f"{x}[{k}..]" for k in range(1, m + 1)]
                for v in variants:
                    call = f"{name}({', '.join(texts[:pos] + [v] + texts[pos + 1:])})"
                    if call not in seen:
                        seen.add(call)
                        if file is None or requires_hold(file, call, env, types or {}):
                            out.append(f"  assert {call} == {call};")
    return out[: 4 * limit]


def _size(v: Value) -> int:
    if isinstance(v, SeqV | ArrayV):
        return max([len(v.elems)] + [_size(e) for e in v.elems])
    if isinstance(v, TupleV):
        return max([0] + [_size(e) for e in v.elems])
    if isinstance(v, DatatypeV):  # a recursive datatype unfolds once per level
        return 1 + max([0] + [_size(e) for e in v.fields])
    return 0


def fuel_attributes(file: DafnyFile, method: Decl, values: Sequence[Value], max_fuel: int) -> str:
    """`{:fuel f, N}` for the recursive functions the spec uses: one unfolding per element, plus one."""
    # Dafny 2.3 cannot give a generic function fuel ("type '?' to the function is not determined"): left as it is
    funcs = _functions(file)
    rec = [f for f in recursive_functions(file, spec_functions(file, [c.text for c in method.clauses]))
           if not funcs[f].generic]
    size = max([0] + [_size(v) for v in values] + [v.v for v in values if isinstance(v, IntV) and v.v < 10**6])
    fuel = min(max_fuel, size + 2)
    if not rec or fuel <= 1:
        return ""
    return "".join(f"{{:fuel {f}, {fuel}}} " for f in rec)


def hints_for(
    file: DafnyFile,
    method: Decl,
    clauses: Sequence[str],
    env: Mapping[str, Value],
    ground_limit: int,
) -> tuple[str, ...]:
    """Assertions for the given clauses (requires or ensures) under the case's concrete values."""
    rec = recursive_functions(file, spec_functions(file, clauses))
    types = {p.name: p.type for p in (*method.params, *method.returns)}
    stmts = recursion_hints(clauses, rec, env, ground_limit, file=file, types=types) if rec else []
    stmts += quantifier_hints(clauses, env, ground_limit)
    return tuple(stmts)
