"""A question over every input asked again with its arrays and sequences short and spelled out, for a
counterexample that can be read. Pure code: the extra parameters and assumptions, and the values read back.

Dafny 2.3's model of a failed question over an array input gives the array's length but not the elements the spec
reads (its heap reads are not tied to `Seq#FromArray` in the model: measured on `ensures exists i :: 0 <= i <
a.Length && a[i] == r`, length 28961 and one element); a string or a sequence of sequences comes back with elements
the model's tables leave arbitrary, and a sequence may come back hundreds of elements long. Asked again with each
array and sequence among the question's variables (inputs and outputs) at most `BOUND` long, its length and each
element a parameter of its own (and the elements of a sequence of sequences likewise, one level down),

    method Q(a: array<int>, o1_r: int, o2_r: int, SpecScore_len_v0: int, SpecScore_v0_0: int, ...)
      requires a.Length == SpecScore_len_v0 && 0 <= SpecScore_len_v0 <= BOUND
      requires SpecScore_len_v0 > 0 ==> a[0] == SpecScore_v0_0
      ...

the model gives plain values (`SpecScore_v0_0#0 -> 12`), read like any scalar. Such a question, verified, proves
only that no witness is that short: it is asked to find witnesses, never to decide. A witness read from it is a
candidate like any other, confirmed by the concrete programs before anything is claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.dafny.types import ArrayT, CharT, DafnyType, IntT, SeqT, StringT
from bot.dafny.values import ArrayV, CharV, IntV, SeqV, Value
from bot.symbolic.counterexamples import one_model
from bot.symbolic.modeltext import split_models

BOUND = 5  # the longest array or sequence a short question admits
_LEVELS = 2  # spelled out at the top and one level down (`seq<string>`, `seq<seq<int>>`)
PREFIX = "SpecScore_"  # every name the spelling adds (`unsupported` refuses specs that use such names)

# why a question that failed has no witness when its short question verified: proved of short values, said of them
NO_SHORT_WITNESS = f"not proved, and no witness has its arrays and sequences at most {BOUND} long (proved)"

Variables = Sequence[tuple[str, DafnyType]]  # the question's variables and their types, in order


def _elem(t: DafnyType) -> DafnyType | None:
    """The element type of a variable spelled out (arrays, sequences, strings), else None."""
    if isinstance(t, ArrayT | SeqT):
        return t.elem
    return CharT() if isinstance(t, StringT) else None


def applies(variables: Variables) -> bool:
    """Whether a short question says more than the first: some variable is an array or a sequence."""
    return any(_elem(t) is not None for _, t in variables)


# a spelled variable: its expression in the question, type, name stem and level
_Spelled = tuple[str, DafnyType, str, int]


def _spelled(variables: Variables) -> list[_Spelled]:
    """Every value spelled out, outermost first: a variable by index (`v3`), an element by its path (`v3_1`)."""
    out: list[_Spelled] = []
    todo: list[_Spelled] = [(name, t, f"v{i}", 0) for i, (name, t) in enumerate(variables)]
    while todo:
        expr, t, stem, level = todo.pop(0)
        elem = _elem(t)
        if elem is None or level >= _LEVELS:
            continue
        out.append((expr, t, stem, level))
        todo += [(f"{PREFIX}{stem}_{k}", elem, f"{stem}_{k}", level + 1) for k in range(BOUND)]
    return out


# an element character is spelled as its code, an int: the model gives an int as it is, while a char is an element
# of the universal sort whose `char#ToInt` table the solver leaves arbitrary (measured: every character read as
# '\0', so two different strings read alike). Below the surrogates: a char in Dafny 2.3 (UTF-16) and 4 alike.
_CHAR_CODES = 0xD800


def extra_params(variables: Variables) -> list[str]:
    """The declarations of the length and element parameters, after the question's own."""
    out: list[str] = []
    for _, t, stem, _ in _spelled(variables):
        elem = _elem(t)
        kind = "int" if isinstance(elem, CharT) else str(elem)
        out += [f"{PREFIX}len_{stem}: int", *(f"{PREFIX}{stem}_{k}: {kind}" for k in range(BOUND))]
    return out


def assumptions(variables: Variables) -> list[str]:
    """The `requires` that tie each spelled value to its parameters (before the spec's own: they guard it)."""
    out: list[str] = []
    for expr, t, stem, _ in _spelled(variables):
        n = f"{PREFIX}len_{stem}"
        size = f"{expr}.Length" if isinstance(t, ArrayT) else f"|{expr}|"
        out.append(f"  requires {size} == {n} && 0 <= {n} <= {BOUND}")
        for k in range(BOUND):
            e = f"{PREFIX}{stem}_{k}"
            same = f"0 <= {e} < {_CHAR_CODES} && {expr}[{k}] == {e} as char" if isinstance(_elem(t), CharT) \
                else f"{expr}[{k}] == {e}"
            out.append(f"  requires {n} > {k} ==> {same}")
    return out


def read(model: str, variables: Variables) -> list[tuple[Value, ...]]:
    """Every distinct reading, model by model, of the variables (each spelled one assembled from its length and
    elements, all from the same model)."""
    out: list[tuple[Value, ...]] = []
    for text in split_models(model):
        named = one_model(text)
        if named is None:
            continue
        values = [_value(named, name, t, f"v{i}", 0) for i, (name, t) in enumerate(variables)]
        found = tuple(v for v in values if v is not None)
        if len(found) == len(values) and found not in out:
            out.append(found)
    return out


def _value(named: Callable[[str, DafnyType], Value | None], name: str, t: DafnyType, stem: str,
           level: int) -> Value | None:
    elem = _elem(t)
    if isinstance(t, CharT) and level > 0:  # an element character, spelled as its code
        code = named(name, IntT())
        return CharV(chr(code.v)) if isinstance(code, IntV) and 0 <= code.v < _CHAR_CODES else None
    if elem is None or level >= _LEVELS:
        return named(name, t)
    n = named(f"{PREFIX}len_{stem}", IntT())
    if not isinstance(n, IntV) or not 0 <= n.v <= BOUND:
        return None
    elems = [_value(named, f"{PREFIX}{stem}_{k}", elem, f"{stem}_{k}", level + 1) for k in range(n.v)]
    found = tuple(v for v in elems if v is not None)
    if len(found) != len(elems):
        return None
    return ArrayV(found) if isinstance(t, ArrayT) else SeqV(found)
