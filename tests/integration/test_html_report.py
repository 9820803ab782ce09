"""report.html and the completeness histogram: bins, Mermaid, SVG, escaping, determinism, and the page as
headless Chromium renders it (screenshot decoded here, DOM dumped, console checked)."""

from __future__ import annotations

import dataclasses
import html
import json
import random
import re
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from collections import Counter
from html.parser import HTMLParser
from itertools import accumulate
from pathlib import Path

import pytest

from bot.audit import request
from bot.audit.charts import BINS, COLOURS, bin_of, histogram, histogram_mermaid, histogram_svg
from bot.audit.html_report import report_html
from bot.audit.model import LABEL_ORDER, Label, TaskResult, Verdict
from bot.audit.report import disagreeing, report_md
from bot.audit.verdicts import verdict
from bot.symbolic.results import CaseResult, CaseStatus, MutantResult, MutantStatus, Suggestion, method_score
from support.browser import chromium as find_chromium
from support.browser import measured

SETTINGS: dict[str, object] = {"seed": 0, "mutants": 5, "time_limit": 20, "weak_below": 0.8, "tolerance": 1e-3}
K, S = MutantStatus.KILLED, MutantStatus.SURVIVED
SCRIPT = "<script>alert(1)</script>"

# every element report.html may contain: anything else came from dataset text
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p", "div", "span", "table", "thead",
    "tbody", "tr", "th", "td", "colgroup", "col", "code", "ul", "li", "figure", "svg", "rect", "line", "text", "g",
    "wbr",
}  # fmt: skip


def _case(name: str, status: CaseStatus, inputs: str, expected: str, mutants: tuple[MutantStatus, ...] = (),
          values: tuple[str, ...] = ()) -> CaseResult:
    values = values or tuple(f"v{i}" for i in range(len(mutants)))
    found = tuple(MutantResult(v, f"replaced by {v}", m) for v, m in zip(values, mutants, strict=True))
    return CaseResult(name, 3, inputs, expected, "", "test/t.dfy", status, "", found)


def _task(task_id: str, label: Label, *cases: CaseResult, method: str = "M", file: str = "") -> TaskResult:
    score = method_score(file or f"src/task_id_{task_id}.dfy", method, 1, cases)
    v, cause = verdict(score, 0.8)
    return TaskResult(task_id, score.file, method, label, (), v, cause, score, 0.0, False)


def hostile_results() -> list[TaskResult]:
    """Tasks of every label, completeness across the bins, and dataset text trying to break out of HTML."""
    ok = CaseStatus.VERIFIED
    results = [
        _task(SCRIPT, Label.STRONG,
              _case("c<1>", ok, f's = "{SCRIPT}"', "result = \"'&amp;\"", (S, S, K),
                    (f'"{SCRIPT}"', "\"x\" onmouseover='alert(2)'", "1")),
              method='M"><img src=x onerror=alert(3)>', file="src/<b>bold</b>&amp;.dfy"),
        _task("2", Label.STRONG, _case("c", ok, "n = 1", "result = 2", (K, K, K, K, S))),  # 0.8
        _task("3", Label.STRONG, _case("c", ok, "n = 1", "result = 2", (K,))),  # 1.0
        _task("4", Label.WEAK, _case("c", ok, "n = 1", "result = 2", (K, S))),  # 0.5
        _task("5", Label.WEAK, _case("c", ok, "n = 1", "result = 2", (S, S, S, S, S),
                                     tuple(f"[{i}, </code><script>x</script>]" for i in range(5)))),  # 0.0
        _task("6", Label.WRONG, _case("c", CaseStatus.REFUTED, "n = 1", "result = 2")),  # no completeness
        _task("7", Label.WRONG, _case("c", ok, "n = 1", "result = 2", (K, K, S))),  # 0.667
        _task("8", Label.UNLABELED, _case("c", ok, "n = 1", "result = 2", (K, S, S, S, S))),  # 0.2
        TaskResult("9", "src/task_id_9.dfy", "", Label.STRONG, (), Verdict.INCONCLUSIVE,
                   f"spec does not parse: {SCRIPT} \"quoted\" & 'single'", None, 0.0, False),
    ]  # fmt: skip
    for n in range(10, 22):  # volume, so the chart has tall bars and the page scrolls
        mutants = (K,) * (n % 5) + (S,)
        results.append(_task(str(n), LABEL_ORDER[n % 3], _case("c", ok, f"n = {n}", "result = 0", mutants)))
    random.Random(3).shuffle(results)
    return results


# -- bins, histogram, Mermaid ----------------------------------------------------------------------


def test_bins_are_half_open_and_one_is_apart() -> None:
    assert [b.name for b in BINS] == ["0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0", "1.0"]
    assert [bin_of(x) for x in (0.0, 0.1999, 0.2, 0.39, 0.4, 0.6, 0.8, 0.9999, 1.0)] == [0, 0, 1, 1, 2, 3, 4, 4, 5]
    assert bin_of(-0.5) == 0 and bin_of(1.5) == len(BINS) - 1
    h = histogram(hostile_results())
    assert h.counts[Label.WEAK][0] >= 1 and h.counts[Label.STRONG][4] >= 1 and h.counts[Label.UNLABELED][1] == 1
    assert h.without == 2  # the refuted task and the unscored one
    assert sum(map(sum, h.counts.values())) + h.without == len(hostile_results())


def test_mermaid_is_one_xychart_per_label_in_safe_syntax() -> None:
    results = hostile_results()
    lines = histogram_mermaid(results)
    text = "\n".join(lines)
    blocks = re.findall(r"^```mermaid\n(.*?)\n```$", text, re.M | re.S)
    h = histogram(results)
    assert len(blocks) == sum(h.total(lb) > 0 for lb in LABEL_ORDER) == 4
    for block, lb in zip(blocks, LABEL_ORDER, strict=True):
        rows = block.splitlines()
        assert rows[0] == "xychart-beta"
        title = re.fullmatch(r'    title "([A-Za-z0-9 .-]+)"', rows[1])
        assert title and lb.value in title.group(1)
        cats = re.fullmatch(r'    x-axis "Completeness" \[(.*)\]', rows[2])
        assert cats and cats.group(1) == ", ".join(f'"{b.name}"' for b in BINS)
        top = re.fullmatch(r'    y-axis "Tasks" 0 --> (\d+)', rows[3])
        bars = re.fullmatch(r"    bar \[([\d, ]+)\]", rows[4])
        assert top and bars and len(rows) == 5
        values = [int(v) for v in bars.group(1).split(", ")]
        assert values == list(h.counts[lb]) and max(values) <= int(top.group(1))
    assert not re.search(r"[<;#%`]", "\n".join(blocks))  # nothing Mermaid or HTML reads as markup
    assert histogram_mermaid([]) == ["No task has a completeness.", ""]


def test_report_md_carries_the_histogram_after_the_confusion_table() -> None:
    results = hostile_results()
    md = report_md(results, SETTINGS)
    section = "## Completeness histogram\n\n" + "\n".join(histogram_mermaid(results))
    assert section in md
    assert md.index("## Verdicts × human labels") < md.index(section) < md.index("## Disagreements")


# -- SVG and HTML ------------------------------------------------------------------------------------


def test_svg_is_well_formed_with_axes_bars_legend_and_titles() -> None:
    results = hostile_results()
    svg = histogram_svg(results)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    h = histogram(results)
    bars = [r for r in root.iter(f"{ns}rect") if r.find(f"{ns}title") is not None]
    assert len(bars) == sum(n > 0 for row in h.counts.values() for n in row)
    assert {r.get("fill") for r in bars} == {COLOURS[lb] for lb in LABEL_ORDER}
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert all(b.name in texts for b in BINS) and "Tasks" in texts and "Human label" in texts
    assert all(f"{lb.value} ({h.total(lb)})" in texts for lb in LABEL_ORDER)
    assert len(list(root.iter(f"{ns}line"))) >= 3  # two axes and grid lines
    assert histogram_svg(results) == histogram_svg(list(reversed(results)))
    ET.fromstring(histogram_svg([]))  # an empty audit still draws axes


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.attrs: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.attrs += [(tag, k, v) for k, v in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Elements:
    p = _Elements()
    p.feed(page)
    p.close()
    return p


def test_hostile_text_makes_no_element_and_is_shown_as_text() -> None:
    page = report_html(hostile_results(), SETTINGS)
    parsed = _parse(page)
    assert set(parsed.tags) <= ALLOWED_TAGS, set(parsed.tags) - ALLOWED_TAGS
    assert not [a for a in parsed.attrs if a[1].startswith("on") or a[1] in ("src", "href")]
    text = "".join(parsed.text)
    for shown in (SCRIPT, 'M"><img src=x onerror=alert(3)>', "src/<b>bold</b>&amp;.dfy", "result = \"'&amp;\"",
                  "\"x\" onmouseover='alert(2)'", "[0, </code><script>x</script>]", "\"quoted\" & 'single'"):
        assert shown in text, shown
    assert "<script" not in page.lower() and "<img" not in page.lower()


def test_page_is_self_contained_and_deterministic() -> None:
    results = hostile_results()
    page = report_html(results, SETTINGS)
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page
    assert re.findall(r"https?://[^\s\"']*", page) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    for fetching in ("<link", "<script", "<iframe", "<object", "<img", "@import", "url("):
        assert fetching not in page.lower(), fetching
    shuffled, reordered = list(reversed(results)), dict(reversed(list(SETTINGS.items())))
    assert report_html(shuffled, reordered) == page
    # the headline and the table carry the markdown report's numbers
    md = report_md(results, SETTINGS)
    agree = re.search(r"Agreement: (\d+) of (\d+) labelled and evaluated tasks \((\d+%)\)", md)
    assert agree and f"{agree.group(1)} of {agree.group(2)} labelled and evaluated tasks" in page
    assert f'<div class="big">{agree.group(3)}</div>' in page
    covered = re.search(r"Evaluated (\d+) of (\d+) tasks", md)
    assert covered and f'<div class="big">{covered.group(1)} / {covered.group(2)}</div>' in page
    empty = report_html([], {})
    assert "No task." in empty and "n/a" in empty


def test_write_reports_writes_report_html(tmp_path: Path) -> None:
    results = hostile_results()
    request.write_reports(tmp_path, results, dict(SETTINGS), root=tmp_path)
    assert "report.html" in request.REPORT_FILES
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == report_html(results, SETTINGS)
    written: dict[str, str] = {}
    request.write_reports(tmp_path / "confined", results, dict(SETTINGS), lambda p, t: written.update({p.name: t}),
                          root=tmp_path)
    assert set(written) == set(request.REPORT_FILES)


# -- headless Chromium ----------------------------------------------------------------------------------


def _add(a: bytes, b: bytes) -> bytes:
    """Bytewise (a + b) mod 256 of two equal-length rows, on big integers: no carry crosses a byte."""
    n = len(a)
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(n, "big")


def _paeth(line: bytearray, prev: bytes, bpp: int) -> None:
    """Undo the Paeth filter in place; the two shortcuts (above = above-left, left = above-left) are the
    predictor's own answer there, and they save most of the work on a page that is mostly flat colour."""
    for i in range(bpp):
        line[i] = (line[i] + prev[i]) & 255
    for i in range(bpp, len(line)):
        b, c = prev[i], prev[i - bpp]
        a = line[i - bpp]
        if b == c:
            pred = a
        elif a == c:
            pred = b
        else:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
        line[i] = (line[i] + pred) & 255


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(idat)
    prev, rows = bytes(stride), []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if kind == 1:  # sub: a running sum per channel
            for ch in range(bpp):
                line[ch::bpp] = bytes(map((255).__and__, accumulate(line[ch::bpp])))
        elif kind == 2:  # up
            line = bytearray(_add(bytes(line), prev))
        elif kind == 3:  # average
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif kind == 4:
            _paeth(line, prev, bpp)
        prev = bytes(line)
        if bpp == 4:  # drop alpha
            line = bytearray(width * 3)
            for ch in range(3):
                line[ch::3] = prev[ch::4]
        rows.append(bytes(line))
    return width, height, rows


def test_png_decoder_on_a_png_written_here() -> None:
    # 2×4 RGB with rows filtered "up" (over nothing), "sub", "up" (with bytes that wrap) and "paeth" (a row
    # equal to the one above: all zeros), built by hand; Chromium's own screenshot checks the rest
    pixels = [b"\x00\x72\xb2\xff\xff\xff", b"\xe6\x9f\x00\x00\x72\xb2", b"\x01\x02\x03\x04\x05\x06"]
    pixels.append(pixels[2])
    raw = (b"\x02" + pixels[0] + b"\x01" + b"\xe6\x9f\x00\x1a\xd3\xb2" + b"\x02" + b"\x1b\x63\x03\x04\x93\x54"
           + b"\x04" + bytes(6))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 4, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    assert decode_png(png) == (2, 4, pixels)


def test_report_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    chromium = find_chromium()
    results = hostile_results()
    page = tmp_path / "report.html"
    page.write_text(report_html(results, SETTINGS), encoding="utf-8")
    shot = tmp_path / "report.png"
    run = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
         "--disable-component-update", "--mute-audio",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", "--window-size=1200,1600",
         f"--screenshot={shot}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert run.returncode == 0 and shot.is_file(), run.stderr[-3000:]
    # the page runs no script, so anything on the console (an error, a blocked load) is a fault
    console = [line for line in run.stderr.splitlines() if re.search(r"CONSOLE|Uncaught", line)]
    assert not console, "\n".join(console)
    # the DOM Chromium built: the tables and the chart, and no element from dataset text
    dom = _parse(run.stdout)
    assert dom.tags["svg"] == 1 and dom.tags["table"] == 3 and dom.tags["script"] == 0 and dom.tags["img"] == 0
    assert set(dom.tags) <= ALLOWED_TAGS, set(dom.tags) - ALLOWED_TAGS
    disagree = disagreeing(results)
    # confusion rows, disagreement rows, task rows
    assert dom.tags["tr"] == 1 + len(LABEL_ORDER) + 1 + 1 + len(disagree) + 1 + len(results)
    assert SCRIPT in "".join(dom.text)
    # the screenshot: full size, not blank, and every label's bar colour drawn
    width, height, rows = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    pixels: Counter[tuple[int, int, int]] = Counter()
    for row in rows:
        pixels.update(zip(row[0::3], row[1::3], row[2::3], strict=True))
    assert len(pixels) > 50, f"only {len(pixels)} distinct colours: a blank page?"
    white = pixels[255, 255, 255]
    assert 0.3 * width * height < white < 0.98 * width * height
    for lb in LABEL_ORDER:
        r, g, b = bytes.fromhex(COLOURS[lb][1:])
        assert pixels[r, g, b] > 100, f"no {lb.value} bar drawn"
    assert pixels[0xFF, 0xF1, 0xCC] > 1000, "the rows where label and verdict disagree are not highlighted"


# measures, in the page as laid out, whether each word of a method name (the text between two <wbr>) lies on one line
_MEASURE = """<script>
const broken = [];
for (const code of document.querySelectorAll("td.method code")) {
  for (const node of code.childNodes) {
    if (node.nodeType !== Node.TEXT_NODE) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) broken.push(node.textContent);
  }
}
const lines = [...document.querySelectorAll("td.method code")].map(c => new Set(
  [...c.getClientRects()].map(r => Math.round(r.top))).size);
document.title = JSON.stringify({broken, wrapped: lines.filter(n => n > 1).length});
</script>"""


def test_method_names_wrap_between_words_and_a_wrong_verdict_names_its_clause(tmp_path: Path) -> None:
    chromium = find_chromium()
    long_name = "ComputeTheSumOfAllEvenNumbersInTheSequenceAfterRemovingDuplicates"
    refuted = dataclasses.replace(_case("c1", CaseStatus.REFUTED, "n = 1", "result = 2"),
                                  clause="ensures result == n * 3")
    results = [
        _task("1", Label.STRONG, refuted, method=long_name),  # wrong: a disagreement
        _task("2", Label.WEAK, _case("c", CaseStatus.VERIFIED, "n = 1", "result = 2", (S, S)),
              method="snake_case_name"),
    ]
    html_text = report_html(results, SETTINGS)
    assert "case c1: <code>n = 1</code> → expected <code>result = 2</code>, rejected by " \
           "<code>ensures result == n * 3</code>" in html_text  # the evidence, not "none"
    # a copy that may run the measuring script (the report itself forbids scripts)
    page = tmp_path / "measure.html"
    page.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html_text)
                    .replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    run = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=700,1200", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    found = re.search(r"<title>(.*?)</title>", run.stdout, re.S)
    assert found is not None, run.stdout[:2000]
    measured = json.loads(html.unescape(found.group(1)))
    assert measured["wrapped"] >= 1, "at 700 px the long name should need more than one line"
    assert measured["broken"] == [], f"words broken across lines: {measured['broken']}"


def test_a_weak_tasks_verified_suggestion_is_shown_with_what_was_proved() -> None:
    weak = _task("4", Label.WEAK, _case("c", CaseStatus.VERIFIED, "n = 1", "result = 2", (K, S)))
    assert weak.score is not None
    g = Suggestion("r == 2 * n", "tight-bound", 3, 1, 1, 1, 0, 0, 1, "verifies")
    page = report_html([dataclasses.replace(weak, score=dataclasses.replace(weak.score, suggestions=(g,)))],
                       SETTINGS)
    assert '<code class="suggested">ensures r == 2 * n</code>' in page
    assert "proved: it accepts every test case (1) and rejects every wrong output the spec accepted (1); 1 of 1 " \
           "pinned; the implementation still verifies with this clause" in page


# measures, as laid out, the short cells and headers of both task tables: a word split across lines (a task id, a
# label, a verdict, a header), a header wider than its cell, and a table wider than the page
_LAYOUT = """<script>
const split = [], overflowing = [], wide = [];
const lines = el => { const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top))).size; };
const main = document.querySelector("main").getBoundingClientRect();
for (const table of document.querySelectorAll("table.tasks")) {
  if (table.getBoundingClientRect().right > main.right + 1) wide.push(table.id);
  for (const th of table.querySelectorAll("th")) {
    if (th.scrollWidth > th.clientWidth + 1) overflowing.push(th.textContent);
    const wraps = th.classList.contains("evidence") || th.classList.contains("score");  // may wrap, at spaces or &shy;
    if (!wraps && lines(th) > 1) split.push(th.textContent);
  }
  for (const cell of table.querySelectorAll("td.word, span.word")) if (lines(cell) > 1) split.push(cell.textContent);
  for (const cell of table.querySelectorAll("td.id")) if (cell.textContent.length <= 4 && lines(cell) > 1)
    split.push(cell.textContent);
}
document.title = JSON.stringify({split, overflowing, wide});
</script>"""


@pytest.mark.parametrize("width", [780, 1280])
def test_task_tables_keep_ids_labels_verdicts_and_headers_whole(tmp_path: Path, width: int) -> None:
    """At a laptop's half screen (780 px) as at full width: "14│3", "wron│g" and overlapping headers were seen."""
    extra = _task("143", Label.UNLABELED, _case("c", CaseStatus.UNKNOWN, "n = 1", "result = 2"),
                  method="snake_case_name_of_a_method", file="src/a_long_folder_name/task_id_143.dfy")
    tasks = [*hostile_results(), extra]
    page = tmp_path / "layout.html"
    page.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", report_html(tasks, SETTINGS))
                    .replace("</body>", _LAYOUT + "</body>"), encoding="utf-8")
    found = measured(page, tmp_path / "profile", width, 1600)
    assert found == {"split": [], "overflowing": [], "wide": []}, found
