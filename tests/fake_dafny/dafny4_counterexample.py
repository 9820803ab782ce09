"""Fake Dafny 4 with `--extract-counterexample`: tests/fake_dafny/dafny4.py, plus counterexample blocks.

Their shape follows Dafny's documented output (reference manual, "Counterexamples": assumptions that can be
inserted into the code) and dafny-lang/dafny's printer (`DafnyModel.ToString`: a WARNING line, then per
state `FILE(L,C): <name>:` and `assume ...;`), printed under each error (`Related counterexample:`). With
FAKE_DAFNY_CEX_STYLE=3, the Dafny 3.x shape instead: one block for the first failing assertion at the end,
`Counterexample for first failing assertion: ` with tab-indented `name : type = value` lines.

A failing method (`// fake: Errors`) states its counterexample in comments: `// cex-initial: E` (the
initial state's assumption), `// cex: E` (the failing state's) and `// cex3: name : type = value` lines.
Nothing is printed without --extract-counterexample. `--help` lists it unless FAKE_DAFNY_OPTIONS says
otherwise.
"""

import contextlib
import io
import os
import re
import runpy
import sys
from pathlib import Path

FAKE = Path(__file__).with_name("dafny4.py")
WARNING = (
    "WARNING: the following counterexample may be inconsistent or invalid. "
    "See dafny.org/dafny/DafnyRef/DafnyRef#sec-counterexamples"
)

os.environ.setdefault(
    "FAKE_DAFNY_OPTIONS",
    "--filter-symbol --allow-warnings --cores --verification-time-limit --log-format --solver-path "
    "--extract-counterexample",
)
args = sys.argv[1:]
captured = io.StringIO()
code = 0
with contextlib.redirect_stdout(captured):
    try:
        runpy.run_path(str(FAKE), run_name="__main__")
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 0

if "--extract-counterexample" not in args or args[:1] != ["verify"]:
    sys.stdout.write(captured.getvalue())
    sys.exit(code)

source = args[1]
lines = Path(source).read_text().splitlines()


def method_start(number: int) -> int:
    for n in range(number, 0, -1):
        if re.match(r"^(method|lemma)\s", lines[n - 1]):
            return n
    return 1


def comments(first: int, tag: str) -> list[str]:
    found = []
    for line in lines[first - 1 :]:
        if found and re.match(r"^(method|lemma)\s", line):
            break
        m = re.search(rf"// {tag}: (.*)$", line)
        if m:
            found.append(m.group(1))
        if line.startswith("}"):
            break
    return found


style3 = os.environ.get("FAKE_DAFNY_CEX_STYLE") == "3"
first_failure: int | None = None
out: list[str] = []
for line in captured.getvalue().splitlines():
    out.append(line)
    m = re.match(rf"^{re.escape(source)}\((\d+),(\d+)\): Error: ", line)
    if not m:
        continue
    number = int(m.group(1))
    start = method_start(number)
    if first_failure is None:
        first_failure = number
    if style3:
        continue
    out.append(" Related counterexample:")
    out.append(" " + WARNING)
    out.append(f" {source}({start},0): initial state:")
    out.append(" assume " + " && ".join(comments(start, "cex-initial") or ["true"]) + ";")
    out.append(f" {source}({number},{m.group(2)}):")
    out.append(" assume " + " && ".join(comments(start, "cex") or ["true"]) + ";")
    out.append(" ")

if style3 and first_failure is not None:
    start = method_start(first_failure)
    out.append("Counterexample for first failing assertion: ")
    out.append(f"{source}({start},0): initial state:")
    out.append(f"{source}({first_failure},2):")
    out += ["\t" + text for text in comments(start, "cex3")]
print("\n".join(out))
sys.exit(code)
