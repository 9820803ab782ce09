"""Scores read back from the JSON report (bot/report/json_report.py). Pure code.

The fork recipe's second workflow posts what a pull request's run saved; that file is data from an
untrusted run. It is read strictly (every field's type checked, sizes bounded) and the comment is
rendered again from it, so whatever it holds reaches GitHub through the same escaping as any report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from bot.dafny.spans import ClauseSpan, EnsuresSpan
from bot.symbolic.results import (
    Axiom,
    BackgroundStatus,
    CaseResult,
    CaseStatus,
    Everywhere,
    EverywhereStatus,
    KillProof,
    MethodScore,
    MutantResult,
    MutantStatus,
    Relation,
    SpecChange,
    Undecided,
    method_score,
)

MAX_TEXT = 20_000  # longest string field kept
MAX_ITEMS = 10_000  # most methods, cases or mutants in one list

T = TypeVar("T")


class ReportError(ValueError):
    """The saved report is not one this tool wrote; the message says where."""


def _str(d: dict[str, Any], key: str, where: str) -> str:
    v = d.get(key, "")
    if not isinstance(v, str):
        raise ReportError(f"{where}.{key}: not a string")
    return v[:MAX_TEXT]


def _int(d: dict[str, Any], key: str, where: str) -> int:
    v = d.get(key, 0)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ReportError(f"{where}.{key}: not an integer")
    return v


def _list(d: dict[str, Any], key: str, where: str, item: Callable[[Any, str], T]) -> list[T]:
    v = d.get(key, [])
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise ReportError(f"{where}.{key}: not a list (of at most {MAX_ITEMS} items)")
    return [item(x, f"{where}.{key}[{i}]") for i, x in enumerate(v)]


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ReportError(f"{where}: not an object")
    return v


def _enum(cls: type[Any], d: dict[str, Any], key: str, where: str, optional: bool = False) -> Any:
    v = d.get(key)
    if v is None and optional:
        return None
    try:
        return cls(v)
    except ValueError as e:
        raise ReportError(f"{where}.{key}: unknown value {str(v)[:40]!r}") from e


def _mutant(v: Any, where: str) -> MutantResult:
    d = _obj(v, where)
    return MutantResult(_str(d, "value", where), _str(d, "description", where), _enum(MutantStatus, d, "status", where),
                        _str(d, "message", where), _enum(Undecided, d, "reason", where, optional=True),
                        _enum(KillProof, d, "killed_by", where, optional=True))


def _case(v: Any, where: str) -> CaseResult:
    d = _obj(v, where)
    return CaseResult(
        _str(d, "name", where), _int(d, "line", where), _str(d, "inputs", where), _str(d, "expected", where), "",
        _str(d, "source", where) if "source" in d else "",
        _enum(CaseStatus, d, "status", where), _str(d, "message", where), tuple(_list(d, "mutants", where, _mutant)),
        _enum(Undecided, d, "reason", where, optional=True), _str(d, "clause", where), _str(d, "note", where),
    )


def method_from_dict(v: Any, where: str = "method") -> MethodScore:
    d = _obj(v, where)
    problems = tuple(_list(d, "problems", where, lambda x, w: x[:MAX_TEXT] if isinstance(x, str) else _bad(w)))
    background = d.get("background")
    status, message = None, ""
    if background is not None:
        b = _obj(background, f"{where}.background")
        status, message = _enum(BackgroundStatus, b, "status", f"{where}.background"), _str(b, "message", where)
    axioms = tuple(_list(d, "axioms", where, _axiom)) if "axioms" in d else ()
    # scores are recomputed from the cases: a saved file cannot claim numbers its cases do not give
    score = method_score(_str(d, "file", where), _str(d, "method", where), _int(d, "line", where),
                         tuple(_list(d, "cases", where, _case)), problems, _str(d, "note", where), status, message,
                         axioms)
    every = d.get("everywhere")
    return score if every is None else replace(score, everywhere=_everywhere(every, f"{where}.everywhere"))


def _everywhere(v: Any, where: str) -> Everywhere:
    d = _obj(v, where)
    outputs = tuple(_list(d, "outputs", where, lambda x, w: x[:MAX_TEXT] if isinstance(x, str) else _bad(w)))
    status = _enum(EverywhereStatus, d, "status", where)
    if (status is EverywhereStatus.NOT_DETERMINED) != (len(outputs) == 2):
        raise ReportError(f"{where}: a spec not determined has two outputs, and only such a spec")
    return Everywhere(status, _str(d, "inputs", where), outputs, _str(d, "reason", where))


def _axiom(v: Any, where: str) -> Axiom:
    d = _obj(v, where)
    return Axiom(_str(d, "name", where), _int(d, "line", where), _str(d, "file", where), _str(d, "why", where))


def methods_from_list(v: Any, where: str) -> list[MethodScore]:
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise ReportError(f"{where}: not a list (of at most {MAX_ITEMS} items)")
    return [method_from_dict(x, f"{where}[{i}]") for i, x in enumerate(v)]


def _bad(where: str) -> str:
    raise ReportError(f"{where}: not a string")


def _clause(v: Any, where: str) -> ClauseSpan:
    d = _obj(v, where)
    return ClauseSpan(_str(d, "text", where), _int(d, "first", where), _int(d, "last", where))


def spans_from_list(v: Any, where: str = "spans") -> dict[tuple[str, str], EnsuresSpan]:
    """The saved `ensures` spans, by (file, method). Lines are only ever placed where the pull request's own
    diff (read from GitHub by the posting workflow) has them, and their text only inside code blocks."""
    out: dict[tuple[str, str], EnsuresSpan] = {}
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise ReportError(f"{where}: not a list (of at most {MAX_ITEMS} items)")
    for i, x in enumerate(v):
        w = f"{where}[{i}]"
        d = _obj(x, w)
        lines = tuple(_list(d, "lines", w, lambda y, ww: y[:MAX_TEXT] if isinstance(y, str) else _bad(ww)))
        outputs = tuple(_list(d, "outputs", w, lambda y, ww: y[:MAX_TEXT] if isinstance(y, str) else _bad(ww)))
        span = EnsuresSpan(_str(d, "method", w), _int(d, "line", w), tuple(_list(d, "clauses", w, _clause)), outputs,
                           _int(d, "spec_last", w), lines, d.get("ends_line") is True)
        if span.clauses and len(lines) != span.spec_last - span.first + 1:
            raise ReportError(f"{w}.lines: not the lines from the first clause to the last")
        out[(_str(d, "file", w), span.method)] = span
    return out


def spans_to_list(spans: dict[tuple[str, str], EnsuresSpan]) -> list[dict[str, Any]]:
    return [{"file": file, "method": method, "line": s.line, "outputs": list(s.outputs), "spec_last": s.spec_last,
             "clauses": [{"text": c.text, "first": c.first, "last": c.last} for c in s.clauses],
             "lines": list(s.lines), "ends_line": s.ends_line} for (file, method), s in sorted(spans.items())]


def changes_from_list(v: Any, where: str = "spec_changes") -> tuple[SpecChange, ...]:
    """The saved spec changes (bot/report/json_report.py change_dict), read strictly: a relation this tool names,
    an accepting side of `head` or `base`, strings for the rest."""
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise ReportError(f"{where}: not a list (of at most {MAX_ITEMS} items)")
    out = []
    for i, x in enumerate(v):
        w = f"{where}[{i}]"
        d = _obj(x, w)
        try:
            relation = Relation(_str(d, "relation", w))
        except ValueError as e:
            raise ReportError(f"{w}.relation: not one of {', '.join(r.value for r in Relation)}") from e
        accepted_by = _str(d, "accepted_by", w)
        if accepted_by not in ("", "head", "base"):
            raise ReportError(f"{w}.accepted_by: not head or base")
        out.append(SpecChange(_str(d, "file", w), _str(d, "method", w), relation, _str(d, "inputs", w),
                              _str(d, "output", w), accepted_by, _str(d, "reason", w), _str(d, "requires", w),
                              d.get("fixes_test") is True))
    return tuple(out)


def gated_from_list(v: Any, where: str = "gated") -> set[tuple[str, str]] | None:
    """The saved (file, method) pairs the check judged; None (null) when it judged every method."""
    if v is None:
        return None
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise ReportError(f"{where}: not a list (of at most {MAX_ITEMS} items)")
    out = set()
    for i, x in enumerate(v):
        if not (isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x)):
            raise ReportError(f"{where}[{i}]: not a [file, method] pair")
        out.add((x[0][:MAX_TEXT], x[1][:MAX_TEXT]))
    return out
