"""The release's smoke test: the package, run by a given command, scores the bundled example with a working verifier.

    python3 scripts/smoke.py --out DIR [--seen-as DIR] [--example PATH] -- COMMAND...

COMMAND runs the package's Python: in the release workflow `docker run --rm -v "$PWD/smoke:/smoke" --entrypoint
python3 IMAGE` (then `--seen-as /smoke --example /app/examples/shared_elements.dfy`), in the test suite
`python3` (tests/integration/test_release.py). The example must verify on every case with some mutant rejected: a
verifier that cannot run leaves every case an error with exit code 0, which a bare "it ran" check would let through.
Standard library only, like scripts/release.py.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = "examples/shared_elements.dfy"


def check_report(report: dict[str, object]) -> str:
    """One line on what was proved, or AssertionError saying what was not."""
    methods = report["methods"]
    assert isinstance(methods, list) and len(methods) == 1, "the example has one method"
    (method,) = methods
    statuses = [case["status"] for case in method["cases"]]
    killed = [m for case in method["cases"] for m in case["mutants"] if m["status"] == "killed"]
    assert statuses and all(s == "verified" for s in statuses), f"the verifier did not verify the example: {statuses}"
    assert method["correctness"] == 1.0, method["correctness"]
    assert killed, "no mutant was rejected: the verifier proved nothing"
    verifier = report["verifier"]
    version = verifier.get("version") if isinstance(verifier, dict) else verifier
    return f"verifier {version}: cases {statuses}, {len(killed)} mutants killed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/smoke.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the cache and report, on this machine")
    parser.add_argument("--seen-as", help="the same folder as COMMAND sees it (default: --out)")
    parser.add_argument("--example", default=EXAMPLE, help="the example's path as COMMAND sees it")
    parser.add_argument("command", nargs="+", help="runs the package's python3")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    seen = args.seen_as or str(args.out)
    steps = [
        ["-c", "import bot.github.action"],
        # the text report for the log; the second run reads the first one's verifier results from the cache
        ["-m", "bot", "score", "--cache-dir", f"{seen}/cache", args.example],
        ["-m", "bot", "score", "--cache-dir", f"{seen}/cache", "--format", "json", "--output", f"{seen}/report.json",
         args.example],
    ]
    for step in steps:
        done = subprocess.run([*args.command, *step], check=False)
        if done.returncode != 0:
            print(f"::error::smoke test: {' '.join(step)} exited {done.returncode}", file=sys.stderr)
            return 1
    try:
        print(check_report(json.loads((args.out / "report.json").read_text(encoding="utf-8"))))
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as e:
        print(f"::error::smoke test: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
