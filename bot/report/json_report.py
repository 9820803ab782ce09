"""The stable JSON report (schema in README.md). Pure code."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.symbolic.results import Everywhere, MethodScore, SpecChange, Suggestion

SCHEMA_VERSION = 2


def method_dict(s: MethodScore) -> dict[str, Any]:
    return {
        "file": s.file,
        "method": s.method,
        "line": s.line,
        "correctness": s.correctness,
        "completeness": s.completeness,
        "note": s.note,
        "background": {"status": s.background.value, "message": s.background_message} if s.background else None,
        "axioms": [{"name": a.name, "file": a.file, "line": a.line, "why": a.why} for a in s.axioms],
        "cases": [
            {
                "name": c.name,
                "line": c.line,
                "source": c.source,
                "status": c.status.value,
                "reason": c.reason.value if c.reason else None,
                "clause": c.clause,
                "note": c.note,
                "determinacy": c.determinacy.value if c.determinacy else None,
                "witness": c.witness or None,
                "witness_source": c.witness_source or None,
                "inputs": c.inputs,
                "expected": c.expected,
                "message": c.message,
                "mutants": [
                    {
                        "value": m.value,
                        "description": m.description,
                        "status": m.status.value,
                        "reason": m.reason.value if m.reason else None,
                        "killed_by": m.killed_by.value if m.killed_by else None,
                        "message": m.message,
                    }
                    for m in c.mutants
                ],
            }
            for c in s.cases
        ],
        "surviving_mutants": [
            {
                "case": v.case,
                "inputs": v.inputs,
                "expected": v.expected,
                "value": v.value,
                "description": v.description,
            }
            for v in s.surviving
        ],
        "mutant_counts": s.mutant_counts,
        "killed_by_pin": s.killed_by_pin,
        "pinned": s.pins["pinned"],
        "pinned_up_to_order": s.pins["pinned-up-to-order"],
        "pinned_as_set": s.pins["pinned-as-set"],
        "determined": s.pins["determined"],
        "not_pinned": s.pins["not-pinned"],
        "pin_unknown": s.pins["unknown"],
        "unknown": s.unknown,
        "unscored": s.unscored,
        "problems": list(s.problems),
        "suggestions": [suggestion_dict(g) for g in s.suggestions],
        "everywhere": everywhere_dict(s.everywhere) if s.everywhere is not None else None,
    }


def change_dict(c: SpecChange) -> dict[str, Any]:
    """A changed method's spec against base's: the `spec-changes` output's keys, and what else was proved."""
    return {**c.as_dict(), "reason": c.reason, "requires": c.requires, "fixes_test": c.fixes_test}


def everywhere_dict(e: Everywhere) -> dict[str, Any]:
    """What the spec says of its outputs on every input (README "Beyond the tests")."""
    return {"status": e.status.value, "inputs": e.inputs, "outputs": list(e.outputs), "reason": e.reason}


def suggestion_dict(g: Suggestion) -> dict[str, Any]:
    return {"clause": f"ensures {g.clause}", "template": g.template, "after_line": g.line, "cases": g.cases,
            "rejected": g.rejected, "pinned": g.pinned, "pinned_up_to_order": g.pinned_up_to_order,
            "pinned_as_set": g.pinned_as_set, "pin_checked": g.pin_checked, "implementation": g.implementation}


def report_dict(scores: list[MethodScore], verifier_version: str, settings: dict[str, Any],
                changes: Sequence[SpecChange] | None = None) -> dict[str, Any]:
    """`changes`: a pull request's spec changes (`spec_changes`, pull requests only; None leaves the key out)."""
    out = {
        "schema": SCHEMA_VERSION,
        "verifier": {"version": verifier_version},
        "settings": settings,
        "methods": [method_dict(s) for s in sorted(scores, key=lambda s: (s.file, s.line, s.method))],
    }
    if changes is not None:
        out["spec_changes"] = [change_dict(c) for c in sorted(changes, key=lambda c: (c.file, c.method))]
    return out


def render_json(scores: list[MethodScore], verifier_version: str, settings: dict[str, Any],
                changes: Sequence[SpecChange] | None = None) -> str:
    return json.dumps(report_dict(scores, verifier_version, settings, changes), indent=2, sort_keys=False) + "\n"
