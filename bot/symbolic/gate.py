"""The merge gate of a pull request: thresholds, and the rule that nothing passes unscored. Pure code.

A passing gate means every changed method was scored and met the thresholds. A method that was scored
at base and cannot be scored at head fails, always: otherwise breaking a spec file (a line that does
not resolve, a test file that no longer parses) would be a way to pass. So does a method that lost any
other measure the base had (its completeness, a decided case, a pinned case: see `compare`), whatever
the thresholds: a threshold that is not measured is not met. A method with nothing decided at head (new,
or undecided at base too) fails as well, unless `allow-unscored` turns that into a warning.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.symbolic.compare import Change, MethodDelta
from bot.symbolic.results import (
    FIXES_TEST,
    UNMEASURED,
    Gate,
    MethodScore,
    SpecChange,
    axioms_text,
    gate_failures,
    never_passes,
    undetermined,
)


@dataclass(frozen=True)
class Verdict:
    failures: tuple[str, ...]
    warnings: tuple[str, ...]  # unscored methods let through by `allow-unscored`

    @property
    def passed(self) -> bool:
        return not self.failures


def why_unscored(s: MethodScore) -> str:
    """Why nothing about the method was decided, in a few words."""
    if s.note:
        return s.note
    if not s.cases:
        first = f": {s.problems[0]}" if s.problems else ""
        return f"no readable test case{first}"
    counts: dict[str, int] = {}
    for c in s.cases:
        key = c.status.value + (f" ({c.reason.value})" if c.reason else "")
        counts[key] = counts.get(key, 0) + 1
    return "no case decided: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def weakening(c: SpecChange) -> str:
    """The gate's words for a proved weakening."""
    return (f"{c.file}: {c.method}: got weaker beyond the tests: for {c.inputs} it now accepts {c.output}, which "
            "base rejected")


GONE = ("scored at base and gone at head (deleted, renamed or moved to another file): the measures it had are not "
        "met by any other method")


def gone(d: MethodDelta) -> bool:
    """A method decided at base that head no longer has: renamed with a weaker spec (or moved to another file), it
    would otherwise pass as a new method, its base's pins and completeness forgotten."""
    return d.head is None and d.base is not None and d.base.decided


UNREAD_CASE = "this test case cannot be read and no scored method carries it, so no threshold is met"
NOT_GATED = "not gated: the pull request did not change this method (`gate-scope: files` gates it)"


def pr_gate(deltas: Sequence[MethodDelta], gate: Gate, allow_unscored: bool = False,
            changes: Sequence[SpecChange] = (), fail_on_weakening: bool = True,
            gated: Collection[tuple[str, str]] | None = None) -> Verdict:
    """The verdict over `deltas`. `gated`: the (file, method) pairs the check judges (None: every one; see
    bot/symbolic/touched.py); a method outside it that regressed against base is judged all the same, and the
    failures of the others are said as warnings (reported, not gated)."""
    judged = None if gated is None else set(gated) | {(d.file, d.method) for d in deltas if d.regression or gone(d)}
    failures: list[str] = []
    warnings: list[str] = []
    # each method on its own, so that what is said of one is never counted against (or spared with) another
    keys = {(d.file, d.method) for d in deltas}
    for d in deltas:
        mine = [c for c in changes if (c.file, c.method) == (d.file, d.method)]
        v = _pr_gate([d], gate, allow_unscored, mine, fail_on_weakening)
        warnings += v.warnings
        if judged is None or (d.file, d.method) in judged:
            failures += v.failures
        else:
            warnings += [f"{f}; {NOT_GATED}" for f in v.failures]
    orphans = [c for c in changes if (c.file, c.method) not in keys]  # a change without a delta is still judged
    v = _pr_gate([], gate, allow_unscored, orphans, fail_on_weakening)
    return Verdict(tuple(failures + list(v.failures)), tuple(warnings + list(v.warnings)))


def _pr_gate(deltas: Sequence[MethodDelta], gate: Gate, allow_unscored: bool,
             changes: Sequence[SpecChange], fail_on_weakening: bool) -> Verdict:
    failures: list[str] = []
    warnings: list[str] = []
    # a spec proved weaker than base's on some input fails, unless that makes head accept a test base rejected
    for c in changes:
        if c.weakens and c.fixes_test:
            warnings.append(weakening(c) + f"; {FIXES_TEST}, so it passes")
        elif c.weakens:
            (failures if fail_on_weakening else warnings).append(
                weakening(c) + ("" if fail_on_weakening else "; allowed by fail-on-weakening: false"))
    if gate.require_determined:  # on every input, tested or not: asked of the methods the pull request changed
        failures += [f"{d.file}: {d.method}: {why}" for d in deltas if d.head is not None
                     and (why := undetermined(d.head))]
    scored = [d.head for d in deltas if d.head is not None and d.head.decided]
    # a completeness the base had and the head lacks is said once, as that (below), not also against the threshold
    lost = {f"{d.file}: {d.method}: {UNMEASURED}" for d in deltas if any(w.startswith("completeness") for w in d.lost)}
    failures += [f for f in gate_failures(scored, gate) if not f.startswith(tuple(lost))]
    if gate.allow_axioms:
        warnings += [f"{s.file}: {s.method}: {axioms_text(s.axioms)}; allowed by allow-axioms"
                     for s in scored if s.axioms]
    # a case the base could read and the head cannot is a check that no longer runs: it fails, always
    failures += [f"{d.file}: {d.method}: {why}" for d in deltas for why in d.unreadable]
    # so does any measure the base had and the head lacks: a threshold that is not measured is not met
    failures += [f"{d.file}: {d.method}: {why}" for d in deltas for why in d.lost]
    failures += [f"{d.file}: {d.method}: {GONE}" for d in deltas if gone(d)]
    for d in deltas:
        if d.head is None or d.head.decided:
            continue
        if never_passes(d.head):  # allow-unscored or not
            failures += gate_failures([d.head], gate)
            continue
        if d.head.untested and (d.base is None or not d.base.decided):
            continue  # no test to measure, at head or base: judged on every input only (spec changes, determinacy)
        where = f"{d.file}: {d.method}"
        reason = why_unscored(d.head)
        if d.base is not None and d.base.decided:
            failures.append(f"{where}: scored at base, cannot be scored at head ({reason})")
        elif allow_unscored:
            warnings.append(f"{where}: not scored ({reason}); allowed by allow-unscored")
        else:
            what = "new method" if d.change is Change.NEW else "method"
            failures.append(f"{where}: {what} cannot be scored ({reason})")
    return Verdict(tuple(failures), tuple(warnings))


NO_TESTS = ("no test cases found for any method, so no threshold on the tests is met (require-determined judges "
            "such specs on every input instead; --report-only only reports)")


def score_gate(scores: Sequence[MethodScore], gate: Gate, untested: Sequence[str] = ()) -> tuple[str, ...]:
    """The command line's gate over what `score` scored: the thresholds of every tested method, and nothing passes
    unmeasured: a method with nothing decided (an `ensures` that does not resolve, every case unknown) and a spec
    file without a test case fail, each with the reason (`untested`: the spec files that gave no method to score;
    a file whose methods are all without tests is one too). With `require-determined`, every method, tested or
    not, must be proved to determine its outputs on every input; a file without tests is judged by that alone."""
    files = list(dict.fromkeys(s.file for s in scores))
    bare = [f for f in files if all(s.untested for s in scores if s.file == f)]
    failures = [] if gate.require_determined else [f"{path}: {NO_TESTS}" for path in (*untested, *bare)]
    if gate.require_determined:
        failures += [f"{path}: no method to judge: no method with a spec and outputs (require-determined)"
                     for path in untested]
    tested = [s for s in scores if not s.untested]
    failures += gate_failures([s for s in tested if s.decided or never_passes(s)], gate)
    failures += [f"{s.file}: {s.method}: nothing decided, so no threshold is met ({why_unscored(s)}{_first(s)})"
                 for s in tested if not s.decided and not never_passes(s)]
    if gate.require_determined:
        failures += [f"{s.file}: {s.method}: {why}" for s in scores if (why := undetermined(s))]
    return tuple(failures)


def _first(s: MethodScore) -> str:
    """The first case's message, which says why (`; first: unresolved identifier: z (in ...)`), in one short line."""
    message = next((c.message for c in s.cases if c.message.strip()), "")
    line = " ".join(message.split())
    return f"; first: {line if len(line) <= 200 else line[:197] + '...'}" if line else ""
