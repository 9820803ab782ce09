"""The search for a proved witness of a failed question (bot/symbolic/witness_search.py), step by step against a
scripted engine: which programs it asks, in how many runs, and what it ends with."""

from __future__ import annotations

from collections.abc import Sequence

from bot.symbolic.program import Outcome, Program, ProgramKind, Result
from bot.symbolic.witness_search import NO_SHORT_WITNESS, UNCONFIRMED, Search, run_searches

SHORT = Program("", "short", "method short() {}")


def _program(name: str) -> Program:
    return Program("", name, f"method {name}() {{}}")


class Engine:
    """Answers each program by its name's outcome in `outcomes` (verified unless named), and logs each run."""

    def __init__(self, outcomes: dict[str, Outcome]) -> None:
        self.outcomes = outcomes
        self.runs: list[list[str]] = []

    def run(self, programs: Sequence[Program]) -> dict[Program, Result]:
        self.runs.append([p.name for p in programs])
        return {p: Result(self.outcomes.get(p.name, Outcome.VERIFIED)) for p in programs}


def search(first: str, short: str | None, long: bool = False, eager: bool = False) -> Search[tuple[str]]:
    """A search whose first counterexample reads as `first` ("" unreadable), its short question's as `short`;
    a candidate is confirmed by one program named after it."""
    def read(r: Result, small: bool) -> tuple[str] | str:
        found = short if small else first
        return (found,) if found else "not read"
    return Search(read, lambda c: (_program(f"confirm-{c[0]}"),), (lambda: SHORT) if short is not None else None,
                  lambda c: long and c[0] == first, eager=eager)


def drive(s: Search[tuple[str]], engine: Engine, first: Outcome = Outcome.REFUTED) -> None:
    run_searches(engine, [s], [Result(first)])


def test_a_confirmed_first_reading_is_the_witness_in_one_more_run() -> None:
    s, engine = search("a", "b"), Engine({})
    drive(s, engine)
    assert s.proved == ("a",) and engine.runs == [["confirm-a"]]


def test_an_unreadable_counterexample_asks_the_short_question_and_confirms_its_reading() -> None:
    s, engine = search("", "b"), Engine({"short": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("b",) and engine.runs == [["short"], ["confirm-b"]]


def test_a_first_reading_not_confirmed_asks_the_short_question_then() -> None:
    s, engine = search("a", "b"), Engine({"confirm-a": Outcome.REFUTED, "short": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("b",) and engine.runs == [["confirm-a"], ["short"], ["confirm-b"]]
    # and neither confirmed: unknown, said so
    s, engine = search("a", "b"), Engine({"confirm-a": Outcome.REFUTED, "short": Outcome.REFUTED,
                                          "confirm-b": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved is None and s.why == UNCONFIRMED


def test_a_long_witness_asks_the_short_one_at_once_and_prefers_it() -> None:
    s, engine = search("a", "b", long=True), Engine({"short": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("b",) and engine.runs == [["confirm-a", "short"], ["confirm-b"]]
    # an array among the inputs: asked at once (its first reading seldom holds), said only where the first is not
    # proved
    s, engine = search("a", "b", eager=True), Engine({"short": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("a",) and engine.runs == [["confirm-a", "short"]]
    s, engine = search("a", "b", eager=True), Engine({"short": Outcome.REFUTED, "confirm-a": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("b",) and engine.runs == [["confirm-a", "short"], ["confirm-b"]]
    # the short one not confirmed: the first, proved, stays
    s, engine = search("a", "b", long=True), Engine({"short": Outcome.REFUTED, "confirm-b": Outcome.REFUTED})
    drive(s, engine)
    assert s.proved == ("a",)


def test_a_verified_short_question_decides_nothing_and_says_what_it_searched() -> None:
    s, engine = search("", "b"), Engine({})  # the short question verified: no short witness
    drive(s, engine)
    assert s.proved is None and s.why == NO_SHORT_WITNESS and engine.runs == [["short"]]


def test_no_search_without_a_counterexample() -> None:
    s, engine = search("a", "b"), Engine({})
    drive(s, engine, Outcome.TIMEOUT)
    assert s.proved is None and s.why == "the proof timed out" and engine.runs == []
    s = search("", None)  # nothing to spell out: no short question
    drive(s, engine)
    assert s.proved is None and s.why == "not read" and engine.runs == []


def test_a_candidate_whose_input_assumptions_are_vacuous_is_no_witness() -> None:
    """Each claim verified is not enough: the vacuity probe after the candidate's input assumptions must be
    refuted, or every claim would hold for no reason."""
    probe = Program("", "probe", "method probe() {}", kind=ProgramKind.VACUITY)

    def confirming(c: tuple[str]) -> tuple[Program, ...]:
        return (probe, _program(f"confirm-{c[0]}"))
    vacuous = Search(lambda r, small: ("a",), confirming, None, lambda c: False)
    run_searches(Engine({}), [vacuous], [Result(Outcome.REFUTED)])  # the probe verified: `false` was proved
    assert vacuous.proved is None and vacuous.why == UNCONFIRMED
    sound = Search(lambda r, small: ("a",), confirming, None, lambda c: False)
    run_searches(Engine({"probe": Outcome.REFUTED}), [sound], [Result(Outcome.REFUTED)])
    assert sound.proved == ("a",)
