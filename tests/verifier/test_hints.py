"""Proof hints: pure unit tests of what is emitted, and real-verifier tests that they make proofs go
through (and never make a wrong output pass)."""

from __future__ import annotations

import pytest

from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.values import IntV, SeqV
from bot.symbolic.harness.evaluate import NoValue, integer_value
from bot.symbolic.harness.hints import quantifier_hints, recursion_hints
from bot.symbolic.harness.programs import HarnessOptions
from bot.symbolic.results import MethodScore
from bot.symbolic.rounds import MethodJob, ScoreOptions, score_methods
from bot.testcases.discover import cases_for_spec
from bot.verifier import detect, make_backend
from bot.verifier.cache import ResultCache
from bot.verifier.engine import Engine
from support.paths import DATA

HINTS = DATA / "hints"
S = SeqV((IntV(4), IntV(5), IntV(6)))


def test_evaluate_bounds() -> None:
    env = {"s": S, "n": IntV(7)}
    assert integer_value("|s| - 1", env) == 2
    assert integer_value("n / 2 + (n % 3) * 2", env) == 5
    assert integer_value("-7 / 2", env) == -4  # Euclidean, as in Dafny
    with pytest.raises(NoValue):
        integer_value("|t|", env)


def test_positive_forall_is_split_into_cases() -> None:
    out = quantifier_hints(["forall i, j :: 0 <= i < j < |s| ==> s[i] != s[j]"], {"s": S}, 100)
    assert out[0] == "  forall i, j | 0 <= i < j < |s| ensures s[i] != s[j] {"
    assert out[1] == "    assert (i == 0 && j == 1) || (i == 0 && j == 2) || (i == 1 && j == 2);"
    assert out[2] == "  }"


def test_forall_under_iff_or_nested_is_only_mentioned() -> None:
    under_iff = quantifier_hints(["r <==> (|s| > 0) && (forall i :: 0 <= i < |s| ==> s[i] > 0)"], {"s": S}, 100)
    assert under_iff and all(line.startswith("  assert (") and "|| !" in line for line in under_iff)
    nested = quantifier_hints(["forall x :: x in s ==> exists i :: 0 <= i < |s| && s[i] == x"], {"s": S}, 100)
    assert nested == []  # the inner body needs `x`, bound only inside the quantifier


def test_existential_gets_ground_mentions_and_limit_applies() -> None:
    out = quantifier_hints(["r <==> exists k :: 2 <= k < n && n % k == 0"], {"n": IntV(6)}, 100)
    assert out == [f"  assert (2 <= {k} < n && n % {k} == 0) || !(2 <= {k} < n && n % {k} == 0);" for k in range(2, 6)]
    assert quantifier_hints(["r <==> exists k :: 2 <= k < n && n % k == 0"], {"n": IntV(600)}, 100) == []


def test_hints_are_printed_from_the_expression_tree() -> None:
    # a bound name that hides an input is the bound one: its range comes from |s|, not from the input n = 7
    out = quantifier_hints(["forall n :: 0 <= n < |s| ==> s[n] > n"], {"s": S, "n": IntV(7)}, 100)
    assert out == ["  forall n | 0 <= n < |s| ensures s[n] > n {", "    assert n == 0 || n == 1 || n == 2;", "  }"]
    # instances are printed with the printer: a negative bound in parentheses, a nested binder of the same name kept
    out = quantifier_hints(["exists k :: -2 <= k < 0 && (forall k :: 0 <= k < 1 ==> k == 0)"], {}, 100)
    assert out[0] == "  assert (-2 <= (-2) < 0 && (forall k :: 0 <= k < 1 ==> k == 0)) || " \
        "!(-2 <= (-2) < 0 && (forall k :: 0 <= k < 1 ==> k == 0));"
    # a clause the parser does not read gets no hints (it is left to the verifier alone)
    assert quantifier_hints(["forall i :: 0 <= i < |s| ==> map[1 := 2][1] == 2"], {"s": S}, 100) == []


def test_recursion_mentions_every_prefix() -> None:
    out = recursion_hints(["r == countTo(a, |s|)"], ["countTo"], {"s": S}, 100)
    assert out == [f"  assert countTo(a, {k}) == countTo(a, {k});" for k in range(3)]


@pytest.fixture(scope="module")
def engine(dafny_command: str, tmp_path_factory: pytest.TempPathFactory) -> Engine:
    cache = ResultCache(tmp_path_factory.mktemp("cache"))
    return Engine(make_backend(detect(dafny_command)), jobs=2, time_limit=10, cache=cache)


def score(engine: Engine, name: str, hints: bool, tweak: str = "") -> MethodScore:
    path = HINTS / f"{name}.dfy"
    text = path.read_text()
    if tweak:
        old, new = tweak.split("=>")
        text = text.replace(old, new)
    f = parse_file(text, str(path))
    read = cases_for_spec(f)
    method = next(d for d in f.methods() if d.name != "Tests")
    options = HarnessOptions() if hints else HarnessOptions(ground_limit=0, max_fuel=0, ground_budget=0)
    job = MethodJob(f, method, read.cases, read.problems, path.name)
    return score_methods([job], engine, Dialect.DAFNY2, ScoreOptions(harness=options))[0]


@pytest.mark.dafny
def test_recursive_count_over_six_elements(engine: Engine) -> None:
    assert score(engine, "count", hints=False).correctness != 1.0  # needs more than the default fuel
    s = score(engine, "count", hints=True)
    assert s.correctness == 1.0 and s.completeness == 1.0
    wrong = score(engine, "count", hints=True, tweak="expect r1 == 4=>expect r1 == 3")
    assert wrong.correctness == 0.0  # a hint never makes a wrong output pass


@pytest.mark.dafny
def test_not_prime_91_and_97(engine: Engine) -> None:
    bare = score(engine, "prime", hints=False)
    assert [c.status.value for c in bare.cases] != ["verified", "verified"]  # 91 needs its witness 7
    s = score(engine, "prime", hints=True)
    assert [c.status.value for c in s.cases] == ["verified", "verified"]
    assert s.completeness == 1.0  # true/false flipped: both mutants killed
    wrong = score(engine, "prime", hints=True, tweak="expect r1 == true=>expect r1 == false")
    assert [c.status.value for c in wrong.cases] == ["refuted", "verified"]


@pytest.mark.dafny
def test_bitvector_forall_by_cases(engine: Engine) -> None:
    s = score(engine, "xor", hints=True)
    assert s.correctness == 1.0 and s.completeness == 1.0
    wrong = score(engine, "xor", hints=True, tweak="expect r == [15, 6, 5, 10]=>expect r == [15, 6, 5, 11]")
    assert wrong.correctness == 0.0
