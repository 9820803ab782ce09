"""The SARIF log: one result per finding at the clause it is about, stable rule ids and fingerprints, a fix only
where a suggestion was verified, the same bytes for the same inputs, and valid against the official schema."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from bot import __version__
from bot.dafny.spans import ensures_spans
from bot.report.sarif import FINGERPRINT, MAX_MESSAGE, RULES, SRCROOT, TOOL_NAME, render_sarif
from bot.report.sentences import accepts_sentence, smallest_wrong
from bot.symbolic.results import (
    Axiom,
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
    Suggestion,
    Undecided,
    method_score,
)
from support.paths import ROOT
from support.sarif import assert_valid_sarif

FILE = "specs/find.dfy"
SOURCE = """method Find(a: seq<int>, x: int) returns (i: int)
  requires |a| > 0
  ensures 0 <= i < |a|
  ensures a[i] == x ||
          x !in a
{
  i := 0;
}

method Abs(x: int) returns (r: int)
    ensures r >= 0
{
  r := if x < 0 then -x else x;
}

method Tests()
{
  var i := Find([1, 2], 2);
  expect i == 1;
}
"""
SUGGESTION = Suggestion("r == x || r == -x", "equals-input", 11, 2, 3, 2, 0, 0, 2, "verifies")
AXIOM = Axiom("Norm", 3, "specs/lib.dfy", "body-less function with `ensures`")


def case(name: str, status: CaseStatus, line: int = 18, **kw: Any) -> CaseResult:
    return CaseResult(name, line, "a = [1, 2], x = 2", "i = 1", "expect i == 1;", FILE, status, **kw)


def scores(shift: int = 0) -> list[MethodScore]:
    """Find: refuted, precondition-violated, undecided and inconsistent cases; Abs: weak, not pinned, with a
    suggestion. `shift` moves every line, as an edit above them would."""
    survived = MutantResult("-1", "r: negated", MutantStatus.SURVIVED)
    find = method_score(FILE, "Find", 1 + shift, (
        case("T#1", CaseStatus.REFUTED, 18 + shift, clause="ensures a[i] == x || x !in a"),
        case("T#2", CaseStatus.PRECONDITION_VIOLATED, 19 + shift, clause="requires |a| > 0"),
        case("T#3", CaseStatus.UNKNOWN, 20 + shift, reason=Undecided.TIMEOUT, message="timed out after 20 s",
             mutants=(MutantResult("[0]", "i: +1", MutantStatus.UNKNOWN, reason=Undecided.TIMEOUT),)),
        case("T#4", CaseStatus.INCONSISTENT, 21 + shift),
    ), axioms=(replace(AXIOM, line=AXIOM.line + shift),))
    abs_ = method_score(FILE, "Abs", 10 + shift, (
        case("A#1", CaseStatus.VERIFIED, 22 + shift, mutants=(survived,), determinacy=Determinacy.NOT_PINNED,
             witness="-1", witness_source="mutant"),
        case("A#2", CaseStatus.VERIFIED, 23 + shift, determinacy=Determinacy.NOT_PINNED, witness="17",
             witness_source="solver"),
    ), axioms=(replace(AXIOM, line=AXIOM.line + shift),))
    abs_ = replace(abs_, suggestions=(replace(SUGGESTION, line=SUGGESTION.line + shift),),
                   everywhere=Everywhere(EverywhereStatus.NOT_DETERMINED, "x = -1", ("1", "2")))
    return [find, abs_]


WEAKER = SpecChange(FILE, "Abs", Relation.WEAKER, "x = -1", "r = 2", "head")


def log(given: list[MethodScore] | None = None, shift: int = 0, spans: bool = True, **kw: Any) -> dict[str, Any]:
    source = "\n" * shift + SOURCE
    found = {(FILE, m): s for m, s in ensures_spans(source, FILE).items()} if spans else {}
    kw.setdefault("changes", (WEAKER,))
    doc: dict[str, Any] = json.loads(render_sarif(given or scores(shift), found, "2.3.0.10506", **kw))
    return doc


def results(doc: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [r for r in doc["runs"][0]["results"] if r["ruleId"] == rule]


def region(result: dict[str, Any]) -> tuple[int, int]:
    """The lines of a result's location (or of a related location)."""
    where = result["locations"][0] if "locations" in result else result
    r = where["physicalLocation"]["region"]
    return r["startLine"], r["endLine"]


def test_the_log_is_valid_against_the_official_schema() -> None:
    doc = log()
    assert_valid_sarif(doc)
    assert doc["version"] == "2.1.0"
    driver = doc["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == (TOOL_NAME, __version__)
    assert doc["runs"][0]["tool"]["extensions"] == [{"name": "Dafny", "version": "2.3.0.10506"}]


def test_every_rule_has_a_stable_id_and_its_results_point_at_it() -> None:
    doc = log()
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [
        "spec/rejects-expected-output", "spec/rejects-test-inputs", "spec/accepts-wrong-output", "spec/not-pinned",
        "spec/unknown", "spec/no-verdict", "spec/trusted-axiom", "spec/not-determined", "spec/weaker-than-base"]
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} == {r.id for r in RULES}
    for r in doc["runs"][0]["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]


def test_every_input_findings_say_the_witness() -> None:
    (nd,) = results(log(), "spec/not-determined")
    assert nd["level"] == "note" and "for x = -1 the spec accepts both 1 and 2" in nd["message"]["text"]
    (weaker,) = results(log(), "spec/weaker-than-base")
    assert weaker["level"] == "warning" and region(weaker) == (10, 10)  # the method's line at head
    assert weaker["message"]["text"] == "Abs got weaker beyond the tests: for x = -1 it now accepts r = 2, which " \
                                        "base rejected."
    assert results(log(changes=(replace(WEAKER, relation=Relation.STRONGER, accepted_by="base"),)),
                   "spec/weaker-than-base") == []


def test_every_rule_has_help_a_person_can_follow() -> None:
    doc = log()
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://github.com/dafny-spec-score/dafny-spec-score"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    anchors = {"-".join("".join(ch for ch in line.lstrip("#").strip().lower() if ch.isalnum() or ch in " -").split())
               for line in readme.splitlines() if line.startswith("## ") or line.startswith("### ")}
    for rule in driver["rules"]:
        assert rule["helpUri"].startswith(driver["informationUri"] + "#")
        assert rule["helpUri"].split("#", 1)[1] in anchors, rule["helpUri"]  # a README section that exists
        markdown = rule["help"]["markdown"]
        assert rule["fullDescription"]["text"] in markdown and "**What to do:**" in markdown
        assert rule["helpUri"] in markdown


def test_the_smallest_wrong_output_is_the_one_the_comment_names() -> None:
    s = next(m for m in scores() if m.method == "Abs")
    (r,) = results(log(), "spec/accepts-wrong-output")
    named = smallest_wrong(s)
    assert named is not None and f"it accepts {named.value} where" in r["message"]["text"]
    assert f"in test case {named.case} " in r["message"]["text"]
    sentence = accepts_sentence(s)
    assert f"<code>{named.value}</code>" in sentence and f"<code>{named.case}</code>" in sentence


def test_a_refuted_case_is_an_error_at_the_clause_that_rejects_it() -> None:
    (r,) = results(log(), "spec/rejects-expected-output")
    assert r["level"] == "error" and region(r) == (4, 5)  # the clause spans two lines
    text = r["message"]["text"]
    assert "T#1" in text and "a = [1, 2], x = 2" in text and "i = 1" in text and "a[i] == x || x !in a" in text
    assert "`ensures a[i] == x || x !in a`" in text and "ensures ensures" not in text  # named as the comment does
    location = r["locations"][0]
    assert location["physicalLocation"]["artifactLocation"] == {"uri": FILE, "uriBaseId": SRCROOT}
    assert location["logicalLocations"] == [{"name": "Find", "kind": "function"}]
    assert region(r["relatedLocations"][0]) == (18, 18)  # the test case


def test_the_weak_spec_is_one_warning_with_its_smallest_wrong_output_and_the_verified_fix() -> None:
    (r,) = results(log(), "spec/accepts-wrong-output")
    assert r["level"] == "warning" and region(r) == (11, 11)
    assert "2 wrong output(s)" in r["message"]["text"] and "accepts -1" in r["message"]["text"]
    (fix,) = r["fixes"]
    assert "proved: it accepts every test case (2)" in fix["description"]["text"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": FILE, "uriBaseId": SRCROOT}
    (replacement,) = change["replacements"]
    # inserted as a line of its own after the last clause, indented like the method's ensures
    assert replacement["deletedRegion"] == {"startLine": 12, "startColumn": 1, "endLine": 12, "endColumn": 1}
    assert replacement["insertedContent"] == {"text": "    ensures r == x || r == -x\n"}


def test_no_fix_without_a_verified_suggestion() -> None:
    plain = [replace(s, suggestions=()) for s in scores()]
    doc = log(plain)
    assert results(doc, "spec/accepts-wrong-output")
    assert not any("fixes" in r for r in doc["runs"][0]["results"])


def test_a_not_pinned_case_is_a_note_unless_the_weak_result_already_names_its_output() -> None:
    (r,) = results(log(), "spec/not-pinned")  # A#1's witness -1 is the weak result's example
    assert r["level"] == "note" and "A#2" in r["message"]["text"] and "accepts 17" in r["message"]["text"]
    assert "solver" in r["message"]["text"]


def test_undecided_cases_and_mutants_are_notes_with_the_reason() -> None:
    found = results(log(), "spec/unknown")
    assert [r["level"] for r in found] == ["note", "note"]
    assert "T#3" in found[0]["message"]["text"] and "timeout" in found[0]["message"]["text"]
    assert "1 mutant(s) of test case T#3 undecided (timeout)" in found[1]["message"]["text"]


def test_the_precondition_and_an_inconsistent_case_are_errors() -> None:
    doc = log()
    (pre,) = results(doc, "spec/rejects-test-inputs")
    assert pre["level"] == "error" and "`requires |a| > 0`" in pre["message"]["text"] and region(pre) == (1, 1)
    (inconsistent,) = results(doc, "spec/no-verdict")
    assert inconsistent["level"] == "error" and "T#4" in inconsistent["message"]["text"]


def test_a_trusted_axiom_is_one_warning_at_its_own_line_naming_every_method() -> None:
    (r,) = results(log(), "spec/trusted-axiom")
    assert r["level"] == "warning" and region(r) == (3, 3)
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/lib.dfy"
    assert "Abs, Find" in r["message"]["text"] and "allow-axioms" in r["message"]["text"]


def test_the_same_inputs_give_the_same_bytes_in_any_order() -> None:
    spans = {(FILE, m): s for m, s in ensures_spans(SOURCE, FILE).items()}
    first = render_sarif(scores(), spans, "4.9.0")
    assert render_sarif(list(reversed(scores())), spans, "4.9.0") == first
    assert first.endswith("\n") and json.loads(first)


def test_fingerprints_do_not_move_with_the_lines() -> None:
    def prints(doc: dict[str, Any]) -> list[tuple[str, str]]:
        return [(r["ruleId"], r["partialFingerprints"][FINGERPRINT]) for r in doc["runs"][0]["results"]]

    before, after = log(), log(shift=7)
    assert prints(before) == prints(after)
    assert len(set(prints(before))) == len(prints(before))  # each finding its own
    assert region(results(after, "spec/rejects-expected-output")[0]) == (11, 12)


def test_without_spans_results_point_at_the_method() -> None:
    doc = log(spans=False)
    assert region(results(doc, "spec/rejects-expected-output")[0]) == (1, 1)
    (weak,) = results(doc, "spec/accepts-wrong-output")
    assert region(weak) == (10, 10)
    assert weak["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"].startswith("  ens")
    assert_valid_sarif(doc)


def test_user_text_is_clipped_and_paths_are_uris() -> None:
    long = replace(scores()[0], file="/abs/my specs/f.dfy",
                   cases=(case("T#1", CaseStatus.REFUTED, clause="ensures x == " + "1 + " * 5000 + "1"),))
    doc = log([long], spans=False)
    (r,) = results(doc, "spec/rejects-expected-output")
    assert len(r["message"]["text"]) <= MAX_MESSAGE
    assert r["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///abs/my%20specs/f.dfy"}
    spaced = log([replace(scores()[0], file="my specs/f.dfy")], spans=False)
    (r,) = results(spaced, "spec/rejects-expected-output")
    assert r["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "my%20specs/f.dfy",
                                                                         "uriBaseId": SRCROOT}
    assert_valid_sarif(doc)
    assert_valid_sarif(spaced)


def test_settings_go_in_the_runs_properties() -> None:
    assert log(settings={"seed": 0})["runs"][0]["properties"] == {"settings": {"seed": 0}}
    assert "properties" not in log()["runs"][0]


def test_the_fix_goes_after_a_last_clause_over_several_lines_and_never_into_the_body() -> None:
    from bot.dafny.parser import parse_file

    for source, fixed in [
        ("method M(x: int) returns (r: int)\n  ensures r > x &&\n    r < x + 9\n{\n}\n", True),
        ("method M(x: int) returns (r: int)\n  ensures r > x {\n}\n", False),
    ]:
        parsed = parse_file(source, "m.dfy")
        (m,) = parsed.methods()
        line = max(parsed.end_line(c) for c in m.clauses)  # as bot.symbolic.suggest.search gives it
        case = CaseResult("T#1", 9, "x = 1", "r = 2", "", "m.dfy", CaseStatus.VERIFIED, "",
                          (MutantResult("5", "r: 2 -> 5", MutantStatus.SURVIVED),))
        score = replace(method_score("m.dfy", "M", 1, (case,)),
                        suggestions=(Suggestion("r == x + 1", "t", line, 1, 1, 1, 0, 0, 1),))
        log = json.loads(render_sarif([score], {("m.dfy", "M"): ensures_spans(source, "m.dfy")["M"]}, "2.3"))
        (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "spec/accepts-wrong-output"]
        assert ("fixes" in result) is fixed
        if fixed:
            (change,) = result["fixes"][0]["artifactChanges"]
            assert change["replacements"][0]["deletedRegion"]["startLine"] == 4  # after `r < x + 9`
