"""Dafny types the tool can build values of, parsed from type text such as `seq<array<int>>`.

Pure code. Anything else parses to `Unsupported`, which the scorer reports per test, naming the type.
A type nested more than `MAX_TYPE_NESTING` levels deep is no type any spec needs: `parse_type` raises
`TypeTooDeep` for it, so that callers report it where it was written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from bot.dafny.lexer import LexError, Token, TokKind, tokenize


@dataclass(frozen=True)
class IntT:
    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class NatT:
    def __str__(self) -> str:
        return "nat"


@dataclass(frozen=True)
class BoolT:
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class CharT:
    def __str__(self) -> str:
        return "char"


@dataclass(frozen=True)
class RealT:
    def __str__(self) -> str:
        return "real"


@dataclass(frozen=True)
class BvT:
    width: int

    def __str__(self) -> str:
        return f"bv{self.width}"


@dataclass(frozen=True)
class StringT:
    """`string`, a synonym of seq<char>, kept apart so values print as string literals."""

    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class SeqT:
    elem: DafnyType

    def __str__(self) -> str:
        return f"seq<{self.elem}>"


@dataclass(frozen=True)
class ArrayT:
    elem: DafnyType

    def __str__(self) -> str:
        return f"array<{self.elem}>"


@dataclass(frozen=True)
class SetT:
    """`set<T>`: finite sets (their values print as `{a, b}`, elements in a fixed order)."""

    elem: DafnyType

    def __str__(self) -> str:
        return f"set<{self.elem}>"


@dataclass(frozen=True)
class MultisetT:
    elem: DafnyType

    def __str__(self) -> str:
        return f"multiset<{self.elem}>"


@dataclass(frozen=True)
class MapT:
    """`map<K, V>`: finite maps (`map[k := v]`)."""

    key: DafnyType
    value: DafnyType

    def __str__(self) -> str:
        return f"map<{self.key}, {self.value}>"


CollectionT = SetT | MultisetT | MapT


@dataclass(frozen=True)
class TupleT:
    elems: tuple[DafnyType, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(e) for e in self.elems) + ")"


@dataclass(frozen=True)
class FieldDecl:
    name: str  # "" for a positional field
    type_text: str  # as written: type parameters are resolved where the field is used


@dataclass(frozen=True)
class CtorDecl:
    name: str
    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True)
class DatatypeDecl:
    """`datatype Name<T> = A | B(x: T)`, as declared (field types as text, resolved per use)."""

    name: str
    params: tuple[str, ...]
    ctors: tuple[CtorDecl, ...]
    line: int

    def ctor(self, name: str) -> CtorDecl | None:
        return next((c for c in self.ctors if c.name == name), None)


@dataclass(frozen=True)
class SynonymDecl:
    """`type Name<T> = Type`: a type synonym, its right-hand side as text (read per use, its parameters bound)."""

    name: str
    params: tuple[str, ...]
    type_text: str
    line: int


@dataclass(frozen=True)
class Datatypes:
    """The datatypes (and type synonyms) a spec can name: those declared in its file and its includes, by plain name.
    A name declared twice (in two modules) names neither: its values could not be told apart."""

    decls: tuple[DatatypeDecl, ...] = ()
    # names the files declare otherwise (functions, methods, constants ...): a constructor of the same name is not
    # what the bare name means there (Dafny resolves it to the other declaration), so it is read only qualified
    shadowed: frozenset[str] = frozenset()
    # per scope, computed once: the constructors of each datatype use, and the ranks of those with finite values
    memo: dict[object, object] = field(default_factory=dict, compare=False, hash=False, repr=False)
    synonyms: tuple[SynonymDecl, ...] = ()

    def get(self, name: str) -> DatatypeDecl | None:
        found = [d for d in self.decls if d.name == name]
        return found[0] if len(found) == 1 and not self._synonyms(name) else None

    def synonym(self, name: str) -> SynonymDecl | None:
        """The synonym of this name, when it is the only declaration of the name."""
        found = self._synonyms(name)
        return found[0] if len(found) == 1 and not any(d.name == name for d in self.decls) else None

    def _synonyms(self, name: str) -> list[SynonymDecl]:
        return [d for d in self.synonyms if d.name == name]

    def ctor_owner(self, ctor: str) -> list[DatatypeDecl]:
        return [d for d in self.decls if d.ctor(ctor) is not None]


NO_DATATYPES = Datatypes()


@dataclass(frozen=True)
class DatatypeT:
    """A use of a declared datatype, e.g. `Option<int>`. Equal by name and arguments; `scope` is where
    its constructors' field types are looked up (kept out of equality: the same type read in two files)."""

    name: str
    args: tuple[DafnyType, ...]
    scope: Datatypes = field(compare=False, repr=False, default=NO_DATATYPES)

    def __str__(self) -> str:
        return self.name + ("<" + ", ".join(str(a) for a in self.args) + ">" if self.args else "")

    @property
    def decl(self) -> DatatypeDecl:
        d = self.scope.get(self.name)
        if d is None:
            raise ValueError(f"datatype {self.name} is not declared")
        return d


@dataclass(frozen=True)
class Ctor:
    """A constructor of a datatype use, its fields' types resolved."""

    name: str
    names: tuple[str, ...]  # "" for positional fields
    types: tuple[DafnyType, ...]


def constructors(t: DatatypeT) -> tuple[Ctor, ...]:
    """The constructors of t, with t's type arguments put in for the declaration's parameters (once per scope)."""
    key = ("ctors", t)
    found = t.scope.memo.get(key)
    if found is None:
        d = t.decl
        bind = dict(zip(d.params, t.args, strict=True))
        found = tuple(
            Ctor(c.name, tuple(f.name for f in c.fields),
                 tuple(parse_type(f.type_text, t.scope, bind) for f in c.fields))
            for c in d.ctors
        )
        t.scope.memo[key] = found
    assert isinstance(found, tuple)
    return found


def constructor(t: DatatypeT, name: str) -> Ctor | None:
    return next((c for c in constructors(t) if c.name == name), None)


MAX_BV_WIDTH = 4096  # widest bitvector type given values
MAX_SYNONYM_USES = 1000  # type synonym uses expanded while reading one type (the bound on its size)
MAX_TYPE_NESTING = 100  # `seq<`, `array<` and `(` inside each other; far beyond real specs, well within Python's stack
TYPE_TOO_DEEP = "type nested more than {limit} levels deep"


class TypeTooDeep(ValueError):
    """Type text nested more than MAX_TYPE_NESTING levels deep."""

    def __init__(self) -> None:
        super().__init__(TYPE_TOO_DEEP.format(limit=MAX_TYPE_NESTING))


class _TooManyUses(ValueError):
    """More than MAX_SYNONYM_USES synonym uses expanded in one type: the whole type is unsupported."""


@dataclass(frozen=True)
class Unsupported:
    text: str

    def __str__(self) -> str:
        return self.text


DafnyType = (
    IntT | NatT | BoolT | CharT | RealT | BvT | StringT | SeqT | ArrayT | SetT | MultisetT | MapT | TupleT | DatatypeT
    | Unsupported
)


def parse_type(
    text: str, scope: Datatypes = NO_DATATYPES, bind: Mapping[str, DafnyType] | None = None
) -> DafnyType:
    """Parse a type as written in a signature: odd text becomes Unsupported; raises TypeTooDeep only.
    `scope` holds the datatypes it may name; `bind` gives type parameters their arguments."""
    try:
        toks = [t for t in tokenize(text) if t.kind is not TokKind.COMMENT]
    except LexError:
        return Unsupported(text.strip())
    try:
        t, k = _Types(scope, bind or {}).parse(toks, 0, 0)
    except TypeTooDeep:
        raise
    except _TooManyUses:
        return Unsupported(f"{text.strip()} (its synonyms expand to more than {MAX_SYNONYM_USES} uses)")
    except (IndexError, ValueError):
        return Unsupported(text.strip())
    if k != len(toks):
        return Unsupported(text.strip())
    return t


def type_extent(toks: list[Token], k: int) -> int | None:
    """The index just after the type that starts at toks[k] (as written, no name resolved); None when none does."""
    try:
        _, end = _Types(NO_DATATYPES, {}).parse(list(toks), k, 0)
    except (IndexError, ValueError):  # TypeTooDeep too
        return None
    return end


class _Types:
    def __init__(
        self, scope: Datatypes, bind: Mapping[str, DafnyType], expanding: frozenset[str] = frozenset(),
        expanded: list[int] | None = None,
    ) -> None:
        self.scope = scope
        self.bind = bind
        self.expanding = expanding  # the synonyms being expanded around this type: one named again is a cycle
        # synonym uses expanded so far in this type, shared by the readers of its parts: `type B = (A, A)`,
        # `type C = (B, B)` ... doubles per level, so the count is bounded, not only the depth
        self.expanded = expanded if expanded is not None else [0]

    def parse(self, toks: list[Token], k: int, depth: int) -> tuple[DafnyType, int]:
        """The type at toks[k] and the index after it; depth counts the brackets around it."""
        tok = toks[k]
        if tok.kind is TokKind.OP and tok.text == "(":
            if depth >= MAX_TYPE_NESTING:
                raise TypeTooDeep
            elems: list[DafnyType] = []
            k += 1
            while True:
                e, k = self.parse(toks, k, depth + 1)
                elems.append(e)
                if toks[k].text == ",":
                    k += 1
                    continue
                if toks[k].text == ")":
                    k += 1
                    break
                raise ValueError("bad tuple type")
            if len(elems) == 1:
                return elems[0], k
            return TupleT(tuple(elems)), k
        if tok.kind is not TokKind.IDENT:
            raise ValueError("type expected")
        name = tok.text
        k += 1
        simple: dict[str, DafnyType] = {
            "int": IntT(), "nat": NatT(), "bool": BoolT(), "char": CharT(), "real": RealT(),
            "string": StringT(),
        }
        if name in self.bind and not (k < len(toks) and toks[k].text == "<"):
            return self.bind[name], k
        if name in simple:
            return simple[name], k
        if name.startswith("bv") and name[2:].isdigit():
            # a bitvector wider than any spec needs would make 2**width cost minutes and gigabytes
            width = int(name[2:]) if len(name) <= 12 else MAX_BV_WIDTH + 1
            return (BvT(width) if width <= MAX_BV_WIDTH else Unsupported(name)), k
        if name in ("seq", "array") and k < len(toks) and toks[k].text == "<":
            if depth >= MAX_TYPE_NESTING:
                raise TypeTooDeep
            inner, k = self.parse(toks, k + 1, depth + 1)
            k = self.close_angle(toks, k)
            return (SeqT(inner) if name == "seq" else ArrayT(inner)), k
        if name in ("set", "multiset", "map") and k < len(toks) and toks[k].text == "<":
            # finite collections only: `iset` and `imap` have no literal for every value, and stay unsupported
            return self.collection(name, toks, k, depth)
        decl = self.scope.get(name)
        if decl is not None:
            return self.datatype(decl, toks, k, depth)
        synonym = self.scope.synonym(name)
        if synonym is not None and name not in self.expanding:
            return self.expand(synonym, toks, k, depth)
        # a user type, a generic, array2, iset, imap ...: skip its arguments and call it unsupported
        start = k - 1
        if k < len(toks) and toks[k].text == "<":
            depth = 0
            while k < len(toks):
                depth += toks[k].text.count("<") - toks[k].text.count(">")
                k += 1
                if depth <= 0:
                    break
        return Unsupported(" ".join(t.text for t in toks[start:k]).replace(" < ", "<").replace(" >", ">")), k

    def collection(self, name: str, toks: list[Token], k: int, depth: int) -> tuple[DafnyType, int]:
        if depth >= MAX_TYPE_NESTING:
            raise TypeTooDeep
        first, k = self.parse(toks, k + 1, depth + 1)
        if name == "map":
            if toks[k].text != ",":
                raise ValueError("map<K, V> expected")
            second, k = self.parse(toks, k + 1, depth + 1)
            return MapT(first, second), self.close_angle(toks, k)
        k = self.close_angle(toks, k)
        return (SetT(first) if name == "set" else MultisetT(first)), k

    def expand(self, decl: SynonymDecl, toks: list[Token], k: int, depth: int) -> tuple[DafnyType, int]:
        """A synonym's use, read as its right-hand side with its parameters bound to the given arguments."""
        args, k = self.arguments(toks, k, depth)
        if len(args) != len(decl.params):
            shown = decl.name + ("<" + ", ".join(map(str, args)) + ">" if args else "")
            return Unsupported(f"{shown} (give its {len(decl.params)} type argument(s))"), k
        if depth >= MAX_TYPE_NESTING:
            raise TypeTooDeep
        self.expanded[0] += 1
        if self.expanded[0] > MAX_SYNONYM_USES:
            raise _TooManyUses
        try:
            inner = [t for t in tokenize(decl.type_text) if t.kind is not TokKind.COMMENT]
        except LexError:
            return Unsupported(f"{decl.name} (= {decl.type_text})"), k
        bind = dict(zip(decl.params, args, strict=True))
        reader = _Types(self.scope, bind, self.expanding | {decl.name}, self.expanded)
        try:
            t, end = reader.parse(inner, 0, depth + 1)
        except (_TooManyUses, TypeTooDeep):
            raise
        except (IndexError, ValueError):
            return Unsupported(f"{decl.name} (= {decl.type_text})"), k
        if end != len(inner) or isinstance(t, Unsupported):
            return Unsupported(f"{decl.name} (= {decl.type_text})"), k
        return t, k

    def arguments(self, toks: list[Token], k: int, depth: int) -> tuple[list[DafnyType], int]:
        """The type arguments `<A, B>` at toks[k], if any, and the index after them."""
        args: list[DafnyType] = []
        if k < len(toks) and toks[k].text == "<":
            if depth >= MAX_TYPE_NESTING:
                raise TypeTooDeep
            k += 1
            while True:
                a, k = self.parse(toks, k, depth + 1)
                args.append(a)
                if toks[k].text == ",":
                    k += 1
                    continue
                k = self.close_angle(toks, k)
                break
        return args, k

    def datatype(self, decl: DatatypeDecl, toks: list[Token], k: int, depth: int) -> tuple[DafnyType, int]:
        args: list[DafnyType] = []
        if k < len(toks) and toks[k].text == "<":
            if depth >= MAX_TYPE_NESTING:
                raise TypeTooDeep
            k += 1
            while True:
                a, k = self.parse(toks, k, depth + 1)
                args.append(a)
                if toks[k].text == ",":
                    k += 1
                    continue
                k = self.close_angle(toks, k)
                break
        if len(args) != len(decl.params):
            # type arguments left to inference: the tool cannot know them
            shown = decl.name + ("<" + ", ".join(map(str, args)) + ">" if args else "")
            return Unsupported(f"{shown} (give its {len(decl.params)} type argument(s))"), k
        return DatatypeT(decl.name, tuple(args), self.scope), k

    @staticmethod
    def close_angle(toks: list[Token], k: int) -> int:
        if toks[k].text == ">":
            return k + 1
        if toks[k].text == ">>":
            # `seq<seq<int>>`: the lexer made one `>>` token; leave one `>` for the caller
            toks[k] = Token(TokKind.OP, ">", toks[k].start + 1, toks[k].end, toks[k].line, toks[k].col + 1)
            return k
        raise ValueError("'>' expected")


def unsupported_parts(t: DafnyType) -> list[str]:
    """Names of the unsupported types inside t (empty when the tool can build values of t). Each datatype use is
    looked at once, so the work is linear in the uses reachable from t (at most MAX_DATATYPE_USES)."""
    out: list[str] = []
    visited: set[DatatypeT] = set()
    stack: list[DafnyType] = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Unsupported):
            out.append(x.text)
        elif isinstance(x, SeqT | ArrayT):
            stack.append(x.elem)
        elif isinstance(x, SetT | MultisetT | MapT):
            if contains_array(x):
                out.append(f"{x} (an array inside a {_kind(x)} is a reference the tool cannot compare)")
            stack.extend(reversed(collection_parts(x)))
        elif isinstance(x, TupleT):
            stack.extend(reversed(x.elems))
        elif isinstance(x, DatatypeT) and x not in visited:
            visited.add(x)
            if len(visited) > MAX_DATATYPE_USES:
                root = t.name if isinstance(t, DatatypeT) else str(t)
                out.append(f"{root} (its values nest its type ever deeper)")
                break
            for c in constructors(x):
                if any(contains_array(ft) for ft in c.types):
                    out.append(f"{x} (an array inside a datatype is a reference the tool cannot compare)")
                stack.extend(reversed(c.types))
    if not out and not has_finite_value(t):
        out.append(f"{t} (no finite value)")
    return list(dict.fromkeys(out))


def contains_array(t: DafnyType) -> bool:
    """Whether values of t hold arrays (references), directly or in sequences and tuples."""
    if isinstance(t, ArrayT):
        return True
    if isinstance(t, SeqT):
        return contains_array(t.elem)
    if isinstance(t, SetT | MultisetT | MapT):
        return any(contains_array(e) for e in collection_parts(t))
    if isinstance(t, TupleT):
        return any(contains_array(e) for e in t.elems)
    return False


def map_parts(t: DafnyType, f: Callable[[DafnyType], DafnyType]) -> DafnyType:
    """`t` with `f` applied to each type it is built of (elements, keys and values, tuple items, a datatype's type
    arguments); a type of no parts as it is. The one recursion over a type's structure for rewriting it."""
    if isinstance(t, SeqT):
        return SeqT(f(t.elem))
    if isinstance(t, ArrayT):
        return ArrayT(f(t.elem))
    if isinstance(t, SetT):
        return SetT(f(t.elem))
    if isinstance(t, MultisetT):
        return MultisetT(f(t.elem))
    if isinstance(t, MapT):
        return MapT(f(t.key), f(t.value))
    if isinstance(t, TupleT):
        return TupleT(tuple(f(e) for e in t.elems))
    if isinstance(t, DatatypeT):
        return DatatypeT(t.name, tuple(f(a) for a in t.args), t.scope)
    return t


def collection_parts(t: SetT | MultisetT | MapT) -> tuple[DafnyType, ...]:
    """The element type of a set or multiset; a map's key and value types."""
    return (t.key, t.value) if isinstance(t, MapT) else (t.elem,)


def _kind(t: SetT | MultisetT | MapT) -> str:
    return "map" if isinstance(t, MapT) else "multiset" if isinstance(t, MultisetT) else "set"


MAX_DATATYPE_USES = 100  # datatype uses reachable from one type (the same bound as type nesting); past it: none


def _reachable(t: DatatypeT) -> list[DatatypeT] | None:
    """The datatype uses t's values may contain (t first); None past MAX_DATATYPE_USES."""
    found: dict[DatatypeT, None] = {t: None}
    todo = [t]
    while todo:
        for c in constructors(todo.pop()):
            for u in _datatypes_in(c.types):
                if u not in found:
                    if len(found) >= MAX_DATATYPE_USES:
                        return None
                    found[u] = None
                    todo.append(u)
    return list(found)


def _datatypes_in(types: Iterable[DafnyType]) -> list[DatatypeT]:
    out: list[DatatypeT] = []
    stack = list(types)
    while stack:
        x = stack.pop()
        if isinstance(x, DatatypeT):
            out.append(x)
        elif isinstance(x, TupleT):
            stack.extend(x.elems)
        # the elements of a sequence, an array or a collection are not needed for a value (it may be empty)
    return out


def _finite_ranks(t: DatatypeT) -> dict[DatatypeT, int]:
    """The datatype uses reachable from t that have a finite value, each with the round of a least fixpoint in which
    it got one: a constructor whose datatype fields all got theirs in earlier rounds builds one (so following those
    constructors always ends). Computed once per scope and type."""
    key = ("finite", t)
    memo = t.scope.memo.get(key)
    if isinstance(memo, dict):
        return memo
    uses = _reachable(t)
    ranks: dict[DatatypeT, int] = {}
    if uses is not None:
        round_no = 0
        changed = True
        while changed:
            changed = False
            done = dict(ranks)  # ranks of earlier rounds only
            for u in uses:
                if u not in ranks and any(_buildable(c, done) for c in constructors(u)):
                    ranks[u] = round_no
                    changed = True
            round_no += 1
    t.scope.memo[key] = ranks
    return ranks


def _buildable(c: Ctor, done: dict[DatatypeT, int]) -> bool:
    return all(_leaf_finite(ft) for ft in c.types) and all(u in done for u in _datatypes_in(c.types))


def _leaf_finite(t: DafnyType) -> bool:
    if isinstance(t, TupleT):
        return all(_leaf_finite(e) for e in t.elems)
    return not isinstance(t, Unsupported)


def has_finite_value(t: DafnyType) -> bool:
    """Whether t has a value of finite size (a sequence may be empty; a datatype needs a constructor that ends)."""
    if isinstance(t, TupleT):
        return all(has_finite_value(e) for e in t.elems)
    if isinstance(t, DatatypeT):
        return t in _finite_ranks(t)
    return not isinstance(t, Unsupported)


def base_constructor(t: DatatypeT) -> Ctor:
    """The first constructor of t whose datatype fields got finite values in earlier rounds than t (what placeholders
    and fresh values use: following base constructors always ends)."""
    ranks = _finite_ranks(t)
    if t not in ranks:
        raise ValueError(f"datatype {t} has no finite value")
    earlier = {u: r for u, r in ranks.items() if r < ranks[t]}
    for c in constructors(t):
        if _buildable(c, earlier):
            return c
    raise ValueError(f"datatype {t} has no finite value")  # unreachable: t got its rank from such a constructor


def constructor_words(types: Iterable[DafnyType]) -> frozenset[str]:
    """The datatype and constructor names in scope where these types are used: words a literal may contain."""
    scopes: list[Datatypes] = []
    stack = list(types)
    while stack:
        t = stack.pop()
        if isinstance(t, SeqT | ArrayT):
            stack.append(t.elem)
        elif isinstance(t, SetT | MultisetT | MapT):
            stack.extend(collection_parts(t))
        elif isinstance(t, TupleT):
            stack.extend(t.elems)
        elif isinstance(t, DatatypeT) and t.scope not in scopes:
            scopes.append(t.scope)
    words = {w for sc in scopes for d in sc.decls for w in (d.name, *(c.name for c in d.ctors))}
    return frozenset(words - {w for sc in scopes for w in sc.shadowed})
