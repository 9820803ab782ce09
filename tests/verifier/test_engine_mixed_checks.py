"""bot.verifier.engine: a background check rides in the first batch of its prelude's harness programs on a backend
that reads the two apart (`mixed_checks`), and stays apart where that batch fails, where its prelude fails on its
own, and where a method's budget stops the batch."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.symbolic.allowance import CUT_SHORT, NOT_ASKED, Allowance
from bot.symbolic.ledger import Ledger
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.verifier import Dafny2Backend, VerifierInfo, is_transient
from bot.verifier.engine import BUDGET_MARGIN, PRELUDE_BROKEN, PROBE_NAME, Engine
from bot.verifier.process import KILLED, ProcessRun

PRELUDE = "function F(): int { 1 }"
CHECKED = f"check F: ok\n{RUN_FINISHED}"


@dataclass(frozen=True)
class Call:
    names: tuple[str, ...]
    checks: tuple[str, ...]
    background: str
    wall: float | None


@dataclass
class MixingBackend:
    """A harness method `BAD` (or a prelude `BROKEN`) fails the whole file; `SLOW` takes 20 s and times out, every
    other one takes 1 s and verifies; the checks take 1 s and verify. With checks and no `background` every name
    gets the checks' result (as Dafny2Backend's `_whole`); with `background`, that name alone. Past the wall a method
    is not concluded (KILLED), the background check too."""

    mixed_checks = True
    info: VerifierInfo = VerifierInfo(("fake",), "1.0", 2)
    calls: list[Call] = field(default_factory=list)

    def flags_id(self, time_limit: int) -> str:
        return f"fake /timeLimit:{time_limit}"

    def verify_batch(self, prelude: str, methods: Sequence[tuple[str, str]], time_limit: int,
                     models: Collection[str] = frozenset(), *, checks: Sequence[str] = (),
                     wall: float | None = None, background: str = "") -> dict[str, Result]:
        self.calls.append(Call(tuple(n for n, _ in methods), tuple(checks), background, wall))
        if "BROKEN" in prelude or any("BAD" in text for _, text in methods):
            return {name: Result(Outcome.ERROR, "t.dfy(3,4): Error: unresolved identifier: x", 0.5)
                    for name, _ in methods}
        limit = 1e9 if wall is None else wall
        # the checked declarations come first in the file
        clock = (4.0 if "SLOWCHECK" in prelude else 1.0) if checks else 0.0
        killed = Result(Outcome.TIMEOUT, f"{KILLED}{limit:g} s (wall-clock limit)", limit)
        check = Result(Outcome.VERIFIED, CHECKED, clock) if clock <= limit else killed
        if checks and not background:
            return {name: check for name, _ in methods}
        out = {background: check} if background else {}
        for name, text in methods:
            if name == background:
                continue
            cost = 20.0 if "SLOW" in text else 1.0
            if clock + cost > limit:
                out[name] = killed
                continue
            clock += cost
            out[name] = Result(Outcome.TIMEOUT if cost > 1 else Outcome.VERIFIED, "", cost)
        if background and killed in out.values():  # a killed run's report is not read for the checks (`_beside`)
            out[background] = killed
        return out


class SeparateBackend(MixingBackend):
    mixed_checks = False


def harness(count: int, mark: str = "", prelude: str = PRELUDE) -> list[Program]:
    return [Program(prelude, f"SpecScore_{mark}{i}", f"method SpecScore_{mark}{i}() {{ /* {mark} */ }}")
            for i in range(count)]


def background(prelude: str = PRELUDE) -> Program:
    return Program(prelude, "SpecScoreBackground", "method SpecScoreBackground() { assert true; }", checks=("F",))


def test_the_background_check_rides_in_its_preludes_first_batch() -> None:
    backend = MixingBackend()
    cases, check = harness(4), background()
    results = Engine(backend, jobs=1, batch_size=40).run([*cases, check])
    assert backend.calls == [Call(("SpecScoreBackground", *(p.name for p in cases)), ("F",),
                                  "SpecScoreBackground", None)]
    assert results[check] == Result(Outcome.VERIFIED, CHECKED, 1.0)
    assert [results[p].outcome for p in cases] == [Outcome.VERIFIED] * 4


def test_the_background_check_goes_alone_without_a_batch_of_its_prelude_or_on_a_backend_that_cannot_mix() -> None:
    backend = MixingBackend()
    other = harness(2, prelude="function G(): int { 2 }")
    Engine(backend, jobs=1).run([*other, background()])
    assert [c.background for c in backend.calls] == ["", ""]
    assert Call(("SpecScoreBackground",), ("F",), "", None) in backend.calls
    separate = SeparateBackend()
    results = Engine(separate, jobs=1).run([*harness(2), background()])
    assert sorted(c.names for c in separate.calls) == [("SpecScoreBackground",), ("SpecScore_0", "SpecScore_1")]
    assert results[background()].message == CHECKED


def test_a_mixed_batch_that_fails_as_a_whole_is_bisected_and_the_check_keeps_its_declarations() -> None:
    backend = MixingBackend()
    cases = [*harness(3), *harness(1, mark="BAD")]
    check = background()
    results = Engine(backend, jobs=1, batch_size=40).run([*cases, check])
    assert results[check] == Result(Outcome.VERIFIED, CHECKED, 1.0)  # never the broken harness's error
    assert results[cases[-1]].outcome is Outcome.ERROR
    assert [results[p].outcome for p in cases[:3]] == [Outcome.VERIFIED] * 3
    # every batch that held the check's program asked its checks
    assert all(c.checks == ("F",) for c in backend.calls if "SpecScoreBackground" in c.names)


def test_a_prelude_broken_on_its_own_blames_the_harness_programs_and_asks_the_check_alone() -> None:
    backend = MixingBackend()
    broken = "function F(): int { BROKEN }"
    cases, check = harness(4, prelude=broken), background(broken)
    results = Engine(backend, jobs=1, batch_size=40).run([*cases, check])
    assert all(results[p].message.startswith(PRELUDE_BROKEN) for p in cases)
    assert (PROBE_NAME,) in [c.names for c in backend.calls]
    assert Call(("SpecScoreBackground",), ("F",), "", None) in backend.calls
    assert results[check].outcome is Outcome.ERROR and not results[check].message.startswith(PRELUDE_BROKEN)


def test_within_a_budget_the_mixed_batch_has_the_methods_wall_and_the_check_is_asked_alone_when_they_are_not() -> None:
    backend = MixingBackend()
    cases, check = harness(2), background()
    ledger = Ledger(30.0)
    Engine(backend, jobs=1).run([*cases, check], Allowance({p: (ledger,) for p in cases}))
    assert backend.calls == [Call(("SpecScoreBackground", *(p.name for p in cases)), ("F",),
                                  "SpecScoreBackground", 30.0 + 2 * BUDGET_MARGIN)]
    spent = Ledger(1.0)
    spent.charge(1.0, cut=False)
    backend = MixingBackend()
    results = Engine(backend, jobs=1).run([*cases, check], Allowance({p: (spent,) for p in cases}))
    assert backend.calls == [Call(("SpecScoreBackground",), ("F",), "", None)]
    assert results[check].message == CHECKED
    assert [results[p].message for p in cases] == [NOT_ASKED, NOT_ASKED]


def test_a_mixed_batch_the_budget_cuts_asks_the_check_again_alone() -> None:
    cases, check = harness(3, mark="SLOW"), background()
    ledger = Ledger(0.5)  # the first 20 s time-out is cut at the wall
    backend = MixingBackend()
    results = Engine(backend, jobs=1).run([*cases, check], Allowance({p: (ledger,) for p in cases}))
    assert [c.wall for c in backend.calls] == [0.5 + 2 * BUDGET_MARGIN, None]
    assert backend.calls[1] == Call(("SpecScoreBackground",), ("F",), "", None)
    assert results[check] == Result(Outcome.VERIFIED, CHECKED, 1.0)  # as in a batch of its own: no method's budget
    assert all(results[p].message == CUT_SHORT and is_transient(results[p]) for p in cases)
    assert ledger.over


def test_the_checks_riding_along_bring_their_own_margin_to_the_methods_wall() -> None:
    # the checks take 4 s, first in the file; the methods have 3 s left: apart, their five 1 s programs end within
    # the budget's margin (8 s), and so they do beside the checks
    slow_checks = "function F(): int { 1 } // SLOWCHECK"
    cases, check = harness(5, prelude=slow_checks), background(slow_checks)
    ledger = Ledger(3.0)
    results = Engine(MixingBackend(), jobs=1).run([*cases, check], Allowance({p: (ledger,) for p in cases}))
    assert [results[p].outcome for p in cases] == [Outcome.VERIFIED] * 5
    assert results[check].outcome is Outcome.VERIFIED
    assert not ledger.over


def _partial_run(returncode: int | None, killed: bool, output: str = "") -> Callable[..., ProcessRun]:
    """A verifier run that concluded one checked procedure, then was killed or crashed (the report written so far)."""
    def runner(argv: Sequence[str], folder: str, wall: float) -> ProcessRun:
        xml = next(a for a in argv if a.startswith("/xml:"))[len("/xml:"):]
        done = '<conclusion outcome="correct" duration="0.1"/></method>'
        Path(folder, xml).write_text(
            f'<root><file><method name="CheckWellformed$$_module.__default.F">{done}</file></root>')
        return ProcessRun(returncode, output, 1.0, killed=killed)
    return runner


def test_a_background_check_whose_run_did_not_finish_is_transient_never_a_partial_report() -> None:
    backend = Dafny2Backend(VerifierInfo(("dafny",), "2.3.0.10506", 2))
    methods = [("SpecScoreBackground", "method SpecScoreBackground() { assert true; }"),
               ("SpecScore_0", "method SpecScore_0() { }")]
    for runner in (_partial_run(None, True), _partial_run(134, False, "Fatal error: z3 crashed")):
        for batch, background in ((methods[:1], ""), (methods, "SpecScoreBackground")):
            found = backend.verify_batch(PRELUDE, batch, 20, frozenset(), runner, checks=("F",),
                                         background=background)
            assert is_transient(found["SpecScoreBackground"]), found["SpecScoreBackground"]
            assert all(is_transient(r) for r in found.values())
