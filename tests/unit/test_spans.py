"""Where the `ensures` clauses of a method are: the lines review comments, links and SARIF results point at."""

from __future__ import annotations

from pathlib import Path

from bot.dafny.spans import ensures_spans

SOURCE = """module M {
  method Find(a: seq<int>, x: int) returns (i: int)
    requires |a| > 0
    ensures 0 <= i < |a|
    ensures a[i] == x ||
            x !in a;
    ensures i >= 0
  {
    i := 0;
  }
}
"""


def test_spans_give_each_clause_its_first_and_last_line_and_the_lines_between() -> None:
    span = ensures_spans(SOURCE, "f.dfy")["Find"]
    assert [(c.first, c.last) for c in span.clauses] == [(4, 4), (5, 6), (7, 7)]
    assert (span.first, span.last) == (4, 7)
    assert span.lines[0].strip() == "ensures 0 <= i < |a|" and span.lines[-1].strip() == "ensures i >= 0"
    assert ensures_spans(SOURCE, "f.dfy")["M.Find"] == span


def test_the_text_between_two_lines_is_given_only_inside_the_specification() -> None:
    text = "method P(a: int) returns (r: int)\n  ensures r > a\n  decreases a\n{\n}\n"
    span = ensures_spans(text, "p.dfy")["P"]
    assert span.spec_last == 3 and span.text(2, 3) == ("  ensures r > a", "  decreases a")
    assert span.text(2, 4) == () and span.text(1, 2) == ()


def test_a_rejecting_clause_is_found_by_its_text_or_as_a_conjunct_of_one() -> None:
    span = ensures_spans(SOURCE, "f.dfy")["Find"]
    assert span.rejecting("a[i] == x || x !in a") == span.clauses[1]
    assert span.rejecting("0 <= i") == span.clauses[0]
    assert span.rejecting("result == 3") is None and span.rejecting("") is None


def test_the_weak_clause_is_the_first_that_names_an_output() -> None:
    text = "method P(a: int) returns (r: int)\n  ensures a >= 0\n  ensures r > a\n"
    assert ensures_spans(text, "p.dfy")["P"].weak() == ensures_spans(text, "p.dfy")["P"].clauses[1]


def test_an_unparsable_file_has_no_spans() -> None:
    assert ensures_spans("method {", "bad.dfy") == {}


def test_a_top_level_method_gets_its_own_span_when_a_class_method_of_the_same_name_comes_first() -> None:
    # hostile review: the plain name was an alias taken by the first declaration of that name, so the
    # findings (and the suggestion) of the top-level `Add` went on `A.Add`'s lines
    text = ("class A {\n  method Add(x: int) returns (r: int)\n    ensures r > 0\n  { r := 1; }\n}\n"
            "method Add(x: int) returns (r: int)\n  ensures r > x\n{ r := x + 1; }\n")
    spans = ensures_spans(text, "f.dfy")
    assert spans["A.Add"].first == 3
    assert spans["Add"].first == 7


def test_spans_count_lines_as_git_and_github_do(tmp_path: Path) -> None:
    # hostile review: a lone CR (in a comment) was read as a line break, so every line after it was off by
    # one from GitHub's diff: the review comment and its suggestion went on the wrong line
    from bot.runner import ensures_spans_in
    from bot.symbolic.results import method_score
    text = b"// a\rb\nmethod Add(x: int) returns (r: int)\n  ensures r > x\n{ r := x + 1; }\n"
    (tmp_path / "a.dfy").write_bytes(text)
    span = ensures_spans_in(tmp_path, [method_score("a.dfy", "Add", 2, ())])[("a.dfy", "Add")]
    assert span.first == 3 and span.lines == ("  ensures r > x",)
