"""The result data: case and mutant statuses, case results, method scores and the gate over them.

Pure data and arithmetic over it; it imports nothing of the engine (how statuses are decided from proofs is
bot/symbolic/verdicts.py), so that reports and front ends read results without loading the machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from bot.dafny.values import Value
from bot.symbolic.ledger import Ledger


class CaseStatus(Enum):
    VERIFIED = "verified"  # acceptance of the expected output proved
    REFUTED = "refuted"  # rejection of the expected output proved
    UNKNOWN = "unknown"  # neither proved: `reason` says why
    ERROR = "error"  # the program did not resolve or the verifier failed: a defect to report
    PRECONDITION_VIOLATED = "precondition-violated"  # proved: the inputs violate `requires`
    UNSUPPORTED = "unsupported"
    VACUOUS = "vacuous"
    INCONSISTENT = "inconsistent"  # `false` proved once the spec is assumed of the expected output: no verdict

    @property
    def scored(self) -> bool:
        return self in (CaseStatus.VERIFIED, CaseStatus.REFUTED)


class Undecided(Enum):
    """Why a case or mutant is unknown. Never counted as wrong, killed or passed."""

    TIMEOUT = "timeout"
    STUCK = "stuck"  # the verifier proved neither acceptance nor rejection (the clause is named)
    HINT_FAULT = "hint-fault"  # a line the tool wrote failed; kept for diagnosis
    PRECONDITION = "precondition-undecided"  # neither `requires` nor its violation was proved
    VERIFIER = "verifier-error"  # the verifier crashed or gave no result for the program
    BACKGROUND = "background"  # a declaration the spec reaches does not verify, or was not shown to
    GUESSED = "guessed-expectation"  # rejected, but the expected value is a guess the test does not state


class Determinacy(Enum):
    """Whether the spec admits only the expected output on a case's inputs (the pin check)."""

    PINNED = "pinned"  # proved: the expected output is the only one accepted
    PINNED_UP_TO_ORDER = "pinned-up-to-order"  # proved: every accepted output has the expected elements
    DETERMINED = "determined"  # a property expectation: proved, every output the spec admits has the property
    PINNED_AS_SET = "pinned-as-set"  # proved: every accepted output has the expected set of elements (any number)
    NOT_PINNED = "not-pinned"  # another accepted output was found and confirmed: the witness
    UNKNOWN = "unknown"  # neither proved nor a witness confirmed


class MutantStatus(Enum):
    KILLED = "killed"  # rejection proved
    SURVIVED = "survived"  # acceptance proved
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class MutantResult:
    value: str  # the wrong output(s), as Dafny literal text
    description: str
    status: MutantStatus
    message: str = ""
    reason: Undecided | None = None  # when unknown
    killed_by: KillProof | None = None  # when killed: which proof rejected it


class KillProof(Enum):
    """The proof that a mutant is rejected."""

    REJECTION = "rejection"  # its own program: `ensures !(E1 && ... && En)` for this output
    PIN = "pin"  # the case's pin check: the spec admits only the expected output, so no other is accepted
    # the order-free pin check: the spec admits only outputs with the expected elements, so none with others
    PIN_UP_TO_ORDER = "pin-up-to-order"


@dataclass(frozen=True)
class CaseResult:
    name: str
    line: int
    inputs: str  # "a = [3, 4], b = [5]"
    expected: str  # "result = [4, 5]"
    text: str  # the case as written in its file
    source: str
    status: CaseStatus
    message: str = ""
    mutants: tuple[MutantResult, ...] = ()
    reason: Undecided | None = None  # when unknown
    clause: str = ""  # refuted: the first clause whose rejection is proved; unknown: where it got stuck
    note: str = ""  # how the case was read or decided (e.g. within the real tolerance)
    determinacy: Determinacy | None = None  # None when the pin check was not run
    witness: str = ""  # another output the spec accepts (confirmed), as Dafny text; "" when none
    witness_source: str = ""  # "solver" (the counterexample model), "search" or "mutant"
    # the wrong outputs whose acceptance was proved (confirmed witnesses, surviving mutants), as values: what a
    # suggested clause must be proved to reject (order variants and reals within the tolerance left out)
    accepted_wrong: tuple[tuple[Value, ...], ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Axiom:
    """A declaration a method's verdicts rest on without any check (bot/symbolic/background.py)."""

    name: str  # the declaration; the method itself for an `assume` in its own spec
    line: int
    file: str
    why: str  # "body-less function with `ensures`", "{:verify false}", "`assume` in its body", ...


class BackgroundStatus(Enum):
    """Whether the declarations a method's spec reaches verify as written (bot/symbolic/background.py)."""

    VERIFIED = "verified"
    FAILED = "failed"  # one of them fails its own check: nothing proved on top of it means anything
    UNKNOWN = "unknown"  # not established (a time-out, a verifier error): no verdict either


NO_TEST_CASES = "no test cases found"  # the note of a method scored on every input only (a spec without tests)
UNTESTED_TEXT = "no test cases: scored on every input only"  # what every report says of such a method
FIXES_TEST = "it makes head accept a test case base rejected"  # a weakening the gate lets pass, in every output
SPEC_ERROR = "the spec file does not resolve: "  # a case's message for an error on the user's own line (proofs.py)
FOUND_BY = "found by the "  # a pin-check witness's description (MethodScore.witnesses)
AS_MUTANT = " and as a mutant "  # a witness that is also a surviving mutant (MethodScore.wrong_outputs)


@dataclass(frozen=True)
class Surviving:
    case: str
    inputs: str
    expected: str
    value: str
    description: str


@dataclass(frozen=True)
class Suggestion:
    """A clause that makes a weak spec stronger, with what was proved of it (bot/symbolic/suggest/search.py)."""

    clause: str  # the expression; the suggestion is `ensures <clause>`
    template: str  # where it came from: a template's name, or "suggester"
    line: int  # the line after which it goes (where the method's last specification clause ends)
    cases: int  # test cases whose expected output the strengthened spec is proved to accept (all of them)
    rejected: int  # wrong outputs the spec accepted, proved rejected by the strengthened spec (all of them)
    pinned: int  # cases the strengthened spec pins exactly, ...
    pinned_up_to_order: int  # ... up to order, ...
    pinned_as_set: int  # ... as a set,
    pin_checked: int  # of the cases pin-checked
    # the method's own body against the strengthened spec: "verifies", "fails: <why>", "unknown: <why>", or
    # "no body" (a spec without an implementation); "" when not checked (a suggestion ranked below the first)
    implementation: str = ""


@dataclass(frozen=True)
class MethodScore:
    file: str
    method: str
    line: int
    correctness: float | None  # verified / scored cases; None when no case was conclusive
    completeness: float | None  # killed / conclusive mutants; only when correctness is 1.0
    cases: tuple[CaseResult, ...]
    problems: tuple[str, ...] = ()  # cases that could not be read: "file:line: reason"
    note: str = ""  # why the method was not scored at all, when it was not
    background: BackgroundStatus | None = None  # None: not checked (no case was scored)
    background_message: str = ""  # the failing declarations, or why the check was not conclusive
    axioms: tuple[Axiom, ...] = ()  # trusted declarations the verdicts are relative to
    suggestions: tuple[Suggestion, ...] = ()  # verified strengthenings, best first (weak methods only)
    # whether the spec determines its outputs on every input (bot/symbolic/everywhere.py); None: not asked
    everywhere: Everywhere | None = None
    # whether the method's own clauses were proved well-formed (the background check; None: not concluded): the
    # proofs over every input need it, as Dafny rejects a spec that is not
    well_formed: bool | None = None
    # a program of the method timed out at the full limit, so its later ones were asked with a short one
    # (bot/symbolic/rounds.py ScoreOptions.slow_limit): its questions over every input get that limit too
    slow: bool = False
    # what is left of the method's budget of verification (bot/symbolic/allowance.py), for the stages after the rounds
    # (its suggestions' rescorings, its questions on every input); None: no budget. Never reported
    ledger: Ledger | None = field(default=None, compare=False, repr=False)

    @property
    def surviving(self) -> tuple[Surviving, ...]:
        return tuple(
            Surviving(c.name, c.inputs, c.expected, m.value, m.description)
            for c in self.cases
            for m in c.mutants
            if m.status is MutantStatus.SURVIVED
        )

    @property
    def mutant_counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in MutantStatus}
        for c in self.cases:
            for m in c.mutants:
                counts[m.status.value] += 1
        return counts

    @property
    def killed_by_pin(self) -> int:
        """Mutants whose rejection follows from their case's proved pin check (no program of their own)."""
        return sum(m.killed_by in (KillProof.PIN, KillProof.PIN_UP_TO_ORDER) for c in self.cases for m in c.mutants)

    @property
    def unknown(self) -> dict[str, int]:
        """Why cases and mutants are unknown: "case timeout" -> count."""
        out: dict[str, int] = {}
        for c in self.cases:
            if c.status is CaseStatus.UNKNOWN:
                key = f"case {c.reason.value if c.reason else 'unknown'}"
                out[key] = out.get(key, 0) + 1
            for m in c.mutants:
                if m.status is MutantStatus.UNKNOWN:
                    key = f"mutant {m.reason.value if m.reason else 'unknown'}"
                    out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))

    @property
    def pins(self) -> dict[str, int]:
        """Pin-check results over the cases that had one: determinacy -> count."""
        out = {d.value: 0 for d in Determinacy}
        for c in self.cases:
            if c.determinacy is not None:
                out[c.determinacy.value] += 1
        return out

    @property
    def pinned_text(self) -> str:
        """"3/4": cases pinned (exactly or up to order) over cases pin-checked; "" when none was."""
        checked = [c for c in self.cases if c.determinacy is not None]
        if not checked:
            return ""
        ok = sum(c.determinacy in (Determinacy.PINNED, Determinacy.PINNED_UP_TO_ORDER) for c in checked)
        return f"{ok}/{len(checked)}"

    @property
    def wrong_outputs(self) -> tuple[Surviving, ...]:
        """Every distinct wrong output proved accepted, once per case and value, with every way it was found: the
        pin check's witnesses first ("found by the solver"), then the surviving mutants; one found both ways says
        both ("found by the solver and as a mutant (r: 3 -> 4)"). What every report counts and shows."""
        found: dict[tuple[str, str], Surviving] = {}
        for w in self.witnesses:
            found.setdefault((w.case, w.value), w)
        for m in self.surviving:
            seen = found.get((m.case, m.value))
            if seen is None:
                found[(m.case, m.value)] = m
            elif seen.description.startswith(FOUND_BY) and AS_MUTANT not in seen.description:
                found[(m.case, m.value)] = replace(seen, description=f"{seen.description}{AS_MUTANT}({m.description})")
        return tuple(found.values())

    @property
    def witnesses(self) -> tuple[Surviving, ...]:
        """Other outputs the spec accepts that the pin check found (confirmed), one per case at most."""
        return tuple(
            Surviving(c.name, c.inputs, c.expected, c.witness, f"{FOUND_BY}{c.witness_source}")
            for c in self.cases
            if c.determinacy in (Determinacy.NOT_PINNED, Determinacy.PINNED_AS_SET) and c.witness
        )

    @property
    def unscored(self) -> dict[str, int]:
        """Cases set aside for another cause than an undecided proof: "precondition-violated" -> count."""
        out: dict[str, int] = {}
        for c in self.cases:
            if not c.status.scored and c.status is not CaseStatus.UNKNOWN:
                out[c.status.value] = out.get(c.status.value, 0) + 1
        return dict(sorted(out.items()))

    @property
    def precondition_rejects(self) -> tuple[CaseResult, ...]:
        """Cases whose inputs are proved to violate `requires`: the spec and the test disagree (the precondition
        is too strong, or the test is wrong), as when a postcondition rejects the expected output."""
        return tuple(c for c in self.cases if c.status is CaseStatus.PRECONDITION_VIOLATED)

    @property
    def untested(self) -> bool:
        """A method without any test case (readable or not): the tests measure nothing of it, every input may."""
        return self.note == NO_TEST_CASES and not self.cases and not self.problems

    @property
    def decided(self) -> bool:
        """Something was proved about the spec (a case verified or refuted)."""
        return any(c.status.scored for c in self.cases)


def correctness(cases: tuple[CaseResult, ...]) -> float | None:
    scored = [c for c in cases if c.status.scored]
    if not scored:
        return None
    return sum(c.status is CaseStatus.VERIFIED for c in scored) / len(scored)


def completeness(cases: tuple[CaseResult, ...], corr: float | None) -> float | None:
    if corr != 1.0:
        return None
    conclusive = [m for c in cases for m in c.mutants if m.status is not MutantStatus.UNKNOWN]
    if not conclusive:
        return None
    return sum(m.status is MutantStatus.KILLED for m in conclusive) / len(conclusive)


def method_score(
    file: str,
    method: str,
    line: int,
    cases: tuple[CaseResult, ...],
    problems: tuple[str, ...] = (),
    note: str = "",
    background: BackgroundStatus | None = None,
    background_message: str = "",
    axioms: tuple[Axiom, ...] = (),
) -> MethodScore:
    if background in (BackgroundStatus.FAILED, BackgroundStatus.UNKNOWN):
        # nothing proved on top of an unchecked background means anything: no case keeps a verdict
        head = BACKGROUND_FAILS if background is BackgroundStatus.FAILED else BACKGROUND_UNKNOWN
        cases = tuple(_without_verdict(c, f"{head}: {background_message}" if background_message else head)
                      for c in cases)
    corr = correctness(cases)
    return MethodScore(file, method, line, corr, completeness(cases, corr), cases, problems, note, background,
                       background_message, axioms)


def _without_verdict(case: CaseResult, message: str) -> CaseResult:
    if case.status in (CaseStatus.ERROR, CaseStatus.UNSUPPORTED):
        return case  # not a verdict: the defect stands
    return replace(case, status=CaseStatus.UNKNOWN, reason=Undecided.BACKGROUND, clause="", mutants=(),
                   determinacy=None, witness="", witness_source="", message=message)


BACKGROUND_FAILS = "the declarations the spec reaches do not verify"
AXIOMS_HINT = "set allow-axioms to accept verdicts that rest on them"


def background_lines(s: MethodScore) -> list[str]:
    """What a method's verdicts rest on, when worth saying: a background that does not verify (or was not shown
    to), and trusted axioms. Shared by every report."""
    lines = []
    if s.background is BackgroundStatus.FAILED:
        lines.append(f"no verdict: {BACKGROUND_FAILS}: {s.background_message}")
    elif s.background is BackgroundStatus.UNKNOWN:
        lines.append(f"no verdict: {BACKGROUND_UNKNOWN}: {s.background_message}")
    if s.axioms:
        lines.append(f"verdicts {axioms_text(s.axioms)}")
    return lines


def precondition_line(s: MethodScore) -> str:
    """"the precondition rejects 2 of its 3 test cases (proved; `requires x > 0`)", or "" when it rejects none."""
    rejected = s.precondition_rejects
    if not rejected:
        return ""
    clauses = sorted({c.clause for c in rejected if c.clause})
    by = f"; {', '.join(f'`{c}`' for c in clauses)}" if clauses else ""
    return (f"the precondition rejects {len(rejected)} of its {len(s.cases)} test case(s) "
            f"(proved{by}): the `requires` is too strong, or the tests are wrong")


def method_notes(s: MethodScore) -> list[str]:
    """Every report's lines under a method: what its verdicts rest on, and a precondition that rejects its tests."""
    return background_lines(s) + ([precondition_line(s)] if s.precondition_rejects else [])


def never_passes(s: MethodScore) -> bool:
    """A method whose background fails or whose spec proves `false` on a case: no threshold or allowance lets it
    through (`allow-unscored` and `allow-axioms` included)."""
    return s.background is BackgroundStatus.FAILED or any(c.status is CaseStatus.INCONSISTENT for c in s.cases)


def axioms_text(axioms: tuple[Axiom, ...]) -> str:
    """"relative to 2 trusted axioms (Norm at f.dfy:3: body-less function with `ensures`; ...)"."""
    noun = "axiom" if len(axioms) == 1 else "axioms"
    listed = "; ".join(f"{a.name} at {a.file}:{a.line}: {a.why}" for a in axioms)
    return f"relative to {len(axioms)} trusted {noun} ({listed})"
BACKGROUND_UNKNOWN = "the declarations the spec reaches were not shown to verify"


@dataclass(frozen=True)
class Gate:
    min_correctness: float = 1.0
    min_completeness: float = 0.0
    fail_on_unknown: bool = False  # strict: an unknown case or mutant fails the gate too
    allow_axioms: bool = False  # verdicts relative to trusted axioms pass (with a warning) instead of failing
    # every judged method's spec must be proved to determine its outputs on every input (README "Beyond the tests")
    require_determined: bool = False


UNMEASURED = "completeness not measured"


def why_no_completeness(s: MethodScore) -> str:
    """Why a method has no completeness, in a few words."""
    if s.correctness is None:
        return "no case is decided"
    if s.correctness != 1.0:
        return f"correctness is {s.correctness:.2f}, and completeness is measured only at 1.00"
    mutants = sum(len(c.mutants) for c in s.cases)
    if not mutants:
        return "no case has a mutant to try (a property check states no output to mutate)"
    return f"none of its {mutants} mutants was decided"


def gate_failures(scores: list[MethodScore], gate: Gate) -> list[str]:
    """Why the gate fails (empty when it passes).

    Correctness counts proved refutations only and completeness proved kills and survivals only, so an
    output the verifier could not decide never fails a spec, unless the gate asks to fail on unknowns.
    """
    out = []
    for s in scores:
        if s.background is BackgroundStatus.FAILED:
            out.append(f"{s.file}: {s.method}: {BACKGROUND_FAILS} ({s.background_message})")
            continue
        inconsistent = [c.name for c in s.cases if c.status is CaseStatus.INCONSISTENT]
        if inconsistent:
            out.append(f"{s.file}: {s.method}: {', '.join(inconsistent)} inconsistent: the spec assumed of the "
                       "expected output proves `false`")
        if s.precondition_rejects:
            out.append(f"{s.file}: {s.method}: {precondition_line(s)}")
        if s.axioms and not gate.allow_axioms:
            out.append(f"{s.file}: {s.method}: {axioms_text(s.axioms)}; {AXIOMS_HINT}")
        if s.correctness is not None and s.correctness < gate.min_correctness:
            out.append(f"{s.file}: {s.method}: correctness {s.correctness:.2f} < {gate.min_correctness:.2f}")
        elif s.completeness is not None and s.completeness < gate.min_completeness:
            out.append(
                f"{s.file}: {s.method}: completeness {s.completeness:.2f} < {gate.min_completeness:.2f}"
            )
        elif s.completeness is None and gate.min_completeness > 0 and s.decided:
            # a threshold that is not measured is not met
            out.append(f"{s.file}: {s.method}: {UNMEASURED} ({why_no_completeness(s)}), so "
                       f"min-completeness {gate.min_completeness:.2f} is not met")
        if gate.fail_on_unknown and s.unknown:
            counts = ", ".join(f"{n} {k}" for k, n in s.unknown.items())
            out.append(f"{s.file}: {s.method}: undecided ({counts}) and fail-on-unknown is set")
    return out


# ---- beyond the tests: every input (bot/symbolic/everywhere.py, bot/symbolic/spec_change.py)


def undetermined(s: MethodScore) -> str:
    """Why `require-determined` is not met by the method ("" when its spec is proved to determine its outputs on
    every input): not determined (with the witness), determined only up to order or as a set, or not known."""
    e = s.everywhere
    if e is None:
        return "not determined on every input: the question was not asked"
    if e.status is EverywhereStatus.DETERMINED:
        return ""
    return f"{e.sentence}, so require-determined is not met"


class EverywhereStatus(Enum):
    DETERMINED = "determined"
    UP_TO_ORDER = "determined-up-to-order"
    AS_SET = "determined-as-set"
    NOT_DETERMINED = "not-determined"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Everywhere:
    """What the spec says of its outputs on every input (README "Beyond the tests")."""

    status: EverywhereStatus
    inputs: str = ""  # the witness input, as reports write inputs (`x = -1`); not-determined only
    outputs: tuple[str, ...] = ()  # two different outputs the spec accepts on it, each proved accepted
    reason: str = ""  # why unknown; for a partly determined spec, what is not

    @property
    def sentence(self) -> str:
        """One line for the text report and the comment."""
        if self.status is EverywhereStatus.NOT_DETERMINED:
            return (f"not determined on every input: for {self.inputs} the spec accepts both {self.outputs[0]} and "
                    f"{self.outputs[1]}" + (f" ({self.reason})" if self.reason else " (found beyond the tests)"))
        if self.status is EverywhereStatus.UNKNOWN:
            return f"on every input: unknown whether the spec determines the output ({self.reason})"
        words = {EverywhereStatus.DETERMINED: "determined on every input",
                 EverywhereStatus.UP_TO_ORDER: "determined up to order on every input",
                 EverywhereStatus.AS_SET: "determined as a set on every input"}
        return words[self.status] + (f" ({self.reason})" if self.reason else "")


class Relation(Enum):
    EQUIVALENT = "equivalent"
    STRONGER = "stronger"
    WEAKER = "weaker"
    INCOMPARABLE = "incomparable"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class SpecChange:
    """One changed method's postcondition, head against base (the `spec-changes` output's objects)."""

    file: str
    method: str
    relation: Relation
    inputs: str = ""  # the witness input of a weakening (else of a strengthening), as reports write inputs
    output: str = ""  # the output one version accepts and the other rejects there
    accepted_by: str = ""  # "head" (weaker, incomparable) or "base" (stronger)
    reason: str = ""  # why unknown, or what else was proved
    requires: str = ""  # the preconditions: "same", "accepts more inputs", "accepts fewer inputs", "" unknown
    fixes_test: bool = False  # a weakening that makes head accept a test case base rejected
    # the lines that replace head's `ensures` lines of the method (its first to its last; its declaration's line
    # when it has none) to give base's deleted or loosened clauses back, proved to reject the witness and accept
    # every test (bot/symbolic/suggest/restore.py); () when none is; a review comment's suggestion, no report's word
    restore: tuple[str, ...] = ()

    @property
    def weakens(self) -> bool:
        """Head was proved to accept an output base rejected (weaker, or incomparable that way too)."""
        return self.relation in (Relation.WEAKER, Relation.INCOMPARABLE) and self.accepted_by == "head"

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "method": self.method, "relation": self.relation.value, "inputs": self.inputs,
                "output": self.output, "accepted_by": self.accepted_by}

    @property
    def sentence(self) -> str:
        """One sentence for the comment: "`Abs` got weaker beyond the tests: for `x = -1` it now accepts `12`,
        which base rejected."."""
        name = f"`{self.method}`"
        if self.relation is Relation.WEAKER or (self.relation is Relation.INCOMPARABLE and self.accepted_by == "head"):
            how = "got weaker" if self.relation is Relation.WEAKER else "changed (neither weaker nor stronger)"
            text = (f"{name} {how} beyond the tests: for `{self.inputs}` it now accepts `{self.output}`, which base "
                    "rejected")
            # the comment's words and order (bot/report/sentences.py spec_change_sentence): one fact, said one way
            text += f" ({FIXES_TEST})" if self.fixes_test else ""
            return text + (f" ({self.reason})" if self.reason and self.relation is Relation.WEAKER else "") + "."
        if self.relation is Relation.STRONGER:
            return (f"{name} got stronger: for `{self.inputs}` it now rejects `{self.output}`, which base "
                    f"accepted{self._requires()}.")
        if self.relation is Relation.EQUIVALENT:
            return (f"{name}: its postcondition is equivalent to base's on every input{self.compared_on} (proved)"
                    f"{self._requires()}.")
        return f"{name}: how its postcondition relates to base's is unknown ({self.reason})."

    @property
    def compared_on(self) -> str:
        """Where the postconditions were compared, when not on every input: on an input only base's `requires`
        admits, head's postcondition may say nothing (a `requires` added as a clause is deleted: proved
        "equivalent" there, yet head allows any output where base allowed one)."""
        return "" if self.requires == "same" else " both `requires` admit"

    def _requires(self) -> str:
        said = {"admits no input base did not": "; its `requires` admits no input base's did not",
                "admits every input base did": "; its `requires` admits every input base's did"}
        return said.get(self.requires, "")
