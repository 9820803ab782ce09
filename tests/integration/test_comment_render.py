"""The pull-request comment as a reviewer sees it: its markdown rendered the way GitHub renders a comment (GFM
tables, inline HTML, <details>), laid out by headless Chromium at a comment's width with GitHub's table rules,
and measured: nothing may be wider than the comment (a table wider than that scrolls sideways)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from bot.dafny.spans import ensures_spans
from bot.report.comment import CommentInput, render_comment
from bot.report.links import Links
from bot.symbolic.compare import compare
from bot.symbolic.results import CaseResult, CaseStatus, Determinacy, Gate, MutantResult, MutantStatus, method_score
from support.browser import measured, on_ci
from support.paths import GOLDEN

WIDTH = 780  # a pull-request comment's body on github.com, in CSS pixels

# GitHub's markdown rules that decide widths (its `.markdown-body` stylesheet): long words break in paragraphs,
# not in tables; a table is a block as wide as its content, at most the comment's width, and scrolls beyond
CSS = f"""
body {{ margin: 0; }}
.markdown-body {{ width: {WIDTH}px; font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans",
  Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5; word-wrap: break-word; }}
.markdown-body code {{ font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono",
  monospace; font-size: 85%; padding: .2em .4em; margin: 0; white-space: break-spaces;
  background-color: rgba(175, 184, 193, .2); border-radius: 6px; }}
.markdown-body table {{ border-spacing: 0; border-collapse: collapse; display: block; width: max-content;
  max-width: 100%; overflow: auto; }}
.markdown-body table th {{ font-weight: 600; }}
.markdown-body table th, .markdown-body table td {{ padding: 6px 13px; border: 1px solid #d0d7de; }}
.markdown-body ul {{ padding-left: 2em; }}
.markdown-body p, .markdown-body ul, .markdown-body table, .markdown-body details {{ margin: 0 0 16px; }}
.markdown-body h2 {{ font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d8dee4; }}
"""

# every <details> opened (a reviewer opens them), then what sticks out of the comment and which tables scroll
MEASURE = """<script>
for (const d of document.querySelectorAll("details")) d.open = true;
const body = document.querySelector(".markdown-body");
const right = body.getBoundingClientRect().right;
const wide = [...body.querySelectorAll("*")].filter(e => e.getBoundingClientRect().right > right + 0.5)
  .map(e => `${e.tagName} ${Math.round(e.getBoundingClientRect().right)}px: ${e.textContent.slice(0, 80)}`);
const tables = [...body.querySelectorAll("table")];
const scrolling = tables.filter(t => t.scrollWidth > t.clientWidth + 0.5)
  .map(t => `${t.scrollWidth} > ${t.clientWidth}: ${t.rows[0].textContent.trim().slice(0, 80)}`);
const columns = tables.map(t => t.rows[0].cells.length);
const links = [...body.querySelectorAll("a")].map(a => [a.textContent, a.getAttribute("href")]);
document.title = JSON.stringify({wide, scrolling, columns, links});
</script>"""


def github_html(markdown: str) -> str:
    """The comment as GitHub renders it: CommonMark with GFM tables, raw HTML kept, a line break per newline."""
    try:
        import markdown_it
    except ImportError:
        if on_ci():
            pytest.fail("CI=true but markdown-it-py is not installed: run scripts/setup.sh", pytrace=False)
        pytest.skip("markdown-it-py is not installed (a dev dependency: scripts/setup.sh installs it)")
    body = markdown_it.MarkdownIt("commonmark", {"html": True, "breaks": True}).enable(["table", "strikethrough"])
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>-</title><style>{CSS}</style></head>"
            f"<body><div class='markdown-body'>{body.render(markdown)}</div>{MEASURE}</body></html>")


def layout(markdown: str, tmp_path: Path) -> Any:
    page = tmp_path / "comment.html"
    page.write_text(github_html(markdown), encoding="utf-8")
    return measured(page, tmp_path / "profile")


LONG = "ComputeTheSumOfAllEvenNumbersInTheSequenceAfterRemovingDuplicatesAndSortingThemInDescendingOrder"
DEEP = "specs/" + "/".join(f"some_rather_long_folder_name_{i}" for i in range(4)) + "/sum_of_even_numbers.dfy"
SOURCE = f"""method {LONG}(s: seq<int>) returns (sumOfAllEvenNumbersWithoutDuplicates: int)
  ensures sumOfAllEvenNumbersWithoutDuplicates >= 0 && sumOfAllEvenNumbersWithoutDuplicates % 2 == 0
{{
  sumOfAllEvenNumbersWithoutDuplicates := 0;
}}
"""


def long_comment() -> str:
    """A comment whose names, paths, inputs and wrong outputs are long words: what makes a table too wide."""
    wrong = "\"" + "x" * 150 + "\""
    inputs = "s = [" + ", ".join(str(10 ** 12 + i) for i in range(30)) + "]"

    def case(name: str, status: CaseStatus, value: str) -> CaseResult:
        mutants = (MutantResult(value, "a long string", MutantStatus.SURVIVED),) if value else ()
        return CaseResult(name, 3, inputs, "sumOfAllEvenNumbersWithoutDuplicates = 123456789012345678901234567890",
                          "", DEEP, status, "", mutants, None,
                          "ensures sumOfAllEvenNumbersWithoutDuplicates >= 0" if status is CaseStatus.REFUTED else "",
                          determinacy=Determinacy.NOT_PINNED if value else None, witness=value and "[" + "9" * 90 + "]",
                          witness_source="solver")

    weak = method_score(DEEP, LONG, 1, (case(f"{LONG}Test#1", CaseStatus.VERIFIED, wrong),))
    wrong_spec = method_score("specs/b.dfy", LONG + "Again", 1, (case("T#1", CaseStatus.REFUTED, ""),))
    base = [method_score(DEEP, LONG, 1, (case(f"{LONG}Test#1", CaseStatus.VERIFIED, ""),)),
            method_score("specs/b.dfy", LONG + "Again", 1, (case("T#1", CaseStatus.VERIFIED, ""),))]
    spans = {(DEEP, LONG): ensures_spans(SOURCE, DEEP)[LONG]}
    links = Links("https://github.com", "some-organisation/some-repository-with-a-long-name", "f" * 40)
    inp = CommentInput(tuple(compare([weak, wrong_spec], base)), Gate(1.0, 0.9), ("gate failure " + wrong,), "4.2",
                       "<!-- m -->", links=links, spans=spans)
    return render_comment(inp, limit=None)


@pytest.mark.parametrize("name", ["e2e", "long"])
def test_nothing_is_wider_than_a_comment(name: str, tmp_path: Path) -> None:
    markdown = (GOLDEN / "comment_e2e.md").read_text(encoding="utf-8") if name == "e2e" else long_comment()
    got = layout(markdown, tmp_path)
    assert got["scrolling"] == [], f"tables a reviewer must scroll sideways at {WIDTH} px: {got['scrolling']}"
    assert got["wide"] == [], f"elements wider than the comment: {got['wide']}"
    assert got["columns"] and max(got["columns"]) <= 5, got["columns"]
    # the method names and the clause link to their lines at the head commit
    blobs = [(text, href) for text, href in got["links"] if "/blob/" in href]
    assert blobs and all(html.unescape(href) == href for _, href in blobs)
    if name == "e2e":
        shown = {text: href for text, href in blobs}
        assert shown["SharedElements"].endswith("/specs/shared.dfy#L9")
        clause = "ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))"
        assert shown[clause].endswith("/specs/shared.dfy#L10")
