"""What the value printer writes, the real verifier reads: random literals of every supported type in one program."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from bot.dafny.types import parse_type
from bot.dafny.values import to_dafny
from support.values import ROUND_TRIP_TYPES, random_value


@pytest.mark.dafny
def test_dafny_accepts_printed_literals(dafny_command: str, tmp_path: Path) -> None:
    dafny = dafny_command
    rng = random.Random("dafny")
    lines = ["method M() {"]
    for n, type_text in enumerate(ROUND_TRIP_TYPES * 5):
        t = parse_type(type_text)
        v = random_value(t, rng)
        # Dafny 2.3 has no characters beyond the BMP
        lit = to_dafny(v, t).replace("\\U{1F600}", "x")
        var_type = type_text.replace("array", "seq")  # arrays print as their sequence literal
        lines += [f"  var x{n}: {var_type} := {lit};", f"  assert x{n} == {lit};"]
    src = tmp_path / "literals.dfy"
    src.write_text("\n".join([*lines, "}"]) + "\n", encoding="utf-8")
    cmd = [dafny, "/compile:0", "/nologo", str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
