"""The suggestion templates (pure): which candidate clauses a spec and its tests give, before any proof."""

from __future__ import annotations

from bot.dafny.parser import parse_file
from bot.symbolic.suggest.templates import TEMPLATES, Candidate, candidates
from bot.testcases.discover import cases_for_spec
from support.paths import DATA, ROOT


def found(source: str, method: str, extra: tuple[Candidate, ...] = ()) -> list[tuple[str, str]]:
    f = parse_file(source, "spec.dfy")
    cases = [c for c in cases_for_spec(f).cases if c.method == method]
    decl = f.find(method)
    assert decl is not None
    return [(c.template, c.clause) for c in candidates(f, decl, cases, extra)]


def test_the_running_example_gives_its_converse() -> None:
    source = (ROOT / "examples" / "shared_elements.dfy").read_text()
    assert found(source, "SharedElements") == [
        ("converse", "forall x :: InArray(a, x) && InArray(b, x) ==> x in result")]  # the range guard's has none


def test_a_converse_keeps_its_range_guards() -> None:
    source = """method Evens(a: seq<int>) returns (r: seq<int>)
  ensures forall i :: 0 <= i < |a| && a[i] % 2 == 0 ==> a[i] in r
method T() { var r := Evens([1, 2]); expect r == [2]; }
"""
    assert ("converse", "forall i :: 0 <= i < |a| && a[i] in r ==> a[i] % 2 == 0") in found(source, "Evens")


def test_a_candidate_false_on_a_test_is_never_offered() -> None:
    source = """method Twice(x: int) returns (r: int)
  ensures r >= x
method T() { var r := Twice(3); expect r == 6; }
"""
    assert found(source, "Twice") == []  # `r == x` is false on 3 -> 6


def test_a_clause_the_spec_has_is_not_offered_again() -> None:
    source = """method Id(x: int) returns (r: int)
  ensures r == x
  ensures r <= x
method T() { var r := Id(3); expect r == 3; }
"""
    assert found(source, "Id") == []  # `r == x` from the bound and from the input: the spec says it already


def test_every_template_has_an_example_in_the_data() -> None:
    text = (DATA / "suggest" / "weak.dfy").read_text() + (ROOT / "examples" / "shared_elements.dfy").read_text()
    for name, _ in TEMPLATES:
        assert f"// {name}:" in text or name == "converse", f"no weak spec in tests/data/suggest for {name}"


def test_a_suggesters_candidates_are_filtered_the_same_way() -> None:
    source = """method Sum(a: int, b: int) returns (r: int)
  ensures r <= a + b
method T() { var r := Sum(2, 3); expect r == 5; }
"""
    extra = (Candidate("r == a + b + 1", "suggester"), Candidate("r == b + a", "suggester"),
             Candidate("not ( an expression", "suggester"))
    got = found(source, "Sum", extra)
    assert ("suggester", "r == b + a") in got and all(clause != "r == a + b + 1" for _, clause in got)
