"""Plain-text report for terminals. Pure code."""

from __future__ import annotations

from bot.report.fmt import pct, proved_text
from bot.symbolic.results import FOUND_BY, UNTESTED_TEXT, CaseStatus, MethodScore, MutantStatus, method_notes


def render_text(scores: list[MethodScore], verifier_version: str) -> str:
    rows = [("file", "method", "cases", "correctness", "completeness", "pinned", "survivors")]
    ordered = sorted(scores, key=lambda s: (s.file, s.line, s.method))
    for s in ordered:
        scored = sum(c.status.scored for c in s.cases)
        rows.append(
            (
                s.file,
                s.method,
                f"{scored}/{len(s.cases)}",
                pct(s.correctness),
                pct(s.completeness),
                s.pinned_text or "n/a",
                str(len(s.surviving)),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"Dafny Spec Score (verifier: Dafny {verifier_version})", ""]
    for k, r in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    for s in ordered:
        details: list[str] = []
        if s.untested:
            details.append(f"  {UNTESTED_TEXT}")
        elif s.note:
            details.append(f"  not scored: {s.note}")
        details += [f"  {line}" for line in method_notes(s)]
        for c in s.cases:
            if c.status.value != "verified":
                status = c.status.value + (f" ({c.reason.value})" if c.reason else "")
                proved = c.status in (CaseStatus.REFUTED, CaseStatus.PRECONDITION_VIOLATED)
                said = c.clause if proved and c.clause else _first_line(c.message)
                details.append(f"  case {c.name} (line {c.line}): {status}" + (f": {said}" if said else ""))
                if c.inputs or c.expected:
                    details.append(f"      inputs {c.inputs}; expected {c.expected}")
        # each distinct wrong output once (a pin-check witness that is also a mutant says both)
        for v in s.wrong_outputs:
            if v.description.startswith(FOUND_BY):
                details.append(
                    f"  not pinned in {v.case}: inputs {v.inputs}; the spec also accepts {v.value} where the test "
                    f"expects {v.expected} ({v.description})"
                )
            else:
                details.append(
                    f"  surviving mutant in {v.case}: inputs {v.inputs}; expected {v.expected}; "
                    f"the spec also accepts {v.value} ({v.description})"
                )
        if s.everywhere is not None:
            details.append(f"  {s.everywhere.sentence}")
        for g in s.suggestions[:1]:
            details.append(f"  suggested clause (after line {g.line}): ensures {g.clause}")
            details.append(f"      {proved_text(g)}")
        unknown = [m for c in s.cases for m in c.mutants if m.status is MutantStatus.UNKNOWN]
        if unknown:
            reasons = sorted({m.reason.value for m in unknown if m.reason})
            details.append(f"  {len(unknown)} mutant(s) unknown" + (f" ({', '.join(reasons)})" if reasons else ""))
        for p in s.problems:
            details.append(f"  unreadable case: {p}")
        if details:
            lines += ["", f"{s.file}: {s.method} (line {s.line})", *details]
    return "\n".join(lines) + "\n"


def _first_line(msg: str) -> str:
    return msg.strip().splitlines()[0] if msg.strip() else ""
