"""Test cases read from files: concrete inputs and the expected outputs of one method call.

Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.dafny.values import Value


@dataclass(frozen=True)
class Tolerance:
    """The test's own tolerance for one real output, exactly as its check states it: `abs(r - x) < e` (strict) or
    `abs(r - x) <= e`; the output passes when |r - x| is below (or, not strict, at most) `bound`."""

    output: int  # index of the out-parameter
    bound: Fraction  # e > 0
    strict: bool  # `<` (the open interval) rather than `<=` (the closed one)

    def admits(self, distance: Fraction) -> bool:
        """Whether an output at this distance from the expected value passes the test's check."""
        return distance < self.bound if self.strict else distance <= self.bound

    def shown(self, name: str, expected: str) -> str:
        return f"|{name} - {expected}| {'<' if self.strict else '<='} {float(self.bound):g}"


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # not a pytest class

    name: str  # unique within the method, e.g. "SharedElementsTest#1" or "test_2"
    method: str  # the method under test
    inputs: tuple[Value, ...]  # one per parameter, in declaration order
    expected: tuple[Value, ...]  # one per out-parameter, in declaration order
    post: tuple[tuple[int, Value], ...] = ()  # in-place methods: (parameter index, expected state after)
    source: str = ""  # file the case was read from
    line: int = 0  # line of the call (or of the case entry)
    text: str = ""  # the case as written, for reports
    # how the case was read when it is a guess rather than a check as written, e.g. "expected value taken
    # from `e1` (line 11), declared before the call and never compared"; "" for a plain case
    note: str = ""
    # the expected value is an inference the test does not state (e.g. a variable never compared): it may confirm
    # a spec, never refute it (bot/symbolic/rounds.py makes such a rejection `unknown`, reason `guessed-expectation`)
    guessed: bool = False
    # pairs (i, j) of array parameters of one type: "same" (the test passes one array twice), "distinct" (arrays it
    # allocated apart) or "unknown" (it does not tell them apart); None: every such pair is distinct (literal
    # arguments, as in TOML cases). The harness assumes exactly this, no more.
    arrays: tuple[tuple[int, int, str], ...] | None = None
    # (output index, parameter index): the test says the output *is* that array argument (`r == a`, reference
    # equality), not only that it has its contents; `expected` then holds that array's contents after the call
    refs: tuple[tuple[int, int], ...] = ()
    # the test's own absolute tolerance for some real outputs (`expect abs(r - x) < e`), one per output it is stated
    # for, in output order: used for that output instead of the tool's relative tolerance; the test states no other
    # check of such an output (the reader makes the case unreadable otherwise)
    tolerances: tuple[Tolerance, ...] = ()
    # out-parameters the test does not check (`var ok, i := Find(a, 3); expect i == 0;`): any value the spec admits;
    # `expected` holds a placeholder there (never a claim: rejections leave them arbitrary, acceptance needs a
    # witness, mutants and the pin check leave them out)
    unchecked: tuple[int, ...] = ()
    # a property expectation (`expect |v| == 3;`, written in the out-parameters' names): the unchecked outputs are
    # any value the spec admits that satisfies it; "" for none
    property: str = ""

    def tolerance_of(self, output: int) -> Tolerance | None:
        """The test's own tolerance for out-parameter `output`, or None when it compares it exactly."""
        return next((t for t in self.tolerances if t.output == output), None)


# how a case's note says an output is not checked (written by the reader or, when it did not, the pipeline)
UNCHECKED = "not checked by the test: any value the spec admits"


def join_notes(a: str, b: str) -> str:
    """Two notes of one case as one ("; " between them)."""
    return f"{a}; {b}" if a and b else a or b


@dataclass(frozen=True)
class CaseProblem:
    """A case that could not be read; reported with file, line and reason, never scored."""

    source: str
    line: int
    reason: str
    method: str = ""
    name: str = ""
    checked: bool = False  # the test states a check of the call's results that could not be read

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass(frozen=True)
class ReadResult:
    cases: tuple[TestCase, ...]
    problems: tuple[CaseProblem, ...]
