"""GITHUB_OUTPUT as the Actions runner reads it (one reader for every test that looks at a run's outputs)."""

from __future__ import annotations

from pathlib import Path


def parse_outputs(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIM` ... `DELIM` blocks; a block whose delimiter never comes ends the reading
    (what was read before it stands), so a hostile run's file is read, never a crash of the test."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            try:
                end = lines.index(delim, i)
            except ValueError:
                break
            out[name] = "\n".join(lines[i:end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def outputs(path: Path) -> dict[str, str]:
    """The outputs a run appended to its GITHUB_OUTPUT file."""
    return parse_outputs(path.read_text(encoding="utf-8"))
