"""The pull-request comment: head-versus-base deltas, escaping, trimming (golden files)."""

from __future__ import annotations

import difflib
import os
import tomllib

import pytest

from bot.dafny.spans import ensures_spans
from bot.github.pr.affected import affected_specs, spec_for_test
from bot.paths import matches
from bot.report.comment import MAX_COMMENT, NOTHING, TRIMMED, CommentInput, render_comment
from bot.report.links import Links
from bot.report.methods_table import DOCS
from bot.report.methods_table import LEGEND as TABLE_LEGEND
from bot.symbolic.compare import Change, compare
from bot.symbolic.results import (
    CaseResult,
    CaseStatus,
    Gate,
    MethodScore,
    MutantResult,
    MutantStatus,
    Relation,
    SpecChange,
    Undecided,
    method_score,
)
from bot.testcases.discover import candidate_sources
from support.paths import GOLDEN, ROOT

MARKER = "<!-- dafny-spec-score:default -->"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "golden", "actual"))
        pytest.fail(f"{name} differs from its golden file (UPDATE_GOLDEN=1 regenerates it):\n{diff}")


def case(name: str, status: CaseStatus, *mutants: tuple[str, MutantStatus], inputs: str = "a = [3, 4]") -> CaseResult:
    refuted = status is CaseStatus.REFUTED
    return CaseResult(name, 10, inputs, "result = [4]", "", "f.dfy", status,
                      "postcondition violation (`ensures r == x`)" if refuted else "verification timed out",
                      tuple(MutantResult(v, f"result: {v}", s) for v, s in mutants),
                      Undecided.TIMEOUT if status is CaseStatus.UNKNOWN else None,
                      "ensures r == x" if refuted else "")


def score(file: str, method: str, *cases: CaseResult) -> MethodScore:
    return method_score(file, method, 3, tuple(cases))


K, S = MutantStatus.KILLED, MutantStatus.SURVIVED


def scenario() -> CommentInput:
    base = [
        score("specs/shared.dfy", "SharedElements", case("T#1", CaseStatus.VERIFIED, ("[]", K), ("[4, 5]", K))),
        score("specs/cube.dfy", "Cube", case("T#1", CaseStatus.VERIFIED, ("28", K))),
        score("specs/old.dfy", "Gone", case("T#1", CaseStatus.VERIFIED, ("1", K))),
        score("specs/same.dfy", "Same", case("T#1", CaseStatus.VERIFIED, ("1", K))),
    ]
    head = [
        score("specs/shared.dfy", "SharedElements", case("T#1", CaseStatus.VERIFIED, ("[]", S), ("[4, 5]", K))),
        score("specs/cube.dfy", "Cube", case("T#1", CaseStatus.VERIFIED, ("28", K)),
              case("T#2 @octocat <b>|</b>", CaseStatus.REFUTED, inputs="x = \"`|</details>@evil\"")),
        score("specs/new.dfy", "Fresh", case("T#1", CaseStatus.UNKNOWN)),
        score("specs/same.dfy", "Same", case("T#1", CaseStatus.VERIFIED, ("1", K))),
    ]
    deltas = compare(head, base)
    # Cube's clauses are known (its rejecting clause links to its line); the others link to the method's line
    spans = {("specs/cube.dfy", "Cube"): ensures_spans(CUBE, "specs/cube.dfy")["Cube"]}
    return CommentInput(tuple(deltas), Gate(1.0, 0.8), ("specs/cube.dfy: Cube: correctness 0.50 < 1.00",),
                        "2.3.0.10506", MARKER, "https://github.example/run/1",
                        links=Links("https://github.example", "owner/specs", "c0ffee" * 6 + "c0ff"), spans=spans)


CUBE = "// cubes\nmethod Cube(x: int) returns (r: int)\n  requires x >= 0\n  ensures r ==\n          x\n{ r := x; }\n"


def test_compare_classifies_methods() -> None:
    deltas = {d.method: d for d in scenario().deltas}
    assert deltas["SharedElements"].change is Change.CHANGED
    assert deltas["SharedElements"].completeness_delta == pytest.approx(-0.5)
    assert [s.value for s in deltas["SharedElements"].new_survivors] == ["[]"]
    assert deltas["Cube"].correctness_lost and deltas["Cube"].regression
    assert deltas["Fresh"].change is Change.NEW and not deltas["Fresh"].regression
    assert deltas["Gone"].change is Change.REMOVED
    assert deltas["Same"].change is Change.UNCHANGED and not deltas["Same"].regression


def test_comment_golden() -> None:
    text = render_comment(scenario())
    check_golden("comment.md", text)
    assert text.startswith(MARKER)
    assert "@octocat" not in text and "@evil" not in text  # no pings
    assert "</details>@" not in text and "<b>" not in text
    assert text.count("<details>") == text.count("</details>")


def test_truncated_comment_golden() -> None:
    many = tuple(case(f"T#{i}", CaseStatus.VERIFIED, *((f"[{i}, {j}, {'9' * 40}]", S) for j in range(5)))
                 for i in range(400))
    head = [score("specs/big.dfy", "Big", *many)]
    inp = CommentInput(tuple(compare(head, [])), Gate(1.0, 0.0), (), "2.3.0.10506", MARKER)
    full = render_comment(inp, limit=None)
    trimmed = render_comment(inp)
    assert len(full) > MAX_COMMENT >= len(trimmed)
    assert TRIMMED in trimmed and TRIMMED not in full
    check_golden("comment_truncated.md", trimmed)


def test_nothing_to_score() -> None:
    assert NOTHING in render_comment(CommentInput((), Gate(), (), "2.3", MARKER))


def test_affected_specs() -> None:
    head = {"specs/a.dfy", "specs/b.dfy", "specs/b.tests.toml", "ds/src/task_id_1.dfy", "ds/test/task_id_1.dfy"}
    base = head | {"specs/removed.dfy"}
    changed = ["specs/a.dfy", "specs/b.tests.toml", "ds/test/task_id_1.dfy", "specs/removed.dfy", "README.md"]
    got = affected_specs(changed, ["**/*.dfy"], [], head.__contains__, base.__contains__)
    assert got == ["ds/src/task_id_1.dfy", "ds/test/task_id_1.dfy", "specs/a.dfy", "specs/b.dfy", "specs/removed.dfy"]
    assert affected_specs(changed, ["specs/*.dfy"], [], head.__contains__, base.__contains__) == [
        "specs/a.dfy", "specs/b.dfy", "specs/removed.dfy"]
    assert matches("a/b/c.dfy", ["**/*.dfy"]) and matches("c.dfy", ["**/*.dfy"]) and not matches("c.toml", ["*.dfy"])
    assert spec_for_test("x/test/t.dfy", {"x/src/t.dfy"}.__contains__) == ["x/src/t.dfy"]
    # the inverse of discovery: every test file discovery reads for a spec maps back to that spec
    specs = {"s/max.dfy", "ds/src/task_id_3.dfy"}
    for spec in sorted(specs):
        for source in candidate_sources(spec)[2:]:
            if source.path.startswith(".."):
                continue
            where = os.path.normpath(source.path)
            up = os.path.normpath(os.path.join(os.path.dirname(spec), ".."))
            # a test folder one level up maps back only to `src/` specs (the MBPP-DFY layout): any other sibling
            # folder would need a listing, and the `tests` globs cover that layout
            one_up = os.path.dirname(where) in {os.path.normpath(os.path.join(up, t)) for t in ("test", "tests")}
            if not one_up or os.path.basename(os.path.dirname(spec)) == "src":
                assert spec in spec_for_test(where, specs.__contains__), (spec, where)
    assert spec_for_test("s/tests/max_test.dfy", {"s/max.dfy", "s/tests/max.dfy"}.__contains__) == [
        "s/max.dfy", "s/tests/max.dfy"]
    assert spec_for_test("s/max.dfy", specs.__contains__) == []


def test_the_readme_quotes_the_comment_the_end_to_end_test_posts() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    golden = (GOLDEN / "comment_e2e.md").read_text(encoding="utf-8")
    quoted = "\n".join(f"> {line}" if line else ">" for line in golden.rstrip("\n").split("\n"))
    after = "\n\n### Review comments on the changed lines"
    assert "\n" + quoted + after in readme, "README.md: quote tests/golden/comment_e2e.md"


def test_the_legend_links_to_the_readme_section_that_defines_its_terms() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    assert project + "#statuses" == DOCS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### Statuses\n", 1)[1].split("\n### ", 1)[0]
    assert "- `pinned`: proved" in section and "`unknown` (neither proved" in section
    assert f"[Statuses]({DOCS})" in TABLE_LEGEND and "Pinned:" in TABLE_LEGEND and "Unknown:" in TABLE_LEGEND
    assert f"[Statuses]({DOCS})" in render_comment(scenario())


def test_one_file_has_no_file_under_the_method_and_every_table_of_methods_has_five_columns() -> None:
    inp = scenario()
    one = CommentInput(tuple(d for d in inp.deltas if d.file == "specs/shared.dfy"), inp.gate, (), "2.3", MARKER)
    text = render_comment(one)
    assert "<sub>specs/shared.dfy</sub>" not in text and "| 0.50 ▼0.50 |" in text
    several = render_comment(inp)
    assert "<br><sub>specs/cube.dfy</sub>" in several
    for body in (text, several):
        headers = [line for line in body.splitlines() if line.startswith("| Method |")]
        assert headers and all(line.count(" | ") <= 4 for line in headers), headers
    # the folded table of unchanged methods follows the same rules: one file, no file line
    assert "| [<code>Same</code>](https://github.example/owner/specs/blob/" in several


def test_a_method_named_as_another_files_is_said_with_its_file_under_beyond_the_tests() -> None:
    head = [score("specs/a.dfy", "Abs", case("T#1", CaseStatus.VERIFIED, ("1", K))),
            score("specs/b.dfy", "Abs", case("T#1", CaseStatus.VERIFIED, ("1", K))),
            score("specs/c.dfy", "Max", case("T#1", CaseStatus.VERIFIED, ("1", K)))]
    changes = (SpecChange("specs/a.dfy", "Abs", Relation.WEAKER, "x = -1", "r = 2", "head"),
               SpecChange("specs/b.dfy", "Abs", Relation.EQUIVALENT),
               SpecChange("specs/c.dfy", "Max", Relation.STRONGER, "a = [1, 2]", "m = 1", "base"))
    body = render_comment(CommentInput(tuple(compare(head, head)), Gate(), (), "2.3", MARKER, changes=changes))
    assert "- <code>Abs</code> in <code>specs/a.dfy</code> got weaker beyond the tests: for <code>x = -1</code>" in body
    assert "- <code>Abs</code> in <code>specs/b.dfy</code>: its postcondition is proved equivalent" in body
    assert "- <code>Max</code> got stronger: for " in body  # a name no other file has goes alone
