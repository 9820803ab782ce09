"""Read output values out of the verifier's counterexample models. Pure: text in, values out.

A failed pin check leaves the outputs arbitrary; the solver's model of the failure says which value it
picked. `decode` reads it back as a `Value`, or gives None whenever the model is missing a part, is
ambiguous or inconsistent: a candidate read here is only a candidate (the caller confirms it with an
ordinary acceptance program), and the solver's models are often not models of the whole formula (it
gives up on quantifiers and completes its tables with arbitrary `else` values).

Dafny 2.3 (`/mv:FILE`), measured on this machine with z3 4.8.12 (saved models: tests/data/models/):

* One model per failing assertion, `*** MODEL` ... `*** END_MODEL`, 13-16 KB each, in the order of the
  `<error>`s of the /xml report (a time-out's error has none). Lines are `name -> value` (constants) or
  `name -> {` + `  args -> value` ... `  else -> value` + `}` (function tables).
* Values: ints `1003`, `(- 2)`; reals `4.0`, `(/ 3.0 4.0)`, `(- (/ 3.0 7.0))`; `true`/`false`;
  bitvectors `103bv8`; everything else is an element of the universal sort, `T@U!val!58`. An `else`
  may be an expression of the arguments: `(= (:var 0) T@U!val!59)`, `(and (= (:var 0) X) ...)`.
* A variable `r` of the method is `r#0`: `r#0@N` after its N-th assignment in Boogie's passive form
  (the highest N is the final state), and z3 may rename a constant with a suffix `@@K` (`x#0@@1`).
  A bound variable named like an output is `r#1...`, never `r#0`. The heap is `$Heap`, `$Heap@N`
  after a call that modifies it.
* Type encoding "arguments": ints, bools, reals and bitvectors are native at the top level; inside a
  sequence, tuple or array they are boxed: an element is `$Unbox(T, Seq#Index(s, i))`, where `T` is the
  model's type constant (`intType`, `boolType`, `charType`, `realType`, `bv8Type`, `SeqType(BoxType)`,
  `DatatypeTypeType`, `refType`; their `T@T!val!N` numbers differ from model to model), then
  `U_2_int` / `U_2_bool` / `U_2_real` / `U_2_bv8` (a boxed int may also print as a plain numeral). A
  char is a universal element: `char#ToInt`. A sequence has `Seq#Length` and `Seq#Index`, or is built
  by explicit `Seq#Build` entries. A tuple `(a, b)` has selectors `_System.Tuple2._0` / `._1` and the
  constructor table `#_System._tuple#2._#Make2`. An array's contents are `Seq#FromArray(heap, a)` (only
  present when the program mentions `a[..]`) and its length `_System.array.Length`.

Dafny 3/4 (`--extract-counterexample`, not installable here; read against the documented format and the
dafny-lang sources: `DafnyModel.ToString`, `PrintCounterexample`): the console holds a block per failing
assertion (3.x/early 4.x: one, for the first failure), made of states `FILE(L,C): [initial state]:`
followed by either `\tname : type = value` lines (3.x) or one `assume E1 && E2 ...;` line whose conjuncts
are `value == name` (4.x). `decode` reads the last state for outputs stated as a literal of their type.

Sets, multisets and maps are not read, from either format (`unreadable_types` names them): in a 2.3 model a set
is a Boogie map from boxes to booleans, `[2] -> { T@U!val!54 T@U!val!77 -> T@U!val!79 ... else -> 0 }`
(measured), whose `else` decides every element not listed, and the solver completes it arbitrarily; a Dafny 3/4
state lists the elements it knows, which need not be all. A value read from either would be a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    DafnyType,
    DatatypeT,
    IntT,
    MapT,
    MultisetT,
    NatT,
    RealT,
    SeqT,
    SetT,
    StringT,
    TupleT,
    constructors,
)
from bot.dafny.values import (
    ArrayV,
    BoolV,
    BvV,
    CharV,
    DatatypeV,
    IntV,
    RealV,
    SeqV,
    TupleV,
    Value,
    ValueParseError,
    parse_value,
)
from bot.symbolic.modeltext import MODEL_BEGIN, MODEL_END, STATE_AT, TYPED_LINE, split_models

MAX_LENGTH = 1000  # longest sequence or array read out of a model
_MAX_DEPTH = 8  # deepest nesting of sequences and tuples followed


# ---------------------------------------------------------------------------------------------------
# Decoding


def decode(model_text: str, name: str, t: DafnyType) -> Value | None:
    """The value of output `name` (of type t) in the final state of the first model of `model_text`
    that has one; None when no model gives one unambiguously."""
    found = decode_all(model_text, [(name, t)])
    return None if found is None else found[0]


def unreadable_types(types: Sequence[DafnyType]) -> list[str]:
    """The collection types (sets, multisets, maps) inside `types`, whose values are never read from a model (see
    above), in order, each once: a decoding of outputs of such types is always None, and says so by these names."""
    out: list[str] = []
    seen: set[DafnyType] = set()
    stack = list(reversed(types))
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        if isinstance(t, SetT | MultisetT | MapT):
            out.append(str(t))
        elif isinstance(t, SeqT | ArrayT):
            stack.append(t.elem)
        elif isinstance(t, TupleT):
            stack.extend(reversed(t.elems))
        elif isinstance(t, DatatypeT):
            stack.extend(reversed([ft for c in constructors(t) for ft in c.types]))
    return list(dict.fromkeys(out))


def decode_all(model_text: str, outputs: Sequence[tuple[str, DafnyType]]) -> tuple[Value, ...] | None:
    """The values of several outputs, all read from the same model (the first one that gives them all)."""
    found = readings(model_text, outputs)
    return found[0] if found else None


def readings(model_text: str, outputs: Sequence[tuple[str, DafnyType]]) -> list[tuple[Value, ...]]:
    """Every distinct reading of `outputs` from the models of `model_text`, in the models' order."""
    seen: list[tuple[Value, ...]] = []
    for text in split_models(model_text):
        values = _decode_one(text, outputs)
        if values is not None and values not in seen:
            seen.append(values)
    return seen


def _decode_one(text: str, outputs: Sequence[tuple[str, DafnyType]]) -> tuple[Value, ...] | None:
    if not outputs:
        return None
    read = one_model(text)
    if read is None:
        return None
    values = [read(name, t) for name, t in outputs]
    if any(v is None for v in values):
        return None
    return tuple(v for v in values if v is not None)


def one_model(text: str) -> Callable[[str, DafnyType], Value | None] | None:
    """A reader of the variables of one model (one of `split_models`), parsed once: `read(name, t)` is the final
    value of `name` as a value of type t, or None (as `decode` says); None when the model is malformed."""
    if MODEL_BEGIN in text:
        model = parse_model(text)
        if model is None:
            return None
        reader = _Reader(model)

        def boogie(name: str, t: DafnyType) -> Value | None:
            return None if unreadable_types([t]) else reader.output(name, t)
        return boogie
    state = _last_state(text)

    def console(name: str, t: DafnyType) -> Value | None:
        return None if unreadable_types([t]) else _from_state(state, name, t)
    return console


# ---------------------------------------------------------------------------------------------------
# Boogie models


@dataclass(frozen=True)
class Table:
    """A function of the model: explicit entries and the `else` value (maybe an expression of `(:var i)`)."""

    entries: dict[tuple[str, ...], str]
    default: str | None


@dataclass(frozen=True)
class Model:
    constants: dict[str, str]
    functions: dict[str, Table]


def parse_model(text: str) -> Model | None:
    """The first Boogie model of `text`; None when there is none or it is malformed."""
    constants: dict[str, str] = {}
    functions: dict[str, Table] = {}
    table: tuple[str, dict[tuple[str, ...], str], list[str]] | None = None
    started = in_state = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if not started:
            started = line.strip() == MODEL_BEGIN
            continue
        if line.strip() == MODEL_END:
            return Model(constants, functions) if table is None and not in_state else None
        if not line.strip():
            continue
        if table is None and line.startswith("*** STATE"):
            in_state = True  # Boogie's captured states (not seen from Dafny 2.3): not read
            continue
        if in_state:
            in_state = line.strip() != "*** END_STATE"
            continue
        if table is not None:
            if line.strip() == "}":
                name, entries, default = table
                functions[name] = Table(entries, default[0] if default else None)
                table = None
                continue
            left, sep, right = line.strip().rpartition(" -> ")
            if not sep:
                return None
            if left == "else":
                table[2][:] = [right]
                continue
            args = _split_terms(left)
            if args is None:
                return None
            table[1][tuple(args)] = right
            continue
        if line.startswith((" ", "\t")) or line.startswith("***"):
            return None  # a state section or something else this reader does not know
        name, sep, value = line.partition(" -> ")
        if not sep:
            return None
        if value == "{":
            table = (name, {}, [])
        else:
            constants[name] = value
    return None  # no complete model


def _split_terms(text: str) -> list[str] | None:
    """`T@U!val!3 (- 1) 2` -> ['T@U!val!3', '(- 1)', '2']; None when parentheses do not balance."""
    terms: list[str] = []
    depth = 0
    start: int | None = None
    for i, c in enumerate(text):
        if c == " " and depth == 0:
            if start is not None:
                terms.append(text[start:i])
                start = None
            continue
        if start is None:
            start = i
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
    if depth != 0:
        return None
    if start is not None:
        terms.append(text[start:])
    return terms


# s-expressions of `else` values


_SExp = str | list["_SExp"]


def _parse_sexp(text: str) -> _SExp | None:
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    stack: list[list[_SExp]] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) < 2:
                return None
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1 or len(stack[0]) != 1:
        return None
    return stack[0][0]


def _show(e: _SExp) -> str:
    return e if isinstance(e, str) else "(" + " ".join(_show(x) for x in e) + ")"


def _eval(e: _SExp, args: tuple[str, ...]) -> str | None:
    """Evaluate an `else` expression at `args`; None for anything but =, and, or, not, ite, :var."""
    if isinstance(e, str):
        return e
    if not e:
        return None
    head = e[0]
    if head == ":var" and len(e) == 2 and isinstance(e[1], str) and e[1].isdigit():
        i = int(e[1])
        return args[i] if i < len(args) else None
    if not _mentions_var(e):
        return _show(e)  # a constant such as (- 1) or (/ 3.0 4.0)
    parts = [_eval(x, args) for x in e[1:]]
    if any(p is None for p in parts):
        return None
    vals = [p for p in parts if p is not None]
    if head == "=" and len(vals) == 2:
        return _bool_text(vals[0] == vals[1])
    if head == "not" and len(vals) == 1 and vals[0] in ("true", "false"):
        return _bool_text(vals[0] == "false")
    if head in ("and", "or") and all(v in ("true", "false") for v in vals):
        truth = [v == "true" for v in vals]
        return _bool_text(all(truth) if head == "and" else any(truth))
    if head == "ite" and len(vals) == 3 and vals[0] in ("true", "false"):
        return vals[1] if vals[0] == "true" else vals[2]
    return None


def _mentions_var(e: _SExp) -> bool:
    return isinstance(e, list) and (e[:1] == [":var"] or any(_mentions_var(x) for x in e))


def _bool_text(b: bool) -> str:
    return "true" if b else "false"


# literals


_INT = re.compile(r"^-?\d+$")
_DECIMAL = re.compile(r"^-?\d+(?:\.\d+)?$")
_BV = re.compile(r"^(\d+)bv(\d+)$")


def _int_literal(text: str) -> int | None:
    e = _parse_sexp(text)
    return _int_of(e) if e is not None else None


def _int_of(e: _SExp) -> int | None:
    if isinstance(e, str):
        return int(e) if _INT.match(e) else None
    if len(e) == 2 and e[0] == "-":
        inner = _int_of(e[1])
        return None if inner is None else -inner
    return None


def _real_literal(text: str) -> Fraction | None:
    e = _parse_sexp(text)
    return _real_of(e) if e is not None else None


def _real_of(e: _SExp) -> Fraction | None:
    if isinstance(e, str):
        return Fraction(e) if _DECIMAL.match(e) else None
    if len(e) == 2 and e[0] == "-":
        inner = _real_of(e[1])
        return None if inner is None else -inner
    if len(e) == 3 and e[0] == "/":
        num, den = _real_of(e[1]), _real_of(e[2])
        if num is None or den is None or den == 0:
            return None
        return num / den
    return None


def _bv_literal(text: str, width: int) -> int | None:
    m = _BV.match(text)
    if not m or int(m.group(2)) != width:
        return None
    value = int(m.group(1))
    return value if value < 2**width else None


def _is_element(text: str) -> bool:
    return text.startswith("T@U!val!")


# the reader


_VAR = r"#0(?:@(\d+))?(?:@@\d+)?$"


class _Reader:
    """Evaluates one Boogie model."""

    def __init__(self, model: Model) -> None:
        self.m = model

    def apply(self, name: str, *args: str) -> str | None:
        table = self.m.functions.get(name)
        if table is None:
            return None
        hit = table.entries.get(args)
        if hit is not None:
            return hit
        if table.default is None:
            return None
        e = _parse_sexp(table.default)
        return None if e is None else _eval(e, args)

    def final(self, boogie_name: str) -> str | None:
        """The constant `boogie_name#0` of the final state (highest incarnation); None if absent or two
        spellings of it disagree."""
        pattern = re.compile("^" + re.escape(boogie_name) + _VAR)
        best = -2
        values: set[str] = set()
        for name, value in self.m.constants.items():
            m = pattern.match(name)
            if not m:
                continue
            inc = -1 if m.group(1) is None else int(m.group(1))
            if inc > best:
                best, values = inc, {value}
            elif inc == best:
                values.add(value)
        return values.pop() if len(values) == 1 else None

    def heap(self) -> str | None:
        best = -2
        value: str | None = None
        for name, v in self.m.constants.items():
            m = re.match(r"^\$Heap(?:@(\d+))?$", name)
            if m:
                inc = -1 if m.group(1) is None else int(m.group(1))
                if inc > best:
                    best, value = inc, v
        return value

    def output(self, name: str, t: DafnyType) -> Value | None:
        value = self.final(name)
        return None if value is None else self.value(value, t, 0)

    def type_constant(self, t: DafnyType) -> str | None:
        c = self.m.constants
        if isinstance(t, IntT | NatT):
            return c.get("intType")
        if isinstance(t, BoolT):
            return c.get("boolType")
        if isinstance(t, CharT):
            return c.get("charType")
        if isinstance(t, RealT):
            return c.get("realType")
        if isinstance(t, BvT):
            return c.get(f"bv{t.width}Type")
        if isinstance(t, SeqT | StringT):
            box = c.get("BoxType")
            return None if box is None else self.apply("SeqType", box)
        if isinstance(t, TupleT | DatatypeT):
            return c.get("DatatypeTypeType")
        if isinstance(t, ArrayT):
            return c.get("refType")
        return None

    def typed(self, u: str, t: DafnyType) -> bool:
        """False when the model's `type` table says element u is of another type than t."""
        if not _is_element(u):
            return True
        table = self.m.functions.get("type")
        actual = None if table is None else table.entries.get((u,))
        return actual is None or actual == self.type_constant(t)

    def value(self, u: str, t: DafnyType, depth: int) -> Value | None:
        """Decode u, a native value or a universal element (never a box), as a value of type t."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(t, IntT | NatT | BoolT | RealT | BvT | CharT) and not self.typed(u, t):
            return None
        if isinstance(t, IntT | NatT):
            n = _int_literal(u)
            if n is None and _is_element(u):
                via = self.apply("U_2_int", u)
                n = None if via is None else _int_literal(via)
            if n is None or (isinstance(t, NatT) and n < 0):
                return None
            return IntV(n)
        if isinstance(t, BoolT):
            b = u if u in ("true", "false") else (self.apply("U_2_bool", u) if _is_element(u) else None)
            return None if b not in ("true", "false") else BoolV(b == "true")
        if isinstance(t, RealT):
            r = _real_literal(u)
            if r is None and _is_element(u):
                via = self.apply("U_2_real", u)
                r = None if via is None else _real_literal(via)
            return None if r is None else RealV(r)
        if isinstance(t, BvT):
            v = _bv_literal(u, t.width)
            if v is None and _is_element(u):
                via = self.apply(f"U_2_bv{t.width}", u)
                v = None if via is None else _bv_literal(via, t.width)
            return None if v is None else BvV(t.width, v)
        if isinstance(t, CharT):
            code_text = self.apply("char#ToInt", u) if _is_element(u) else None
            code = None if code_text is None else _int_literal(code_text)
            if code is None or not 0 <= code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                return None
            return CharV(chr(code))
        if isinstance(t, SeqT | StringT):
            elems = self.sequence(u, CharT() if isinstance(t, StringT) else t.elem, depth)
            return None if elems is None else SeqV(elems)
        if isinstance(t, TupleT):
            return self.tuple_value(u, t, depth)
        if isinstance(t, DatatypeT):
            return self.datatype_value(u, t, depth)
        if isinstance(t, ArrayT):
            return self.array_value(u, t, depth)
        return None

    def boxed(self, box: str, t: DafnyType, depth: int) -> Value | None:
        ty = self.type_constant(t)
        if ty is None:
            return None
        inner = self.apply("$Unbox", ty, box)
        return None if inner is None else self.value(inner, t, depth + 1)

    def length(self, s: str) -> int | None:
        text = self.apply("Seq#Length", s)
        n = None if text is None else _int_literal(text)
        return n if n is not None and 0 <= n <= MAX_LENGTH else None

    def sequence(self, s: str, elem: DafnyType, depth: int) -> tuple[Value, ...] | None:
        if not _is_element(s):
            return None
        built = self.built(s, elem, depth)
        if built is not None:
            return built
        n = self.length(s)
        if n is None:
            return None
        out: list[Value] = []
        for i in range(n):
            box = self.apply("Seq#Index", s, str(i))
            v = None if box is None else self.boxed(box, elem, depth)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def built(self, s: str, elem: DafnyType, depth: int) -> tuple[Value, ...] | None:
        """s read along explicit `Seq#Build` entries down to an empty sequence; None when it is not built."""
        table = self.m.functions.get("Seq#Build")
        if table is None:
            return None
        by_result: dict[str, list[tuple[str, ...]]] = {}
        for args, result in table.entries.items():
            by_result.setdefault(result, []).append(args)
        boxes: list[str] = []
        current = s
        while current in by_result:
            if len(by_result[current]) != 1 or len(boxes) > MAX_LENGTH:
                return None  # two ways to build it: inconsistent
            args = by_result[current][0]
            if len(args) != 2:
                return None
            current, box = args
            boxes.append(box)
        if not boxes:
            return None
        length = self.m.functions.get("Seq#Length")
        if length is None or length.entries.get((current,)) != "0":
            return None  # built on a prefix it does not know
        stated = length.entries.get((s,))
        if stated is not None and stated != str(len(boxes)):
            return None
        out: list[Value] = []
        for box in reversed(boxes):
            v = self.boxed(box, elem, depth)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def explicit(self, name: str, *args: str) -> str | None:
        table = self.m.functions.get(name)
        return None if table is None else table.entries.get(args)

    def tuple_value(self, u: str, t: TupleT, depth: int) -> Value | None:
        """Its components: the constructor's explicit entry for u, else the selectors (which must agree)."""
        n = len(t.elems)
        made = self.m.functions.get(f"#_System._tuple#{n}._#Make{n}")
        makers = [] if made is None else [args for args, result in made.entries.items() if result == u]
        if len(makers) > 1 or (makers and len(makers[0]) != n):
            return None
        boxes: list[str] = []
        for i in range(n):
            selector = f"_System.Tuple{n}._{i}"
            stated = self.explicit(selector, u)
            if makers and stated is not None and stated != makers[0][i]:
                return None  # the constructor table disagrees with a selector
            box = makers[0][i] if makers else self.apply(selector, u)
            if box is None:
                return None
            boxes.append(box)
        out: list[Value] = []
        for box, et in zip(boxes, t.elems, strict=True):
            v = self.boxed(box, et, depth)
            if v is None:
                return None
            out.append(v)
        return TupleV(tuple(out))

    def datatype_value(self, u: str, t: DatatypeT, depth: int) -> Value | None:
        """The constructor from `DatatypeCtorId` against the `##` constants (the `_q` discriminator tables are
        often wrong), the fields from the selectors (`_module.Option.value`; an anonymous field's selector is
        named by a program-wide counter, so only the constructor's explicit entry gives it). A field of a type
        parameter is boxed. Datatypes of the top-level module only (`_module`)."""
        if not _is_element(u):
            return None
        prefix = f"_module.{t.name}"
        ctor_id = self.apply("DatatypeCtorId", u)
        ctors = [c for c in constructors(t) if self.m.constants.get(f"##{prefix}.{c.name}") is not None]
        hits = [c for c in ctors if ctor_id is not None and self.m.constants.get(f"##{prefix}.{c.name}") == ctor_id]
        if len(hits) != 1:
            return None
        c = hits[0]
        if not c.types:
            nullary = self.m.constants.get(f"#{prefix}.{c.name}")
            return DatatypeV(t.name, c.name, ()) if nullary in (None, u) else None
        decl = t.decl.ctor(c.name)
        assert decl is not None
        made = self.m.functions.get(f"#{prefix}.{c.name}")
        makers = [] if made is None else [args for args, result in made.entries.items() if result == u]
        if len(makers) > 1 or (makers and len(makers[0]) != len(c.types)):
            return None
        out: list[Value] = []
        for i, (field, ft) in enumerate(zip(decl.fields, c.types, strict=True)):
            raw = self.apply(f"{prefix}.{field.name}", u) if field.name else None
            if makers:
                if raw is not None and self.explicit(f"{prefix}.{field.name}", u) not in (None, makers[0][i]):
                    return None  # the constructor table disagrees with a selector
                raw = makers[0][i]
            if raw is None:
                return None
            generic = field.type_text.strip() in t.decl.params
            v = self.boxed(raw, ft, depth) if generic else self.value(raw, ft, depth + 1)
            if v is None:
                return None
            out.append(v)
        return DatatypeV(t.name, c.name, tuple(out))

    def array_value(self, ref: str, t: ArrayT, depth: int) -> Value | None:
        """Best effort: the contents `Seq#FromArray(heap, ref)` in the final heap, when the model has them."""
        heap = self.heap()
        if heap is None or not _is_element(ref) or ref == self.m.constants.get("null"):
            return None
        contents = self.apply("Seq#FromArray", heap, ref)
        length_text = self.apply("_System.array.Length", ref)
        length = None if length_text is None else _int_literal(length_text)
        if contents is None or length is None or self.length(contents) != length:
            return None
        elems = self.sequence(contents, t.elem, depth)
        return None if elems is None else ArrayV(elems)


# ---------------------------------------------------------------------------------------------------
# Dafny 3/4 console counterexamples



def _last_state(block: str) -> list[str]:
    """The value lines of the last state of a counterexample block."""
    states: list[list[str]] = []
    for line in block.splitlines():
        if STATE_AT.match(line.strip()):
            states.append([])
        elif states and line.strip():
            states[-1].append(line.strip())
    return states[-1] if states else []


def _from_state(lines: Sequence[str], name: str, t: DafnyType) -> Value | None:
    """`name`'s literal value in a state's lines: `name : type = value` or `assume value == name && ...;`."""
    found: set[Value] = set()
    for line in lines:
        if line.startswith("assume ") and line.endswith(";"):
            for conjunct in _conjuncts(line[len("assume ") : -1]):
                left, sep, right = conjunct.partition(" == ")
                if not sep or " == " in right:
                    continue
                for this, other in ((right.strip(), left.strip()), (left.strip(), right.strip())):
                    if this == name:
                        v = _literal(other, t)
                        if v is not None:
                            found.add(v)
            continue
        m = TYPED_LINE.match(line)
        if m and m.group(1) == name:
            v = _literal(m.group(3), t)
            if v is not None:
                found.add(v)
    return found.pop() if len(found) == 1 else None


def _conjuncts(text: str) -> list[str]:
    """Split at top-level `&&` (outside brackets, parentheses and quotes)."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c == '"' or (c == "'" and not (i and (text[i - 1].isalnum() or text[i - 1] in "_'?"))):
            quote = c  # a string or char literal; a prime after a name (`r'`) is part of the name
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif text.startswith("&&", i) and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 2
            i += 2
            continue
        i += 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _literal(text: str, t: DafnyType) -> Value | None:
    if isinstance(t, ArrayT):
        return None  # printed as `(Length := 3, [0] := 1)` or as constraints: not a literal
    try:
        return parse_value(text, t)
    except (ValueParseError, ValueError, IndexError):
        return None
