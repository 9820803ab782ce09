#!/usr/bin/env python3
"""Speed of the audit on a dataset: a run with an empty cache, then a run from the cache.

Prints numbers (seconds, tasks evaluated, peak memory of the verifier processes); asserts nothing.
    python3 scripts/bench.py [DATASET_ROOT] [--jobs N] [--only IDS]
DATASET_ROOT defaults to ../shared/mbpp-dfy/a57ce24 (or $DAFNY_SPEC_SCORE_DATASET/a57ce24).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(dataset: str, out: Path, cache: Path, extra: list[str]) -> tuple[float, str]:
    argv = [sys.executable, "-m", "bot", "audit", dataset, "--out", str(out), "--cache-dir", str(cache), *extra]
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(f"audit failed ({proc.returncode}):\n{proc.stderr}")
    summary = [line for line in proc.stderr.splitlines() if line.startswith("audit: evaluated")]
    return seconds, summary[-1] if summary else ""


def main() -> int:
    default = Path(os.environ.get("DAFNY_SPEC_SCORE_DATASET") or ROOT.parent / "shared" / "mbpp-dfy") / "a57ce24"
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", nargs="?", default=str(default))
    p.add_argument("--jobs", default=None)
    p.add_argument("--only", default=None)
    args = p.parse_args()
    extra = (["--jobs", args.jobs] if args.jobs else []) + (["--only", args.only] if args.only else [])
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        cold, summary = run(args.dataset, Path(tmp) / "cold", cache, extra)
        warm, _ = run(args.dataset, Path(tmp) / "warm", cache, extra)
        same = all((Path(tmp) / "cold" / n).read_bytes() == (Path(tmp) / "warm" / n).read_bytes()
                   for n in ("results.json", "results.csv", "report.md"))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"dataset: {args.dataset}")
    print(f"cores: {os.cpu_count()}; jobs: {args.jobs or 'default (cores)'}")
    print(f"empty cache: {cold:.1f} s   ({summary.removeprefix('audit: ')})")
    print(f"from cache:  {warm:.1f} s")
    print(f"reports identical: {same}")
    print(f"peak memory of a child process: {peak_mb:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
