"""Values of test variables: literal text with variables substituted, evaluated at a Dafny type."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, TokKind, matching_close, tokenize
from bot.dafny.types import ArrayT, DafnyType, SeqT, StringT, constructor_words
from bot.dafny.values import ArrayV, SeqV, Value, ValueParseError, parse_value
from bot.testcases.inline import constant_initializer, declared_counts
from bot.testcases.splitting import LITERAL_WORDS, Stmt, StmtKind, calls, plain_var, short, split_values, under

_BV = re.compile(r"bv\d+\Z")


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


def substitute(
    text: str, env: Mapping[str, Binding], constructors: frozenset[str] = frozenset()
) -> tuple[str, frozenset[int]]:
    """text with each variable replaced by its literal text (`a[..]` of an array by its elements).
    `constructors`: datatype and constructor names (`Option`, `Some`, `None`) a literal may contain.

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
        if t.kind is not TokKind.IDENT or t.text in LITERAL_WORDS or _BV.match(t.text):
            k += 1
            continue
        if t.text in constructors and t.text not in env:
            k += 1  # `Some(..)`, `None`, `Option.None`: read by the value parser against the type
            continue
        if k >= 2 and toks[k - 1].text == "." and toks[k - 2].text in constructors:
            k += 1
            continue
        if constructors and k + 1 < len(toks) and toks[k + 1].text == ":=":
            k += 1  # a field named in a constructor's arguments: `Some(value := 3)`
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
        else:
            replacement = _grouped(replacement)
        parts.append(text[pos : t.start])
        parts.append(replacement)
        pos = toks[end - 1].end
        lines |= b.lines
        k = end
    parts.append(text[pos:])
    return "".join(parts).strip(), frozenset(lines)


def _grouped(text: str) -> str:
    """A variable's literal text, parenthesised when it is a quotient (`1.0 / 2.0`): pasted bare into `2.0 / a` it
    would be read as `(2.0 / 1.0) / 2.0` (a negative number stays bare: `n as real` is `(-3) as real` already)."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return text
    depth = 0
    for t in toks:
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.text == "/":
            return f"({text})"
    return text


def evaluate(text: str, t: DafnyType, env: Mapping[str, Binding]) -> tuple[Value, frozenset[int]]:
    """The value of a test expression at type t, and the definition lines it used; raises EvalError."""
    literal, lines = substitute(text, env, constructor_words([t]))
    try:
        v = parse_at(literal, t)
    except ValueParseError as e:
        shown = f" in `{short(literal)}`" if literal != text.strip() else ""
        raise EvalError(f"{e}{shown}") from e
    return (as_array(v) if isinstance(t, ArrayT) else v), lines


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


def environments(
    stmts: Sequence[Stmt], callees: Collection[str], target: Decl, where: Callable[[int], str],
    quiet: Collection[str] = frozenset(), hidden: Collection[str] = frozenset(),
    constants: Mapping[str, Binding] | None = None,
) -> list[Mapping[str, Binding]]:
    """The variables visible before each statement (and after the last one). `hidden`: names the test file
    declares (functions, constants): a constructor of such a name is not what the bare name means there.

    Each binding is stored once with the index of the statement that made it, so a test method with
    many variables and statements costs linear space and time, not their product. With `quiet` (the callables
    known to change no array they are given), an array handed to any other method has unknown contents after.
    """
    env: dict[str, Binding] = {}
    history: dict[str, tuple[list[int], list[Binding]]] = {}
    changed = modified_params(target)
    words = constructor_words(p.type for p in (*target.params, *target.returns))
    for name in sorted(words & set(hidden)):
        # the test file declares it too (a function, a constant): the bare name is that, not the constructor
        env[name] = Binding("", frozenset(), f"`{name}` is declared by the test file too: not a constructor there")
        history[name] = ([-1], [env[name]])
    for name, b in (constants or {}).items():  # the file's constants (constant_bindings), until a variable shadows one
        if name not in env:
            env[name] = b
            history[name] = ([-1], [b])
    declared: dict[int, list[tuple[str, Binding | None]]] = {}  # per block: its `var`s and what they shadowed
    open_blocks: tuple[int, ...] = ()
    for j, s in enumerate(stmts):
        if s.commented:
            continue
        lines = frozenset(range(s.line, s.end_line + 1))
        touched: list[str] = []
        # a block that ended takes its own `var`s with it: what they shadowed is visible again, from this
        # statement on (recorded as made by the statement before it, which saw the block's own)
        for block in reversed([b for b in open_blocks if b not in s.scope]):
            for name, before in reversed(declared.pop(block, [])):
                env[name] = before or Binding("", lines, f"`{name}` was declared in a block that has ended")
                stamps, bindings = history.setdefault(name, ([], []))
                if stamps and stamps[-1] == j - 1:
                    bindings[-1] = env[name]
                else:
                    stamps.append(j - 1)
                    bindings.append(env[name])
        open_blocks = s.scope
        if s.kind is StmtKind.VAR and s.targets and s.scope:
            declared.setdefault(s.scope[-1], []).extend((name, env.get(name)) for name in s.targets)
        if s.kind in (StmtKind.VAR, StmtKind.ASSIGN) and s.targets:
            touched += _bind(env, s, lines, where, words)
        for name in s.changes:  # `a[i] := v`: its contents as a literal are no longer known
            env[name] = Binding("", lines, f"`{name}` is changed at {where(s.line)}")
            touched.append(name)
        if s.changes:  # `m[0] := a`: `a` is now reachable through `m` too
            rhs = s.text.split(":=", 1)[-1]
            stored = _arrays_in(env, rhs)
            _share(env, rhs, lines, where(s.line))
            touched += stored
        if s.cond:  # under `if`/`while`/`match`: whether it runs is not followed, so what it assigns is unknown
            for name in (*s.targets, *s.changes):
                env[name] = Binding("", lines, f"`{name}` is assigned {under(s.cond)} at {where(s.line)}: "
                                               "its value there is not followed")
        other = s.call
        if (other is not None and not calls(s, callees) and other.name not in quiet
                and not other.name.lower().endswith("equals")):  # a check helper compares (see expectations.py)
            for text in other.args:
                var = plain_var(text)
                bound = env.get(var) if var is not None else None
                if var is not None and bound is not None and bound.text.startswith("new "):
                    env[var] = Binding("", lines, f"`{var}` may have been changed by the call of "
                                                  f"`{other.name}` at {where(s.line)}")
                    touched.append(var)
        if calls(s, callees) and s.call is not None:
            # an in-place call changes its arrays: as later inputs their contents are unknown
            for i in changed:
                arg = plain_var(s.call.args[i]) if i < len(s.call.args) else None
                if arg is not None:
                    env[arg] = Binding("", lines, f"`{arg}` was changed by the call at {where(s.line)}")
                    touched.append(arg)
        for name in touched:
            stamps, bindings = history.setdefault(name, ([], []))
            if stamps and stamps[-1] == j:
                bindings[-1] = env[name]
            else:
                stamps.append(j)
                bindings.append(env[name])
    return [_Env(history, k) for k in range(len(stmts) + 1)]


def _bind(
    env: dict[str, Binding], s: Stmt, lines: frozenset[int], where: Callable[[int], str],
    constructors: frozenset[str] = frozenset(),
) -> list[str]:
    """Bind the statement's targets in `env`; the names it changed (its targets, and an array it shares).
    `constructors`: datatype and constructor names, whose "calls" (`Some(3)`) are values."""
    if s.problem:
        for name in s.targets:
            env[name] = Binding("", lines, f"its definition at {where(s.line)} is broken: {s.problem}")
        return list(s.targets)
    if s.call is not None and not (s.call.name in constructors and s.call.name not in env):
        for name in s.targets:
            env[name] = Binding("", lines, f"`{name}` holds the result of `{s.call.name}(..)`, not a literal")
        return list(s.targets)
    if not s.expr:
        for name in s.targets:
            env[name] = Binding("", lines, f"`{name}` is declared without a value")
        return list(s.targets)
    # `var a, b := 1, 2;` and `x, y := y, x;`: every right-hand side is read before any target is assigned
    rhs = [s.expr] if len(s.targets) == 1 else (split_values(f"({s.expr})", len(s.targets)) or [])
    bound: dict[str, Binding] = {}
    if re.match(r"new\s+[A-Za-z_][\w.]*\s*(<[^>]*>)?\s*\(", s.expr.strip()):
        # `var b := new Box(a);`: an object that may keep the array; neither is a value the readers follow
        stored = _arrays_in(env, s.expr)
        _share(env, s.expr, lines, where(s.line))
        for name in s.targets:
            env[name] = Binding("", lines, f"`{name}` is an object made at {where(s.line)}, not a literal")
        return [*s.targets, *stored]
    for k, name in enumerate(s.targets):
        if k >= len(rhs):
            bound[name] = Binding("", lines, f"cannot tell the value of `{name}`")
            continue
        source = plain_var(rhs[k])
        if source is not None and env.get(source, Binding("", frozenset())).text.startswith("new "):
            # `var b := a;` on arrays: one array under two names, which the readers do not follow
            shared = (f"`{name}` and `{source}` are one array from {where(s.line)} on: changes through either "
                      "are not followed")
            bound[name] = Binding("", lines, shared)
            bound[source] = Binding("", lines, shared)
            continue
        try:
            text, used = substitute(rhs[k], env, constructors)
        except EvalError as e:
            bound[name] = Binding("", lines, f"`{name}` is not a literal: {e}")
            continue
        bound[name] = Binding(text, used | lines)
    env.update(bound)
    return list(bound)


def _arrays_in(env: Mapping[str, Binding], text: str) -> list[str]:
    """The array variables (bound to a `new` array) a text names as a whole."""
    try:
        names = {t.text for t in tokenize(text) if t.kind is TokKind.IDENT}
    except LexError:
        return []
    return sorted(n for n in names if env.get(n, Binding("", frozenset())).text.startswith("new "))


def _share(env: dict[str, Binding], text: str, lines: frozenset[int], at: str) -> None:
    """Arrays handed to a constructor or stored in a structure are reachable from elsewhere: not followed."""
    for name in _arrays_in(env, text):
        env[name] = Binding("", lines, f"`{name}` is stored or handed over at {at}: its later changes are not followed")


_LONGEST_CONSTANT = 100_000  # characters of a constant's literal, its constants written out


def constant_bindings(file: DafnyFile) -> dict[str, Binding]:
    """The file's constants of the top level declared once, each bound to its initializer as a literal (`const K :=
    3;`, `const L := K + 1` is not one: an operation), or to why not: a test may pass one to the method or compare
    an output with it, as it would a variable."""
    counts = declared_counts(file)
    out: dict[str, Binding] = {}
    for d in file.others:
        if d.kind != "const" or d.container or counts[d.name] != 1:
            continue
        line = frozenset({d.line})
        text = constant_initializer(file.source[d.start : d.header_end])
        if text is None:
            out[d.name] = Binding("", line, f"the constant `{d.name}` (line {d.line}) has no initializer")
            continue
        try:
            literal, used = substitute(text, out)
        except EvalError as e:
            out[d.name] = Binding("", line, f"the constant `{d.name}` (line {d.line}) is no literal: {e}")
            continue
        if len(literal) > _LONGEST_CONSTANT:  # `const C1 := C0 + C0; const C2 := C1 + C1; ..` doubles per line
            out[d.name] = Binding("", line, f"the constant `{d.name}` (line {d.line}) is over {_LONGEST_CONSTANT} "
                                            "characters long written out")
            continue
        out[d.name] = Binding(literal, line | used)
    return out
