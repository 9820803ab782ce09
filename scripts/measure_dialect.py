"""Measure what the dialect rewrite buys: MBPP-DFY source files verified by Dafny 2.3 as-is and rewritten.

Usage: python scripts/measure_dialect.py [DATASET_DIR]   (default: ../shared/mbpp-dfy)

Runs `dafny /compile:0 /nologo /timeLimit:20` on every `MBPP-DFY-153/src/*.dfy` of every snapshot,
two processes at a time, once on the file as it is and once after `to_dialect(..., DAFNY2)`.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.dafny.dialect import Dialect, to_dialect  # noqa: E402
from bot.dafny.lexer import LexError  # noqa: E402

DAFNY = ["dafny", "/compile:0", "/nologo", "/timeLimit:20"]
WORKERS = 2
PROCESS_TIMEOUT = 600  # seconds; a file is 20 s per procedure at most, this only guards a hung mono
# z3 4.8.12 complains about an option Dafny 2.3 passes, then lists its legal parameters: harmless
_NOISE = re.compile(r"^Prover error: .*unknown parameter 'model_compress'|^Legal parameters are:")
_NOISE_LIST_ITEM = re.compile(r"^\s+\S+ \([^)]*\)")
_ERROR = re.compile(r"error|timed out", re.IGNORECASE)


@dataclass(frozen=True)
class Run:
    path: Path
    verified: bool
    first_error: str
    seconds: float


def clean_output(text: str) -> list[str]:
    """Verifier output lines without z3's model_compress noise."""
    lines: list[str] = []
    in_list = False
    for line in text.splitlines():
        if _NOISE.search(line):
            in_list = line.startswith("Legal parameters")
            continue
        if in_list and _NOISE_LIST_ITEM.match(line):
            continue
        in_list = False
        if line.strip():
            lines.append(line)
    return lines


def verify(path: Path) -> Run:
    began = time.monotonic()
    try:
        proc = subprocess.run([*DAFNY, str(path)], capture_output=True, text=True, timeout=PROCESS_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return Run(path, False, f"no answer within {PROCESS_TIMEOUT} s", time.monotonic() - began)
    lines = clean_output(proc.stdout + "\n" + proc.stderr)
    errors = [line for line in lines if _ERROR.search(line) and not line.startswith("Dafny program verifier")]
    first = errors[0] if errors else (lines[0] if lines else f"exit code {proc.returncode}")
    return Run(path, proc.returncode == 0, first, time.monotonic() - began)


def main(argv: list[str]) -> int:
    default = Path(__file__).resolve().parents[1] / ".." / "shared" / "mbpp-dfy"
    root = Path(argv[1]) if len(argv) > 1 else default
    sources = sorted(root.glob("*/MBPP-DFY-153/src/*.dfy"))
    if not sources:
        print(f"no MBPP-DFY-153/src/*.dfy under {root}: pass the dataset directory as the first argument")
        return 2
    with tempfile.TemporaryDirectory(prefix="measure-dialect-") as tmp:
        rewritten: list[Path] = []
        notes: dict[Path, tuple[str, ...]] = {}
        for src in sources:
            # keep snapshot and name so error lines still say which file they are about
            out = Path(tmp) / src.relative_to(root)
            out.parent.mkdir(parents=True, exist_ok=True)
            text = src.read_text(encoding="utf-8")
            try:
                rewrite = to_dialect(text, Dialect.DAFNY2)
                out.write_text(rewrite.text, encoding="utf-8")
                notes[out] = rewrite.left_alone
            except LexError as e:
                out.write_text(text, encoding="utf-8")
                notes[out] = (f"not rewritten: {e}",)
            rewritten.append(out)
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            as_is = list(pool.map(verify, sources))
            after = list(pool.map(verify, rewritten))
        elapsed = time.monotonic() - began
        n = len(sources)
        ok_before = sum(r.verified for r in as_is)
        ok_after = sum(r.verified for r in after)
        print(f"as-is: {ok_before}/{n} verify; rewritten: {ok_after}/{n} verify ({elapsed:.0f} s)")
        failing = [r for r in after if not r.verified]
        if failing:
            print("still failing after the rewrite:")
        for r in failing:
            name = r.path.relative_to(tmp)
            error = r.first_error.replace(str(r.path), str(name))
            print(f"  {error}" if str(name) in error else f"  {name}: {error}")
            for note in notes.get(r.path, ()):
                print(f"    left alone: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
