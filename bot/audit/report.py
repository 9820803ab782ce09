"""The audit's three output files: results JSON, results CSV and the markdown report. Pure code.

Verdicts never look at labels; these renderers only set the two side by side, so a dataset
maintainer can see where a test, a spec or a label needs a second look. Every piece of user text
in the markdown goes through `esc`/`code`, and nothing depends on the clock or on input order.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.audit.charts import histogram_mermaid
from bot.audit.model import LABEL_ORDER, VERDICT_ORDER, Label, TaskResult, Verdict, task_order
from bot.audit.verdicts import pin_disagrees, spec_or_test
from bot.report.fmt import pct, proved_text
from bot.report.json_report import method_dict
from bot.report.markdown import code, esc, fence
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    EverywhereStatus,
    MutantStatus,
    Surviving,
    background_lines,
)

AUDIT_SCHEMA_VERSION = 2

CSV_HEADER = (
    "task_id", "file", "method", "label", "verdict", "correctness", "completeness", "cases", "verified",
    "refuted", "unknown_cases", "killed", "survived", "unknown_mutants", "tolerance_applied", "cause", "everywhere",
)  # fmt: skip

# settings key -> how the report names it, and the unit after the value
SETTINGS_SHOWN: tuple[tuple[str, str, str], ...] = (
    ("seed", "seed", ""),
    ("mutants", "mutants per case", ""),
    ("time_limit", "time limit", " s"),
    ("weak_below", "weak below completeness", ""),
    ("tolerance", "relative tolerance for reals", ""),
)

# a label "agrees" with the verdict of the same name; unlabeled tasks have no such verdict
AGREEING: Mapping[Label, Verdict] = {Label.STRONG: Verdict.STRONG, Label.WEAK: Verdict.WEAK, Label.WRONG: Verdict.WRONG}

MAX_WEAK_SURVIVORS = 5
MAX_MESSAGE = 400  # verifier messages can run to pages; the JSON keeps them whole

TITLE = "# Dafny Spec Score: dataset audit"
SPEC_OR_TEST_HINT = "the test's expected value may be wrong (see 'Spec or test?')"
PRECONDITION_HINT = "the precondition may be too strong, or the test's inputs wrong (see 'Spec or test?')"


def _hint(c: CaseResult) -> str:
    return PRECONDITION_HINT if c.status is CaseStatus.PRECONDITION_VIOLATED else SPEC_OR_TEST_HINT
NOT_EXPOSED = {
    Label.WEAK: (
        "Every case verified and no mutant survived: no test case or mutant exposed the weakness the label "
        "names. Add a test case whose wrong outputs the spec accepts (or review the label)."
    ),
    Label.WRONG: (
        "Every case verified and no mutant survived: no test case or mutant exposed the misunderstanding the "
        "label names. Add a test case the spec gets wrong (or review the label)."
    ),
}
WRONG_BUT_WEAK = (
    "Every case verified, so no test case exposed the misunderstanding the label names; the spec does accept "
    "these wrong outputs. Add a test case the spec gets wrong (or review the label)."
)
STRONG_BUT_WEAK = "The spec accepts these wrong outputs:"
NO_SURVIVOR = "No wrong output was recorded."
SHOWN_ABOVE = "The wrong outputs it accepts are listed under Disagreements."
NO_TOLERANCE = "No tolerance was applied: every output was compared exactly."


def _key(r: TaskResult) -> tuple[tuple[int, str], str, str]:
    return task_order(r.task_id), r.file, r.method


def ordered(results: Sequence[TaskResult]) -> list[TaskResult]:
    return sorted(results, key=_key)


def _refuted_indexed(r: TaskResult) -> list[tuple[int, CaseResult]]:
    """Refuted cases and cases whose inputs the precondition is proved to reject: the spec and the test disagree."""
    failing = (CaseStatus.REFUTED, CaseStatus.PRECONDITION_VIOLATED)
    return [(i, c) for i, c in enumerate(r.score.cases) if c.status in failing] if r.score else []


def refuted_cases(r: TaskResult) -> list[CaseResult]:
    """The cases that prove a task wrong (refuted, or inputs the `requires` is proved to reject)."""
    return [c for _, c in _refuted_indexed(r)]


# ---------------------------------------------------------------------------------------------- JSON


def task_dict(r: TaskResult) -> dict[str, Any]:
    s = r.score
    details = method_dict(s) if s is not None else None
    return {
        "task_id": r.task_id,
        "file": r.file,
        "method": r.method,
        "label": r.label.value,
        "tags": list(r.tags),
        "verdict": r.verdict.value,
        "cause": r.cause,
        "evaluated": r.evaluated,
        "correctness": s.correctness if s else None,
        "completeness": s.completeness if s else None,
        "tolerance": r.tolerance,
        "tolerance_applied": r.tolerance_applied,
        "surviving_mutants": details["surviving_mutants"] if details else [],
        "failing_cases": [
            {"case": c.name, "status": c.status.value, "inputs": c.inputs, "expected": c.expected, "text": c.text,
             "clause": c.clause, "message": c.message}
            for c in refuted_cases(r)
        ],
        "unknown": s.unknown if s else {},
        "problems": list(s.problems) if s else [],
        "cases": details["cases"] if details else [],
        "suggestions": details["suggestions"] if details else [],
        "everywhere": details["everywhere"] if details else None,
    }


def results_json(results: Sequence[TaskResult], settings: Mapping[str, object]) -> str:
    doc = {
        "schema": AUDIT_SCHEMA_VERSION,
        # sorted so that equal settings give equal bytes whatever order they were built in
        "settings": dict(sorted(settings.items())),
        "tasks": [task_dict(r) for r in ordered(results)],
    }
    # default=str: a Path or enum in the settings should not cost the whole results file
    return json.dumps(doc, indent=2, default=str) + "\n"


# ----------------------------------------------------------------------------------------------- CSV


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def _csv_row(r: TaskResult) -> list[str]:
    s = r.score
    if s is None:
        # not scored at all: empty counts, not zeros, so "no data" stays apart from "none found"
        counts = [""] * 7
    else:
        statuses = [c.status for c in s.cases]
        m = s.mutant_counts
        counts = [
            str(n)
            for n in (
                len(statuses),
                statuses.count(CaseStatus.VERIFIED),
                statuses.count(CaseStatus.REFUTED),
                sum(not st.scored for st in statuses),
                m[MutantStatus.KILLED.value],
                m[MutantStatus.SURVIVED.value],
                m[MutantStatus.UNKNOWN.value],
            )
        ]
    return [
        r.task_id,
        r.file,
        r.method,
        r.label.value,
        r.verdict.value,
        _num(s.correctness if s else None),
        _num(s.completeness if s else None),
        *counts,
        "true" if r.tolerance_applied else "false",
        r.cause,
        s.everywhere.status.value if s is not None and s.everywhere is not None else "",
    ]


def results_csv(results: Sequence[TaskResult]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for r in ordered(results):
        w.writerow(_csv_row(r))
    return out.getvalue()


# ------------------------------------------------------------------------------------------ Markdown


@dataclass(frozen=True)
class SpecOrTest:
    task: TaskResult
    case: CaseResult


def spec_or_test_cases(results: Sequence[TaskResult]) -> list[SpecOrTest]:
    """Every spec-or-test case; tasks labelled strong first (there the test is the likely culprit)."""
    found = [
        SpecOrTest(r, r.score.cases[i]) for r in ordered(results) if r.score is not None for i in spec_or_test(r.score)
    ]
    # sorted() is stable, so task order (and case order) holds within each group
    return sorted(found, key=lambda e: e.task.label is not Label.STRONG)


def _value(v: object) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def settings_shown(settings: Mapping[str, object]) -> list[tuple[str, str]]:
    """(name, value with its unit or "n/a") for each setting the reports show; the values are not escaped."""
    return [(name, _value(settings[key]) + unit if key in settings else "n/a") for key, name, unit in SETTINGS_SHOWN]


def _settings_line(settings: Mapping[str, object]) -> str:
    parts = [f"{name} {esc(value)}" for name, value in settings_shown(settings)]
    return "Settings: " + ", ".join(parts) + "."


def _message(msg: str) -> str:
    flat = " ".join(msg.split())
    if not flat:
        return "(none)"
    return code(flat if len(flat) <= MAX_MESSAGE else flat[:MAX_MESSAGE] + " …")


def _method(r: TaskResult) -> str:
    return code(r.method) if r.method else "(no method)"


def _where(c: CaseResult) -> str:
    if not c.source:
        return f"line {c.line}"
    return code(f"{c.source}:{c.line}") if c.line > 0 else code(c.source)


def _heading(r: TaskResult) -> str:
    return f"### Task {esc(r.task_id)}: {_method(r)}"


def _facts(r: TaskResult) -> str:
    tags = f" ({esc(' '.join(r.tags))})" if r.tags else ""
    s = r.score
    return (
        f"File {code(r.file)}; label **{r.label.value}**{tags}; verdict **{r.verdict.value}**; "
        f"correctness {pct(s.correctness if s else None)}, completeness {pct(s.completeness if s else None)}"
        + (f", pinned {s.pinned_text}." if s and s.pinned_text else ".")
    )


def _survivor_table(items: Sequence[Surviving]) -> list[str]:
    """One row per case, its inputs written once, with every wrong output the spec accepts for it."""
    lines = ["| Case | Inputs | Expected | Wrong outputs the spec accepts |", "|---|---|---|---|"]
    rows: dict[str, list[Surviving]] = {}
    for v in items:
        rows.setdefault(v.case, []).append(v)
    for same in rows.values():
        first = same[0]
        values = ", ".join(code(v.value) for v in same)
        lines.append(f"| {esc(first.case)} | {code(first.inputs)} | {code(first.expected)} | {values} |")
    return lines


def _refuted_block(c: CaseResult, hint: bool) -> list[str]:
    if c.status is CaseStatus.PRECONDITION_VIOLATED:
        head = f"Case {esc(c.name)} ({_where(c)}): the {code('requires')} rejects the test inputs {code(c.inputs)}."
    else:
        head = f"Case {esc(c.name)} ({_where(c)}) is refuted: inputs {code(c.inputs)}, expected {code(c.expected)}."
    if hint:
        head += f" Hint: {_hint(c)}."
    text = c.text.strip("\n") or "(the case text was not recorded)"
    return [head, "", *fence(text), "", _rejected_by(c), ""]


def _rejected_by(c: CaseResult) -> str:
    """Refutations are proved: say by which clause when one clause alone is proved to reject."""
    if c.clause:
        return f"Rejection proved by {code(c.clause)}. Verifier: {_message(c.message)}"
    return f"Rejection proved (by the clauses together). Verifier: {_message(c.message)}"


def _coverage(tasks: list[TaskResult]) -> list[str]:
    evaluated = sum(r.evaluated for r in tasks)
    lines = ["## Coverage", "", f"Evaluated {evaluated} of {len(tasks)} tasks ({rate(evaluated, len(tasks))})."]
    groups: dict[str, list[str]] = {}
    for r in tasks:
        if not r.evaluated:
            groups.setdefault(_cause_group(r.cause), []).append(r.task_id)
    if groups:
        lines += ["", "| Why not evaluated | Tasks | Task ids |", "|---|---:|---|"]
        for cause, ids in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            lines.append(f"| {esc(cause)} | {len(ids)} | {esc(', '.join(ids))} |")
    # the reasons themselves are evidence: a test calling with three arguments a spec that takes two
    # is how a misunderstood task shows when nothing can be scored
    details = [(r, p) for r in tasks if not r.evaluated and r.score is not None for p in r.score.problems]
    if details:
        lines += ["", "Cases that could not be read, in tasks not evaluated:", ""]
        lines += [f"- task {esc(r.task_id)}: {code(p)}" for r, p in details[:MAX_PROBLEMS]]
        if len(details) > MAX_PROBLEMS:
            lines.append(f"- ... and {len(details) - MAX_PROBLEMS} more (see results.json)")
    trusting = [r for r in tasks if r.score is not None and r.score.axioms]
    if trusting:
        lines += ["", f"Tasks whose verdicts are relative to trusted axioms ({len(trusting)}):", ""]
        lines += [f"- task {esc(r.task_id)}: {esc(background_lines(r.score)[-1])}" for r in trusting if r.score]
    return [*lines, ""]


MAX_PROBLEMS = 30


def _cause_group(cause: str) -> str:
    # "spec does not parse: <details>" and "no readable test case (3 unreadable)" group by their kind
    head = cause.split(":", 1)[0].strip()
    head = re.sub(r"\s*\([^()]*\)$", "", head)
    return head or "(no cause given)"


def rate(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else "n/a"


def confusion_counts(tasks: Sequence[TaskResult]) -> dict[tuple[Label, Verdict], int]:
    """Tasks per (label, verdict), every pair of LABEL_ORDER × VERDICT_ORDER present (zeros too)."""
    counts = {(lb, v): 0 for lb in LABEL_ORDER for v in VERDICT_ORDER}
    for r in tasks:
        counts[r.label, r.verdict] += 1
    return counts


def agreement(tasks: Sequence[TaskResult]) -> tuple[int, int]:
    """(agreeing, judged): the labelled and evaluated tasks, and how many got the verdict their label names."""
    judged = [r for r in tasks if r.label in AGREEING and r.evaluated]
    return sum(AGREEING[r.label] is r.verdict for r in judged), len(judged)


def _confusion(tasks: list[TaskResult]) -> list[str]:
    counts = confusion_counts(tasks)
    lines = [
        "## Verdicts × human labels",
        "",
        "| Label ↓ / verdict → | " + " | ".join(v.value for v in VERDICT_ORDER) + " | Total |",
        "|---|" + "---:|" * (len(VERDICT_ORDER) + 1),
    ]
    for lb in LABEL_ORDER:
        row = [counts[lb, v] for v in VERDICT_ORDER]
        lines.append(f"| {lb.value} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    totals = [sum(counts[lb, v] for lb in LABEL_ORDER) for v in VERDICT_ORDER]
    lines.append("| Total | " + " | ".join(map(str, totals)) + f" | {sum(totals)} |")
    agree, judged = agreement(tasks)
    lines.append("")
    if judged:
        lines.append(
            f"Agreement: {agree} of {judged} labelled and evaluated tasks ({rate(agree, judged)}) "
            "got the verdict their label names."
        )
    else:
        lines.append("Agreement: no task is both labelled and evaluated.")
    return [*lines, ""]


def disagreeing(tasks: Sequence[TaskResult]) -> list[TaskResult]:
    """The labelled and evaluated tasks whose verdict is not the one their label names, in the order given."""
    return [r for r in tasks if r.label in AGREEING and r.evaluated and AGREEING[r.label] is not r.verdict]


def disagreement_md(r: TaskResult) -> list[str]:
    """One disagreement with its evidence: a heading, the facts, then the refuted cases or the survivors."""
    lines = [f"{_heading(r)} (labelled {r.label.value}, scored {r.verdict.value})", "", _facts(r), ""]
    if r.verdict is Verdict.WRONG:
        hinted = set(spec_or_test(r.score)) if r.score else set()
        for i, c in _refuted_indexed(r):
            lines += _refuted_block(c, i in hinted)
    elif r.verdict is Verdict.STRONG:
        lines += [NOT_EXPOSED[r.label], ""]
    else:  # weak: the wrong outputs the spec accepts (the pin check's witnesses and the surviving mutants)
        accepted = accepted_wrong_outputs(r)
        lines += [STRONG_BUT_WEAK if r.label is Label.STRONG else WRONG_BUT_WEAK, ""]
        lines += [*_survivor_table(accepted[:MAX_WEAK_SURVIVORS]), ""] if accepted else [NO_SURVIVOR, ""]
        lines += _more(len(accepted))
    return lines


def _more(n: int) -> list[str]:
    if n <= MAX_WEAK_SURVIVORS:
        return []
    return [f"… and {n - MAX_WEAK_SURVIVORS} more wrong outputs the spec accepts (all are in results.json).", ""]


def _disagreements(tasks: list[TaskResult]) -> list[str]:
    lines = ["## Disagreements", ""]
    found = disagreeing(tasks)
    unevaluated = sum(r.label in AGREEING and not r.evaluated for r in tasks)
    if not found:
        lines += ["Every labelled and evaluated task got the verdict its label names.", ""]
    for r in found:
        lines += disagreement_md(r)
    if unevaluated:
        lines += [f"{unevaluated} labelled task(s) could not be evaluated (see Coverage).", ""]
    return lines


def _spec_or_test(entries: list[SpecOrTest]) -> list[str]:
    lines = [
        "## Spec or test?",
        "",
        "One case is refuted while the spec verifies every other case: either the spec or the test's expected "
        "value is wrong. A case whose inputs the `requires` is proved to reject is listed too: either the "
        "precondition is too strong or the test's inputs are wrong. Tasks labelled strong come first, as likely "
        "test errors.",
        "",
    ]
    if not entries:
        return [*lines, "No such case.", ""]
    for e in entries:
        r, c = e.task, e.case
        lines += [
            f"### Task {esc(r.task_id)}: {_method(r)}, case {esc(c.name)} (label {r.label.value})",
            "",
            f"Case at {_where(c)}: inputs {code(c.inputs)}; " + (
                f"the {code('requires')} rejects these inputs." if c.status is CaseStatus.PRECONDITION_VIOLATED
                else f"the spec refutes the expected value {code(c.expected)}."),
            "",
            *fence(c.text.strip("\n") or "(the case text was not recorded)"),
            "",
            _rejected_by(c),
            "",
        ]
    return lines


def accepted_wrong_outputs(r: TaskResult) -> tuple[Surviving, ...]:
    """The wrong outputs the spec accepts: the pin check's witnesses, then the surviving mutants."""
    return (*r.score.witnesses, *r.score.surviving) if r.score else ()


def _weak(tasks: list[TaskResult]) -> list[str]:
    lines = ["## Weak specs", ""]
    weak = [r for r in tasks if r.verdict is Verdict.WEAK]
    if not weak:
        return [*lines, "No task was scored weak.", ""]
    suggested = sum(bool(r.score and r.score.suggestions) for r in weak)
    lines += [f"A verified suggestion was found for {suggested} of the {len(weak)} weak task(s): a clause the "
              "verifier proved to accept every test, reject every wrong output the spec accepted, and hold "
              "consistently on every case.", ""]
    shown = {id(r) for r in disagreeing(tasks)}
    for r in weak:
        lines += [_heading(r), "", _facts(r), ""]
        for g in r.score.suggestions[:1] if r.score else ():
            lines += [f"Suggested clause ({esc(proved_text(g))}):", "", *fence(f"ensures {g.clause}"), ""]
        if id(r) in shown:  # its evidence is already in full under Disagreements
            lines += [SHOWN_ABOVE, ""]
            continue
        survivors = accepted_wrong_outputs(r)
        if not survivors:
            lines += [NO_SURVIVOR, ""]
            continue
        lines += [*_survivor_table(survivors[:MAX_WEAK_SURVIVORS]), "", *_more(len(survivors))]
    return lines


MAX_UNDECIDED = 10


def _undecided(tasks: list[TaskResult]) -> list[str]:
    """Unknown cases and mutants grouped by reason: where the next proof hint is worth writing."""
    lines = [
        "## Undecided",
        "",
        "Cases and mutants for which the verifier proved neither acceptance nor rejection. They count neither "
        "for nor against a spec.",
        "",
    ]
    groups: dict[str, list[tuple[TaskResult, str, str]]] = {}
    for r in tasks:
        for c in r.score.cases if r.score else ():
            if c.status is CaseStatus.UNKNOWN:
                why = c.reason.value if c.reason else "unknown"
                groups.setdefault(f"case {why}", []).append((r, c.name, c.message))
            for m in c.mutants:
                if m.status is MutantStatus.UNKNOWN:
                    why = m.reason.value if m.reason else "unknown"
                    groups.setdefault(f"mutant {why}", []).append((r, f"{c.name} mutant {m.value}", m.message))
    if not groups:
        return [*lines, "Nothing undecided.", ""]
    lines += ["| Reason | Count | Tasks |", "|---|---:|---|"]
    for key, items in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        ids = sorted({r.task_id for r, _, _ in items}, key=lambda t: task_order(t))
        lines.append(f"| {esc(key)} | {len(items)} | {esc(', '.join(ids))} |")
    lines.append("")
    for key, items in sorted(groups.items()):
        lines += [f"### {esc(key)}", ""]
        for r, what, message in items[:MAX_UNDECIDED]:
            lines.append(f"- task {esc(r.task_id)}, {esc(what)}: {_message(message)}")
        if len(items) > MAX_UNDECIDED:
            lines.append(f"- ... and {len(items) - MAX_UNDECIDED} more (see results.json)")
        lines.append("")
    return lines


def _pins(tasks: list[TaskResult]) -> list[str]:
    """The pin check set beside mutation completeness: where it found what the mutants missed."""
    lines = ["## Pinned outputs", ""]
    checked = [r for r in tasks if r.score is not None and r.score.pinned_text]
    if not checked:
        return [*lines, "No pin check was run.", ""]
    levels = ("pinned", "pinned-up-to-order", "pinned-as-set", "not-pinned", "unknown")
    totals = {k: sum(r.score.pins[k] for r in checked if r.score) for k in levels}
    lines.append("Cases: " + ", ".join(f"{n} {k}" for k, n in totals.items()) + ".")
    implied = sum(r.score.killed_by_pin for r in checked if r.score)
    if implied:
        # said, not hidden: these mutants had no rejection program of their own
        lines.append(f"Mutants killed by a proved pin check (no program of their own): {implied}.")
    lines.append("")
    missed = [r for r in checked if r.score is not None and pin_disagrees(r.score)]
    if missed:
        lines += ["Completeness 1.00 but not pinned (the mutants missed a weakness the solver found):", ""]
    weak = [r for r in missed if r.verdict is Verdict.WEAK]
    if weak:  # their wrong outputs are listed once, under Weak specs
        named = ", ".join(f"{esc(r.task_id)} ({_method(r)})" for r in weak)
        lines += [f"- tasks {named}: the wrong outputs are under Weak specs.", ""]
    for r in missed:
        if r.verdict is not Verdict.WEAK and r.score is not None:
            lines += [_heading(r), "", *_survivor_table(r.score.witnesses), ""]
    return lines


def everywhere_counts(tasks: Sequence[TaskResult]) -> dict[str, int]:
    """Over the tasks with a score: how many specs are proved to determine their output on every input (exactly,
    up to order, as a set), how many have a witness beyond the tests, how many are unknown, and how many are
    labelled strong while a witness exists."""
    found = [r.score.everywhere for r in tasks if r.score is not None and r.score.everywhere is not None]
    counts = {st.value: sum(e.status is st for e in found) for st in EverywhereStatus}
    counts["labelled strong, not determined"] = len(strong_not_determined(tasks))
    return counts


def strong_not_determined(tasks: Sequence[TaskResult]) -> list[TaskResult]:
    """Tasks a person labelled strong whose spec is proved to accept two different outputs on one input."""
    return [r for r in tasks if r.label is Label.STRONG and r.score is not None and r.score.everywhere is not None
            and r.score.everywhere.status is EverywhereStatus.NOT_DETERMINED]


def _every_input(tasks: list[TaskResult]) -> list[str]:
    """The specs on every input, tests or none: counts, then each spec a witness shows not determined."""
    lines = ["## Every input", ""]
    asked = [r for r in tasks if r.score is not None and r.score.everywhere is not None]
    if not asked:
        return [*lines, "No spec was asked.", ""]
    counts = everywhere_counts(tasks)
    said = ", ".join(f"{counts[st.value]} {st.value}" for st in EverywhereStatus)
    lines += [f"Of {len(asked)} specs: {said} (a witness is one input and two outputs the spec is proved to "
              f"accept there). Labelled strong with a witness: {counts['labelled strong, not determined']}.", ""]
    shown = [r for r in asked if r.score is not None and r.score.everywhere is not None
             and r.score.everywhere.status is EverywhereStatus.NOT_DETERMINED]
    lines += [f"- task {esc(r.task_id)} ({_method(r)}{_labelled(r)}): {esc(r.score.everywhere.sentence)}"
              for r in shown if r.score is not None and r.score.everywhere is not None]
    reasons: dict[str, int] = {}
    for r in asked:
        e = r.score.everywhere if r.score is not None else None
        if e is not None and e.status is EverywhereStatus.UNKNOWN:
            reasons[_reason_kind(e.reason)] = reasons.get(_reason_kind(e.reason), 0) + 1
    if reasons:
        lines += [*([""] if shown else []), "Unknown, by reason:", ""]
        lines += [f"- {esc(k)}: {n}" for k, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    return [*lines, ""]


def _labelled(r: TaskResult) -> str:
    return "" if r.label is Label.UNLABELED else f", labelled {r.label.value}"


def _reason_kind(reason: str) -> str:
    """A reason without the names and values that make each one different ("`x` holds arrays: ..." -> "holds
    arrays: ..."), so that the kinds can be counted."""
    text = re.sub(r"`[^`]*`", "…", reason)
    return text if len(text) <= 120 else text[:117] + "..."


def _tolerance(tasks: list[TaskResult]) -> list[str]:
    applied = [r for r in tasks if r.tolerance_applied]
    if not applied:
        return ["## Tolerance", "", NO_TOLERANCE, ""]
    listed = ", ".join(f"{esc(r.task_id)} ({esc(_value(r.tolerance))})" for r in applied)
    return ["## Tolerance", "", f"A relative tolerance was applied to real outputs in tasks {listed}.", ""]


def _per_task(tasks: list[TaskResult]) -> list[str]:
    lines = [
        "## Per task",
        "",
        "| Task | Method | Label | Verdict | Correctness | Completeness | Every input | Cause |",
        "|---|---|---|---|---:|---:|---|---|",
    ]
    for r in tasks:
        s = r.score
        every = s.everywhere.status.value if s is not None and s.everywhere is not None else ""
        lines.append(
            f"| {esc(r.task_id)} | {_method(r)} | {r.label.value} | {r.verdict.value} "
            f"| {pct(s.correctness if s else None)} | {pct(s.completeness if s else None)} | {every} "
            f"| {esc(r.cause)} |"
        )
    return [*lines, ""]


def report_md(results: Sequence[TaskResult], settings: Mapping[str, object]) -> str:
    tasks = ordered(results)
    lines = [TITLE, "", _settings_line(settings), ""]
    lines += _coverage(tasks)
    lines += _confusion(tasks)
    lines += ["## Completeness histogram", "", *histogram_mermaid(tasks)]
    lines += _disagreements(tasks)
    lines += _spec_or_test(spec_or_test_cases(tasks))
    lines += _weak(tasks)
    lines += _pins(tasks)
    lines += _every_input(tasks)
    lines += _undecided(tasks)
    lines += _tolerance(tasks)
    lines += _per_task(tasks)
    return "\n".join(lines).rstrip("\n") + "\n"
