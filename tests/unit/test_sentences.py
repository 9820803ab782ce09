"""The comment's opening sentences (what changed and why it matters), its links and its table cells."""

from __future__ import annotations

import dataclasses
import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.dafny.spans import ensures_spans
from bot.report.links import Links
from bot.report.markdown import WORD, code, esc, link
from bot.report.methods_table import methods_table
from bot.report.sentences import (
    accepts_sentence,
    determinacy_sentence,
    method_sentence,
    rejects_sentence,
    smallest_wrong,
    spec_change_sentence,
)
from bot.symbolic.compare import compare
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Determinacy,
    Everywhere,
    EverywhereStatus,
    MethodScore,
    MutantResult,
    MutantStatus,
    Relation,
    SpecChange,
    method_score,
)

K, S = MutantStatus.KILLED, MutantStatus.SURVIVED
SOURCE = """method SharedElements(a: seq<int>, b: seq<int>) returns (result: seq<int>)
  requires |a| > 0
  ensures forall x :: x in result ==>
            x in a && x in b
  ensures |result| <= |a|
"""
SPAN = ensures_spans(SOURCE, "specs/shared.dfy")["SharedElements"]
LINKS = Links("https://github.com", "owner/repo", "abc123")


def case(name: str, *mutants: tuple[str, MutantStatus], status: CaseStatus = CaseStatus.VERIFIED,
         clause: str = "", witness: str = "", inputs: str = "a = [3, 4, 5], b = [4, 5]",
         expected: str = "result = [4, 5]") -> CaseResult:
    return CaseResult(name, 7, inputs, expected, "", "t.dfy", status, "",
                      tuple(MutantResult(v, "mutant", s) for v, s in mutants), clause=clause,
                      determinacy=Determinacy.NOT_PINNED if witness else None, witness=witness,
                      witness_source="solver" if witness else "")


def score(*cases: CaseResult, file: str = "specs/shared.dfy") -> MethodScore:
    return method_score(file, "SharedElements", 1, cases)


def test_the_smallest_wrong_output_is_the_shortest_witnesses_first_on_a_tie() -> None:
    s = score(case("T#1", ("[4, 5, 5]", S), ("[5]", S), witness="[9]"), case("T#2", ("[]", K), ("[1]", S)))
    assert smallest_wrong(s) == s.witnesses[0]  # "[9]", "[5]" and "[1]" tie at three characters
    assert smallest_wrong(score(case("T#1", ("[]", K)))) is None


def test_accepts_sentence_names_the_value_the_expected_output_the_case_and_its_inputs() -> None:
    s = score(case("test 1", ("[4]", S), ("[]", S)))
    assert accepts_sentence(s) == ("it accepts <code>[]</code> where the test expects <code>[4, 5]</code> "
                                   "(case <code>test 1</code>, <code>a = [3, 4, 5], b = [4, 5]</code>)")
    assert accepts_sentence(score(case("T#1", ("[]", K)))) == ""
    # several outputs: the expected assignment stays whole
    many = score(case("T#1", ("q = 1, r = 2", S), expected="q = 1, r = 3"))
    assert "where the test expects <code>q = 1, r = 3</code>" in accepts_sentence(many)


def test_user_text_in_a_sentence_is_escaped_and_shortened() -> None:
    value = "\"@octocat `x` | </details> " + "y" * 200 + "\""
    s = score(case("@everyone </details>", (value, S), inputs="s = \"" + "z" * 300 + "\""))
    text = accepts_sentence(s)
    assert "@" not in text.replace("&#64;", "") and "`" not in text and "</details>" not in text
    assert "|" not in text.replace("&#124;", "")
    assert len(text) < 400 and text.count("…") == 2  # the value and the inputs, each with an ellipsis


def test_rejects_sentence_quotes_the_clause_as_written_when_its_span_is_known() -> None:
    refuted = case("T#2", status=CaseStatus.REFUTED, clause="ensures forall x :: x in result ==> x in a && x in b")
    s = score(case("T#1", ("[]", K)), refuted)
    expected = ("it rejects <code>[4, 5]</code>, the expected output of case <code>T#2</code> "
                "(<code>a = [3, 4, 5], b = [4, 5]</code>): <code>ensures forall x :: x in result ==&gt; x in a "
                "&amp;&amp; x in b</code> is proved false for it")
    assert rejects_sentence(s, SPAN) == expected
    assert rejects_sentence(s) == expected  # the engine's text of the same clause
    assert rejects_sentence(score(case("T#1", ("[]", S)))) == ""
    both = score(dataclasses.replace(refuted, clause=""), dataclasses.replace(refuted, name="T#3"),
                 dataclasses.replace(refuted, name="T#4"))
    assert rejects_sentence(both).endswith(
        "its <code>ensures</code> clauses together are proved false for it (and for 2 other cases)")


def delta(head: list[MethodScore], base: list[MethodScore]) -> str:
    (d,) = compare(head, base)
    return method_sentence(d, SPAN if d.head is not None else None, LINKS)


NAME = "[<code>SharedElements</code>](https://github.com/owner/repo/blob/abc123/specs/shared.dfy#L1)"


def test_method_sentences_say_what_changed_and_why_it_matters() -> None:
    strong = score(case("T#1", ("[]", K), ("[4]", K)))
    weak = score(case("T#1", ("[]", S), ("[4]", K)))
    refuted = score(case("T#1", ("[]", K)), case("T#2", status=CaseStatus.REFUTED, clause="ensures |result| <= |a|"))
    unscored = score(case("T#1", status=CaseStatus.UNKNOWN))
    assert delta([weak], [strong]) == (
        f"{NAME} got weaker (completeness 1.00 → 0.50): it accepts <code>[]</code> where the test expects "
        "<code>[4, 5]</code> (case <code>T#1</code>, <code>a = [3, 4, 5], b = [4, 5]</code>).")
    assert delta([strong], [weak]) == f"{NAME} got stronger (completeness 0.50 → 1.00): it rejects every wrong " \
                                      "output tried."
    assert delta([refuted], [strong]).startswith(f"{NAME} now rejects a test (correctness 1.00 → 0.50): it rejects "
                                                 "<code>[4, 5]</code>, the expected output of case <code>T#2</code>")
    assert delta([strong], [refuted]) == f"{NAME} accepts all its tests again (correctness 0.50 → 1.00)."
    assert delta([weak], []).startswith(f"{NAME} is new (correctness 1.00, completeness 0.50): it accepts <code>[]")
    assert delta([unscored], [strong]) == (f"{NAME} can no longer be scored (at base: correctness 1.00, "
                                           "completeness 1.00): no case decided: 1 unknown.")
    assert delta([unscored], []) == f"{NAME} is new and could not be scored: no case decided: 1 unknown."
    # a removed method has no line at head to link to
    assert delta([], [strong]) == ("<code>SharedElements</code> is no longer scored: the method or its tests were "
                                   "removed (at base: correctness 1.00, completeness 1.00).")
    (same,) = compare([weak], [weak])
    assert method_sentence(same).startswith("<code>SharedElements</code> is unchanged (correctness 1.00, "
                                            "completeness 0.50) and still weak: it accepts <code>[]</code>")
    # the same completeness, but a case no longer pinned
    pinned = score(dataclasses.replace(case("T#1", ("[]", K)), determinacy=Determinacy.PINNED))
    loose = score(case("T#1", ("[]", K), witness="[5]"))
    assert delta([loose], [pinned]).startswith(f"{NAME} got weaker (1 case no longer pinned, completeness 1.00): "
                                               "it accepts <code>[5]</code>")


def test_links_point_at_the_head_commit_with_the_path_percent_encoded() -> None:
    assert LINKS.blob("specs/a b.dfy", 3) == "https://github.com/owner/repo/blob/abc123/specs/a%20b.dfy#L3"
    assert LINKS.blob("specs/x.dfy", 3, 5).endswith("/specs/x.dfy#L3-L5")
    evil = LINKS.blob("specs/x)](javascript:alert(1)\n@octocat <b>.dfy", 1)
    assert not re.search(r"[()\s<>@\[\]]", evil.removeprefix("https://")), evil
    assert Links("javascript:alert(1)//", "o/r", "a").blob("f.dfy", 1) == ""
    assert Links("https://github.com", "o/r", "").blob("f.dfy", 1) == ""
    assert link(code("a]b[c"), "https://x.example/") == "[<code>a&#93;b&#91;c</code>](https://x.example/)"
    assert link("text", "") == "text"


def test_cells_wrap_long_words_and_code_keeps_markdown_out() -> None:
    long = "ComputeTheSumOfAllEvenNumbersInTheSequence_after_removing/duplicates" + "9" * 40
    for rendered in (code(long, wrap=True), esc(long, wrap=True)):
        words = re.sub(r"</?code>", "", rendered).replace("\\", "").split("<wbr>")
        assert len(words) > 3 and all(len(w) <= WORD for w in words), words
        assert "".join(words) == long
    assert code(long) == f"<code>{long}</code>"  # outside tables, as it was
    assert code("r == n*n*n ~ \\x") == "<code>r == n&#42;n&#42;n &#126; &#92;x</code>"  # no emphasis inside


def test_score_cells_carry_the_change_against_base() -> None:
    strong = score(case("T#1", ("[]", K), ("[4]", K)))
    weak = score(case("T#1", ("[]", S), ("[4]", K)))
    rows = methods_table(compare([weak], [strong]), LINKS, {("specs/shared.dfy", "SharedElements"): SPAN})
    assert rows[2] == (f"| {NAME} | 1.00 | 0.50 ▼0.50 | n/a | [<code>ensures forall x :: x in result ==&gt; x in a "
                       "&amp;&amp; x in b</code>](https://github.com/owner/repo/blob/abc123/specs/shared.dfy#L3-L4) |")
    up = methods_table(compare([strong], [weak]))[2]
    assert up == "| <code>SharedElements</code> | 1.00 | 1.00 ▲0.50 | n/a | – |"


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200))
def test_a_wrapped_cell_is_the_same_text_and_nothing_of_it_is_markup(text: str) -> None:
    rendered = code(text, wrap=True)
    inner = rendered.removeprefix("<code>").removesuffix("</code>")
    pieces = inner.split("<wbr>")
    assert not re.search(r"[<>|`@*]", "".join(pieces)), rendered
    assert html.unescape("".join(pieces)) == " ".join(text.split())
    assert all(max(map(len, html.unescape(w).split(" "))) <= WORD for w in pieces)


def test_two_outputs_of_a_witness_never_look_alike() -> None:
    """Shortened as any value, "a b" and "a  b" (or two long values with one beginning) read the same: then each
    is shown exactly, every space kept."""
    spaced = Everywhere(EverywhereStatus.NOT_DETERMINED, "s = [1]", ('"a b"', '"a  b"'))
    text = determinacy_sentence("Sp", spaced)
    assert "<code>\"a&nbsp;b\"</code> and <code>\"a&nbsp;&nbsp;b\"</code>" in text, text
    long = Everywhere(EverywhereStatus.NOT_DETERMINED, "x = 1", ("[" + "1, " * 30 + "2]", "[" + "1, " * 30 + "3]"))
    text = determinacy_sentence("L", long)
    assert "2]</code>" in text and "3]</code>" in text
    plain = Everywhere(EverywhereStatus.NOT_DETERMINED, "x = -1", ("12", "14"))
    assert determinacy_sentence("Abs", plain).endswith("the spec accepts both <code>12</code> and <code>14</code>.")


def test_a_file_named_after_a_method_keeps_its_end_and_shows_hidden_characters() -> None:
    a = SpecChange("specs/" + "very/long/" * 10 + "team-a/abs.dfy", "Abs", Relation.EQUIVALENT)
    b = dataclasses.replace(a, file=a.file.replace("team-a", "team-b"))
    assert spec_change_sentence(a, True) != spec_change_sentence(b, True)
    assert "team-a/abs.dfy</code>" in spec_change_sentence(a, True)
    # a right-to-left override cannot make one name look like another; a newline cannot break the line
    rtl = spec_change_sentence(dataclasses.replace(a, file="specs/\u202eyfd.sba", method="A\u202eB"), True)
    assert "\u202e" not in rtl and "&lt;U+202E&gt;" in rtl, rtl
    assert "\n" not in spec_change_sentence(dataclasses.replace(a, file="specs/a\nb.dfy"), True)
