"""The verifier's model text: where one counterexample model ends and the next begins. Pure: text in, texts out.

The format data shared by the verifier (which attributes each model to its method) and the counterexample
decoder (bot/symbolic/counterexamples.py, which reads values out of each): see that module for the format.
"""

from __future__ import annotations

import re

MODEL_BEGIN = "*** MODEL"
MODEL_END = "*** END_MODEL"
# Dafny 3/4 console: the heading of a counterexample block (4.x: under each error; 3.x: once, at the end)
STATE_AT = re.compile(r"^(\S[^()]*)\((\d+),\d+\):(?:[^:]*:)?\s*$")  # `f.dfy(4,0): initial state:`, `f.dfy(6,18):`
TYPED_LINE = re.compile(r"^\s*([A-Za-z_][\w'?]*)\s*:\s*(.+?)\s*=\s*(.*?)\s*$")
COUNTEREXAMPLE_HEADINGS = ("Related counterexample:", "Counterexample for first failing assertion:")


def split_models(text: str) -> list[str]:
    """The models in `text`: Boogie models (each from `*** MODEL` to `*** END_MODEL`, both kept), or,
    when there is none, Dafny 3/4 counterexample blocks (each from its heading on)."""
    if MODEL_BEGIN in text:
        return split_boogie_models(text)
    blocks: list[str] = []
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.strip().startswith(COUNTEREXAMPLE_HEADINGS):
            if lines:
                blocks.append("".join(lines))
            lines = [line]
        elif lines:
            lines.append(line)
    if lines:
        blocks.append("".join(lines))
    return blocks


def split_boogie_models(text: str) -> list[str]:
    """The complete Boogie models of a `/mv:` file, in order (a model cut short is left out)."""
    found: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped == MODEL_BEGIN:
            current = [line]
        elif current is not None:
            current.append(line)
            if stripped == MODEL_END:
                found.append("".join(current))
                current = None
    return found


def console_counterexamples(output: str, file_name: str) -> list[tuple[list[int], str]]:
    """The counterexample blocks of a Dafny 3/4 console output, each with the lines of `file_name` its
    states are at (for attributing it to a method) and its text."""
    found: list[tuple[list[int], str]] = []
    block: list[str] | None = None
    lines: list[int] = []

    def close() -> None:
        if block is not None and lines:
            found.append((list(lines), "".join(block)))

    for raw in output.splitlines(keepends=True):
        text = raw.strip()
        if text.startswith(COUNTEREXAMPLE_HEADINGS):
            close()
            block, lines = [text + "\n"], []
            continue
        if block is None:
            continue
        state = STATE_AT.match(text)
        if state:
            if state.group(1).replace("\\", "/").rsplit("/", 1)[-1] != file_name:
                block = None  # a state in another file: not ours
                continue
            lines.append(int(state.group(2)))
            block.append(text + "\n")
        elif text.startswith(("WARNING:", "Temporary variables", "ghost var ", "assume ")) or (
            lines and TYPED_LINE.match(text)
        ):
            block.append(text + "\n")
        else:
            close()
            block = None
    close()
    return found
