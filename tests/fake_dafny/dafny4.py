"""Fake Dafny 4 (`dafny verify`), writing the JSON log in the shape of Dafny's JsonVerificationLogger.

A method's fate is set by a comment in its body: `// fake: Errors`, `// fake: TimedOut`, `// fake: resolution`
(parse/resolution error: exit 2, no log), `// fake: warning` (a warning: exit 2 unless --allow-warnings,
as since Dafny 4.6); otherwise it is Correct. Methods with `requires` also get a well-formedness scope.
Environment: FAKE_DAFNY_ARGV (file to record the arguments in), FAKE_DAFNY_VERSION, FAKE_DAFNY_OPTIONS.
"""

import json
import os
import re
import sys
from pathlib import Path

args = sys.argv[1:]
if args == ["--version"]:
    print(os.environ.get("FAKE_DAFNY_VERSION", "4.4.0+a1b2c3"))
    sys.exit(0)
if args == ["verify", "--help"]:
    options = os.environ.get(
        "FAKE_DAFNY_OPTIONS",
        "--filter-symbol --allow-warnings --cores --verification-time-limit --log-format --solver-path",
    )
    print("Description:\n  Verify the program.\n\nOptions:")
    for option in options.split():
        print(f"  {option} <value>  Some help text mentioning no-such-option-in-prose.")
    sys.exit(0)
if os.environ.get("FAKE_DAFNY_ARGV"):
    Path(os.environ["FAKE_DAFNY_ARGV"]).write_text(json.dumps(args))
assert args[0] == "verify", args
source_name = args[1]
log_name = args[args.index("--log-format") + 1].split(";", 1)[1].split("=", 1)[1]
symbol = args[args.index("--filter-symbol") + 1] if "--filter-symbol" in args else ""
lines = Path(source_name).read_text().splitlines()

methods: list[tuple[str, int, int]] = []  # name, first line, last line
for number, line in enumerate(lines, 1):
    m = re.match(r"^(method|lemma)\s+(\w+)", line)
    if m:
        if methods:
            methods[-1] = (methods[-1][0], methods[-1][1], number - 1)
        methods.append((m.group(2), number, number))
if methods:
    methods[-1] = (methods[-1][0], methods[-1][1], len(lines))

results = []
exit_code = 0
warned = False
for name, first, last in methods:
    if symbol not in name:
        continue
    outcome = "Correct"
    for number in range(first, last + 1):
        m = re.search(r"// fake: (\w+)", lines[number - 1])
        if not m:
            continue
        fate = m.group(1)
        if fate == "resolution":
            print(f"{source_name}({number},12): Error: unresolved identifier: G")
            print(f"1 resolution/type errors detected in {source_name}")
            sys.exit(2)
        if fate == "warning":
            print(f"{source_name}({number},3): Warning: this branch is redundant")
            warned = True
        if fate == "Errors":
            print(f"{source_name}({number},9): Error: assertion might not hold")
            print("   |")
            print(f"{number:3} |   assert false;")
            print("   |          ^^^^^")
            outcome = "Errors"
        if fate == "TimedOut":
            print(f"{source_name}({first},7): Error: Verification of '{name}' timed out after 5 seconds")
            outcome = "TimedOut"
    vc = {"Correct": "Valid", "Errors": "Invalid", "TimedOut": "TimeOut"}[outcome]
    results.append(
        {
            "name": f"{name} (correctness)",
            "outcome": outcome,
            "runTime": "00:00:00.2500000",
            "resourceCount": 1234,
            "vcResults": [
                {
                    "vcNum": 1,
                    "outcome": vc,
                    "runTime": "00:00:00.2500000",
                    "resourceCount": 1234,
                    "assertions": [{"filename": source_name, "line": first, "col": 1, "description": "x"}],
                }
            ],
        }
    )
    if any("requires" in lines[n - 1] for n in range(first, last + 1)):
        results.append(
            {
                "name": f"{name} (well-formedness)",
                "outcome": "Correct",
                "runTime": "00:00:00.0100000",
                "resourceCount": 10,
                "vcResults": [],
            }
        )
    if outcome != "Correct":
        exit_code = 4
Path(log_name).write_text(json.dumps({"verificationResults": results}) + "\n")
print(f"\nDafny program verifier finished with {len(results)} verified, 0 errors")
if warned and exit_code == 0 and "--allow-warnings" not in args:
    print("Compilation failed because warnings were found and --allow-warnings is false")
    exit_code = 2
sys.exit(exit_code)
