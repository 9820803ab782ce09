"""`python3 -m bot score --format sarif` with the real verifier: valid against the official SARIF 2.1.0 schema, its
results at the running example's clauses, and its fix, applied as code scanning would, the verified clause."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.dafny.spans import ensures_spans
from support.paths import ROOT
from support.sarif import assert_valid_sarif

EXAMPLE = "examples/shared_elements.dfy"


def apply(source: str, replacement: dict[str, Any]) -> str:
    """A SARIF replacement that deletes nothing: its text inserted at the start of its line."""
    region = replacement["deletedRegion"]
    assert (region["startLine"], region["startColumn"]) == (region["endLine"], region["endColumn"]) and \
        region["startColumn"] == 1
    rows = source.splitlines(keepends=True)
    at = region["startLine"] - 1
    return "".join(rows[:at]) + replacement["insertedContent"]["text"] + "".join(rows[at:])


@pytest.mark.dafny
def test_the_cli_writes_valid_sarif_with_the_verified_fix(dafny_command: str,
                                                          warm_cache: Callable[[str], Path]) -> None:
    argv = [sys.executable, "-m", "bot", "score", EXAMPLE, "--format", "sarif", "--dafny", dafny_command,
            "--cache-dir", str(warm_cache("shared-elements"))]
    ran = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(ran.stdout)
    assert_valid_sarif(doc)
    (weak,) = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "spec/accepts-wrong-output"]
    where = weak["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": EXAMPLE, "uriBaseId": "%SRCROOT%"}
    assert where["region"] == {"startLine": 10, "endLine": 10}  # the first ensures, the one naming `result`
    (fix,) = weak["fixes"]
    assert fix["description"]["text"].startswith("proved:")
    (change,) = fix["artifactChanges"]
    (replacement,) = change["replacements"]
    source = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    fixed = ensures_spans(apply(source, replacement), EXAMPLE)["SharedElements"]
    assert len(fixed.clauses) == 3
    assert f"ensures {fixed.clauses[-1].text}" in weak["message"]["text"]  # the clause the message offers
    assert fixed.lines[-1].startswith("  ensures ")  # indented like the others
