"""The relay's prelude reuse on what Dafny 2.3's Boogie really sends z3 (its prover log), answered by the real z3."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.verifier import Dafny2Backend, detect
from bot.verifier.output import FILE_NAME, mangle
from bot.verifier.prelude_reuse import PING, REASON, AnswerWatch, PreludeReuse
from support.smt import held_at_checks, sent_since_reset_at_checks

PRELUDE = "function F(x: int): int { x + 1 }\npredicate P(s: seq<int>) { forall i :: 0 <= i < |s| ==> s[i] > 0 }\n"
METHODS = [
    ("SpecScore_a", "method SpecScore_a() {\n  assert F(2) == 3;\n}"),
    ("SpecScore_b", "method SpecScore_b(s: seq<int>)\n  requires s == [1, 2]\n{\n  assert P(s);\n}"),
    ("SpecScore_c", "method SpecScore_c(x: int) returns (r: int)\n  ensures r > x\n{\n  r := x;\n}"),
    ("SpecScore_d", "method SpecScore_d(a: array<int>)\n  requires a.Length == 2\n  modifies a\n"
                    "  ensures a[0] == 5\n{\n  a[0] := 5;\n}"),
    ("SpecScore_e", "method SpecScore_e(x: int)\n{\n  assume {:axiom} x == 3;\n  assert false;\n}"),
]
ANSWER = re.compile(rb"^(sat|unsat|unknown)\s*$", re.MULTILINE)


def _z3() -> str:
    found = shutil.which("z3")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("z3 is not on PATH (Debian's dafny package installs it)")
        pytest.skip("no z3 on PATH")
    return found


@pytest.mark.dafny
def test_the_relay_sends_the_shared_prelude_once_and_z3_answers_every_check_the_same(
    dafny_command: str, tmp_path: Path
) -> None:
    info = detect(dafny_command)
    if info.major > 2:
        pytest.skip("Dafny 2.x's Boogie only")
    argv = Dafny2Backend(info).command([n for n, _ in METHODS], 10, "report.xml")
    (tmp_path / FILE_NAME).write_text(PRELUDE + "\n".join(t for _, t in METHODS) + "\n")
    log = tmp_path / "z3.smt2"
    subprocess.run([*argv[:-1], f"/proverLog:{log}", FILE_NAME], cwd=tmp_path, capture_output=True, timeout=300,
                   check=False)
    sent = log.read_bytes()
    assert sent.count(b"(reset)") == len(METHODS) - 1  # Boogie's prelude before every check: what is reused
    reuse = PreludeReuse()
    relayed = b"".join(reuse.feed(line) for line in sent.splitlines(keepends=True))

    assert held_at_checks(relayed) == held_at_checks(sent)
    assert len(relayed) * 2 < len(sent)  # the shared part went once or twice, not five times
    assert relayed.count(b"(reset)") <= 2

    # c's counterexample is read: z3's answer from the kept prelude is not unsat, so the check goes again as Boogie
    # sent it, from a reset; the checks after it share the prelude again
    fresh = PreludeReuse(frozenset({mangle("SpecScore_c").encode()}))
    parts = []
    for line in sent.splitlines(keepends=True):
        parts.append(fresh.feed(line))
        replay = fresh.take_watch()
        if replay is not None:
            watch = AnswerWatch(fresh, replay)
            assert watch.read(b"unknown\n") == (b"", REASON + PING)
            assert watch.read(b'(:reason-unknown "(incomplete quantifiers)")\n') == (b"", b"")
            parts.append(watch.read(b'(:name "Z3")\n')[1])
    fresh_relayed = b"".join(parts)
    held = held_at_checks(fresh_relayed)
    assert held[:2] + held[3:] == held_at_checks(sent)  # the third check is the one answered from the kept prelude
    checks = sent_since_reset_at_checks(fresh_relayed)
    checks = checks[:2] + checks[3:]
    assert [ours == theirs for ours, theirs in zip(checks, sent_since_reset_at_checks(sent), strict=True)] == [
        True, False, True, False, False]  # a: nothing shared yet; c: replayed

    z3 = _z3()
    answers = []
    for data in (sent, relayed, fresh_relayed):
        path = tmp_path / "in.smt2"
        path.write_bytes(data)
        done = subprocess.run([z3, str(path)], capture_output=True, timeout=300, check=False)
        answers.append(ANSWER.findall(done.stdout))
    assert len(answers[0]) == len(METHODS)
    assert answers[1] == answers[0] == answers[2][:2] + answers[2][3:]
    assert answers[2][2] != b"unsat"  # the answer the replay stands for
    assert answers[0].count(b"unsat") == 3  # a, b and d proved; c and the vacuity probe e not
