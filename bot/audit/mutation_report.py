"""The audit's mutants as a standard mutation-testing report (`mutation-report.json`).

The format is the mutation-testing report schema, version 2, that Stryker's dashboard and the
mutation-testing-elements viewer read (tests/data/mutation-testing-report-schema holds the schema the
tests validate against). Pure code: the spec sources are passed in by whoever can read files.

Each mutant of each case is one report mutant. A mutant here is a wrong *output*, not an edit of the spec: it has
no `replacement` (which the viewers show as a change of the source), its description says which output for which
inputs, and it is located on one clause: the first `ensures` clause that names an output (the clause a wrong
output is tested against; which clause proved a rejection is not recorded per mutant). Each test file's source
is included with its tests. Statuses:

    killed                                   -> Killed        (rejection proved)
    survived                                 -> Survived      (acceptance proved)
    unknown: verifier-error, hint-fault      -> RuntimeError  (the run failed; excluded from the score)
    unknown: timeout, stuck, precondition... -> Ignored       (nothing proved; excluded from the score)

A case that makes the task wrong is one report mutant too, so that the viewers' score never reads better than
the audit (a wrong spec has no completeness, and a spec that rejects everything would kill every mutant):

    refuted case (expected output rejected)  -> Survived      (mutator "expected output rejected")
    precondition violated (inputs rejected)  -> Survived      (mutator "test inputs rejected")

The schema's `Timeout` is not used: the viewers count it as detected (like Killed), while an undecided
proof never kills a mutant here. With this mapping the viewers' mutation score of a file with no wrong case
equals the audit's completeness, killed / (killed + survived); each wrong case lowers it, and a task whose
every case is wrong reads 0%, never N/A.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot import __version__
from bot.audit.model import TaskResult, task_order
from bot.dafny.decls import DafnyFile
from bot.dafny.parser import parse_file
from bot.symbolic.results import (
    Axiom,
    CaseResult,
    CaseStatus,
    KillProof,
    MutantResult,
    MutantStatus,
    Undecided,
    axioms_text,
)

SCHEMA_VERSION = "2"
LANGUAGE = "dafny"  # no Prism grammar: the viewers show it as plain text, which is right rather than misleading
FRAMEWORK = "dafny-spec-score"
LOW_GAP = 20  # thresholds.low = thresholds.high - 20 (Stryker's defaults are 80 and 60)
DEFAULT_WEAK_BELOW = 0.8

ERROR_REASONS = frozenset({Undecided.VERIFIER, Undecided.HINT_FAULT})
# cases that make a task wrong (bot/audit/verdicts.py): each is one report mutant that counts against the score
WRONG_CASES = {
    CaseStatus.REFUTED: ("expected output rejected", "the spec rejects the test's expected output"),
    CaseStatus.PRECONDITION_VIOLATED: ("test inputs rejected", "the spec's requires rejects the test's inputs"),
}

Position = dict[str, int]
Location = dict[str, Position]


def mutation_report(
    results: Sequence[TaskResult], sources: Mapping[str, str], settings: Mapping[str, object]
) -> dict[str, Any]:
    """The report as a JSON-ready dict. `sources`: spec path (TaskResult.file) and test path (CaseResult.source)
    -> its text ("" or missing if unread)."""
    high = thresholds_high(settings)
    files: dict[str, dict[str, Any]] = {}
    tests: dict[str, list[dict[str, Any]]] = {}
    test_tasks: dict[str, set[str]] = {}
    ordered = sorted(results, key=lambda r: (task_order(r.task_id), r.file, r.method))
    for r in ordered:
        for c in r.score.cases if r.score else ():
            test_tasks.setdefault(c.source, set()).add(r.task_id)
    mutant_ids: set[str] = set()
    test_ids: set[str] = set()
    parsed: dict[str, DafnyFile | None] = {}
    for r in ordered:
        source = sources.get(r.file, "")
        entry = files.setdefault(r.file, {"language": LANGUAGE, "source": source, "mutants": []})
        if r.score is None:
            continue
        if r.file not in parsed:
            parsed[r.file] = _parse(source, r.file)
        location = clause_location(source, parsed[r.file], r.method, r.score.line)
        for c in r.score.cases:
            test_id = _unique(f"{r.task_id}:{c.name}", test_ids)
            shared = len(test_tasks.get(c.source, ())) > 1
            tests.setdefault(c.source, []).append({
                "id": test_id,
                "name": f"{c.name} (task {r.task_id})" if shared else c.name,
                "location": {"start": {"line": max(1, c.line), "column": 1}},
            })
            if c.status in WRONG_CASES:
                entry["mutants"].append(_wrong_case(_unique(f"{r.task_id}:{c.name}:wrong", mutant_ids), test_id, c,
                                                    location))
            for k, m in enumerate(c.mutants, start=1):
                mutant_id = _unique(f"{r.task_id}:{c.name}:{k}", mutant_ids)
                entry["mutants"].append(_mutant(mutant_id, test_id, c, m, location, r.score.axioms))
    report: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": {"high": high, "low": max(0, high - LOW_GAP)},
        "files": files,
        "testFiles": {path: {"tests": t, **({"source": sources[path]} if sources.get(path) else {})}
                      for path, t in tests.items()},
        "framework": _framework(settings),
        "config": dict(settings),
    }
    return report


def render_mutation_report(
    results: Sequence[TaskResult], sources: Mapping[str, str], settings: Mapping[str, object]
) -> str:
    """mutation-report.json: the same inputs give the same bytes."""
    # default=str: a Path or enum in the settings should not cost the whole file
    return json.dumps(mutation_report(results, sources, settings), indent=2, sort_keys=True, default=str) + "\n"


def thresholds_high(settings: Mapping[str, object]) -> int:
    """100 × the audit's weak-below (a spec at or above it is strong), within 0..100."""
    wb = settings.get("weak_below")
    value = float(wb) if isinstance(wb, int | float) and not isinstance(wb, bool) else DEFAULT_WEAK_BELOW
    if value != value:  # NaN
        value = DEFAULT_WEAK_BELOW
    return min(100, max(0, round(100 * value)))


def mutator_name(description: str) -> str:
    """The category of a mutant from its description: "result[1]: dropped element 2" -> "dropped element"."""
    text = description.split(": ", 1)[1] if ": " in description else description
    for prefix, name in (("dropped element", "dropped element"), ("swapped elements", "swapped elements"),
                         ("inserted ", "inserted element"), ("appended ", "appended character")):
        if text.startswith(prefix):
            return name
    if " -> " in text:
        return "replaced value"
    stripped = " ".join(w for w in text.split() if not re.search(r"\d", w))
    return stripped or "mutant"


def status_of(m: MutantResult) -> tuple[str, str]:
    """The schema's status of a mutant and its statusReason."""
    if m.status is MutantStatus.KILLED:
        if m.killed_by is KillProof.PIN:
            return "Killed", "rejection follows from the case's pin check: the spec admits only the expected output"
        if m.killed_by is KillProof.PIN_UP_TO_ORDER:
            return "Killed", ("rejection follows from the case's order-free pin check: the spec admits only outputs "
                              "with the expected elements")
        return "Killed", "rejection proved: the spec rejects this output"
    if m.status is MutantStatus.SURVIVED:
        return "Survived", "acceptance proved: the spec accepts this wrong output"
    reason = m.reason.value if m.reason is not None else "unknown"
    why = f"undecided ({reason})" + (f": {m.message}" if m.message else "")
    return ("RuntimeError" if m.reason in ERROR_REASONS else "Ignored"), why


def clause_location(source: str, parsed: DafnyFile | None, method: str, line: int) -> Location:
    """The first `ensures` clause of `method` that names one of its outputs (else its first `ensures` clause), from
    the keyword to the clause's end (1-based, end exclusive); the declaration's header when it has none; else the
    whole method line."""
    decl = parsed.find(method) if parsed is not None and method else None
    if decl is not None:
        ensures = [c for c in decl.clauses if c.kind == "ensures"]
        outputs = {p.name for p in decl.returns}
        about = [c for c in ensures if outputs & set(re.findall(r"[A-Za-z_][\w']*", c.text))]
        chosen = (about or ensures)[:1]
        start, end = (chosen[0].start, chosen[0].end) if chosen else (decl.start, decl.header_end)
        if 0 <= start <= end <= len(source):
            return {"start": _position(source, start), "end": _position(source, end)}
    lines = source.split("\n")
    n = min(max(1, line), len(lines))
    return {"start": {"line": n, "column": 1}, "end": {"line": n, "column": len(lines[n - 1]) + 1}}


def _parse(source: str, path: str) -> DafnyFile | None:
    if not source:
        return None
    try:
        return parse_file(source, path)
    except (ValueError, RecursionError):  # DafnyParseError is a ValueError: locate on the method line instead
        return None


def _position(source: str, offset: int) -> Position:
    line_start = source.rfind("\n", 0, offset) + 1
    return {"line": source.count("\n", 0, offset) + 1, "column": offset - line_start + 1}


def _unique(wanted: str, seen: set[str]) -> str:
    """`wanted`, or `wanted~2`, `wanted~3`... when it is taken (deterministic: in report order)."""
    out, k = wanted, 1
    while out in seen:
        k += 1
        out = f"{wanted}~{k}"
    seen.add(out)
    return out


def _mutant(mutant_id: str, test_id: str, c: CaseResult, m: MutantResult, location: Location,
            axioms: tuple[Axiom, ...] = ()) -> dict[str, Any]:
    status, reason = status_of(m)
    if axioms and status in ("Killed", "Survived"):
        reason += f" ({axioms_text(axioms)})"
    out: dict[str, Any] = {
        "id": mutant_id,
        "mutatorName": mutator_name(m.description),
        "description": f"wrong output {m.value} for {c.inputs} (the test expects {c.expected}; {m.description}): "
                       + _verdict_words(status),
        "location": location,
        "status": status,
        "statusReason": reason,
        "coveredBy": [test_id],
    }
    if status == "Killed":
        out["killedBy"] = [test_id]
    return out


def _wrong_case(mutant_id: str, test_id: str, c: CaseResult, location: Location) -> dict[str, Any]:
    """A refuted case (or one whose inputs the requires rejects) as a Survived mutant: the spec is proved wrong
    on it, which the viewers must count against the score."""
    mutator, what = WRONG_CASES[c.status]
    clause = f" (`{c.clause}` is proved false)" if c.clause else ""
    return {
        "id": mutant_id,
        "mutatorName": mutator,
        "description": f"{what} for {c.inputs} (the test expects {c.expected}){clause}: the spec is wrong here",
        "location": location,
        "status": "Survived",
        "statusReason": f"{c.status.value}: proved; counted against the score (the task's verdict is wrong)",
        "coveredBy": [test_id],
    }


def _verdict_words(status: str) -> str:
    return {"Killed": "the spec rejects it", "Survived": "the spec accepts it"}.get(status, "nothing was proved")


def _framework(settings: Mapping[str, object]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": FRAMEWORK, "version": __version__}
    verifier = settings.get("verifier")
    if verifier:
        out["dependencies"] = {"dafny": str(verifier)}
    return out
