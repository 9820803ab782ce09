"""The README's first screen: the sample output is what `python3 -m bot score examples/shared_elements.dfy` prints,
and that first run is clean (the example's own body resolves and verifies in the verifier here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.paths import ROOT

SAMPLE_OPENING = "```\nDafny Spec Score (verifier: "
ELIDED = "  ..."


def _readme_sample() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(SAMPLE_OPENING) + len("```\n")
    return text[start : text.index("```", start)].rstrip("\n").split("\n")


def _run_example() -> str:
    done = subprocess.run([sys.executable, "-m", "bot", "score", "examples/shared_elements.dfy", "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _matches(sample: list[str], output: list[str]) -> bool:
    """The sample's lines up to its first `...` open the output exactly; after it, each shown line comes later in
    the output, in order (`...` stands for lines left out)."""
    first = sample.index(ELIDED) if ELIDED in sample else len(sample)
    if output[:first] != sample[:first]:
        return False
    at = first
    for line in sample[first:]:
        if line == ELIDED:
            continue
        try:
            at = output.index(line, at) + 1
        except ValueError:
            return False
    return True


def test_sample_matcher_rejects_a_stale_sample() -> None:
    output = ["head", "", "row", "a", "b", "c"]
    assert _matches(["head", "", "row", ELIDED, "c"], output)
    assert not _matches(["head", "", "other row", ELIDED, "c"], output)
    assert not _matches(["head", "", "row", ELIDED, "c", ELIDED, "a"], output)


@pytest.mark.dafny
def test_readme_sample_is_what_the_command_prints() -> None:
    output = _run_example()
    sample = _readme_sample()
    assert _matches(sample, output.split("\n")), f"README sample:\n{chr(10).join(sample)}\n\nprinted:\n{output}"
    # the first run a new user sees: the example's body resolves, and nothing is cut mid-word
    assert "does not resolve" not in output
    assert "…" not in output
