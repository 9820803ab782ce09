"""A checked declaration's procedures through the relay's prelude reuse (the real Dafny and z3): the suggestion's
implementation check of examples/shared_elements.dfy, whose body z3 does not prove (`unknown`, incomplete
quantifiers). Boogie names the failed assertion from z3's labels, which come from z3's model: z3 keeping the prelude
answers the same formula alike but with other labels, so the check is sent again as Boogie sent it."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.symbolic.background import BACKGROUND_METHOD, BACKGROUND_NAME
from bot.verifier import Dafny2Backend, DafnyServerBackend, VerifierInfo, detect, make_backend
from bot.verifier.output import FILE_NAME, FRESH_FILE, Layout
from bot.verifier.prelude_reuse import PING, REASON, AnswerWatch, PreludeReuse
from bot.verifier.server import _fresh_checks
from support.smt import held_at_checks

# the example's method with the clause the search suggests for it (line 12): the loop invariants do not give it
PRELUDE = """predicate InArray(a: array<int>, x: int)
  reads a
{
  exists i :: 0 <= i < a.Length && a[i] == x
}

method SharedElements(a: array<int>, b: array<int>) returns (result: seq<int>)
  ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))
  ensures forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
  ensures forall x :: InArray(a, x) && InArray(b, x) ==> x in result
{
  result := [];
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall x :: x in result ==> InArray(a, x) && InArray(b, x)
    invariant forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
  {
    if a[i] in b[..] && a[i] !in result {
      result := result + [a[i]];
    }
    i := i + 1;
  }
}

"""
METHODS = [(BACKGROUND_NAME, BACKGROUND_METHOD)]
CHECKS = ("SharedElements",)
POSTCONDITION = "check SharedElements: failed: line 14: postcondition violation (related location: line 10)"
ANSWER = re.compile(rb"^(sat|unsat|unknown)\s*$", re.MULTILINE)
LABELS = re.compile(rb"^\(labels[^\n]*\)\s*$", re.MULTILINE)


@pytest.fixture(scope="module")
def dafny(dafny_command: str) -> VerifierInfo:
    info = detect(dafny_command)
    if info.major > 2:
        pytest.skip("Dafny 2.x's Boogie only")
    return info


@pytest.fixture(scope="module")
def server(dafny: VerifierInfo) -> Iterator[DafnyServerBackend]:
    backend = make_backend(dafny, reuse=True)
    if not isinstance(backend, DafnyServerBackend):
        pytest.skip("no Dafny.exe behind this `dafny`, or no mcs: no server")
    yield backend
    backend.close()


@pytest.mark.dafny
def test_a_failed_implementation_check_names_the_command_lines_assertion_on_a_server(
    dafny: VerifierInfo, server: DafnyServerBackend
) -> None:
    expected = Dafny2Backend(dafny).verify_batch(PRELUDE, METHODS, 20, checks=CHECKS)[BACKGROUND_NAME]
    got = server.verify_batch(PRELUDE, METHODS, 20, checks=CHECKS)[BACKGROUND_NAME]
    assert POSTCONDITION in expected.message.splitlines()
    # before: "line 15: loop invariant entry violation (related location: line 15)", a true invariant on entry
    assert (got.outcome, got.message) == (expected.outcome, expected.message)
    assert server.server_pids(), "the batch went to the command line, not to a server"


def _z3(path: Path, data: bytes) -> bytes:
    z3 = shutil.which("z3")
    assert z3 is not None, "z3 is not on PATH (Debian's dafny package installs it)"
    path.write_bytes(data)
    return subprocess.run([z3, str(path)], capture_output=True, timeout=300, check=False).stdout


@pytest.mark.dafny
def test_the_kept_prelude_holds_boogies_formula_and_only_the_labels_differ(dafny: VerifierInfo, tmp_path: Path) -> None:
    argv = Dafny2Backend(dafny).command([BACKGROUND_NAME], 20, "report.xml", checks=CHECKS)
    (tmp_path / FILE_NAME).write_text(Layout.build(PRELUDE, METHODS).text, encoding="utf-8")
    log = tmp_path / "z3.smt2"
    subprocess.run([*argv[:-1], f"/proverLog:{log}", FILE_NAME], cwd=tmp_path, capture_output=True, timeout=300,
                   check=False)
    sent = log.read_bytes()
    assert [m.decode() for m in re.findall(rb"boogie-vc-id (\S+)\$\$", sent)] == [
        "CheckWellformed", "Impl", "Impl"]  # the method's two procedures, then the background method
    lines = sent.splitlines(keepends=True)
    reuse = PreludeReuse()
    kept = b"".join(reuse.feed(line) for line in lines)
    assert held_at_checks(kept) == held_at_checks(sent)  # the same formula at every check: no soundness question

    # the relay as the server runs it: the batch's folder names the checked declaration (FRESH_FILE)
    _fresh_checks(str(tmp_path), CHECKS)
    fresh = PreludeReuse(frozenset((tmp_path / FRESH_FILE).read_bytes().split()))
    parts = []
    for line in lines:
        parts.append(fresh.feed(line))
        replay = fresh.take_watch()
        if replay is not None:  # z3's answer on the kept prelude, as the real z3 gives it below
            watch = AnswerWatch(fresh, replay)
            assert watch.read(b"unknown\n") == (b"", REASON + PING)
            assert watch.read(b'(:reason-unknown "(incomplete quantifiers)")\n') == (b"", b"")
            parts.append(watch.read(b'(:name "Z3")\n')[1])
    replayed = b"".join(parts)

    as_sent, on_kept, with_replay = (_z3(tmp_path / "in.smt2", data) for data in (sent, kept, replayed))
    assert ANSWER.findall(as_sent) == ANSWER.findall(on_kept) == [b"unsat", b"unknown", b"unsat"]
    assert ANSWER.findall(with_replay) == [b"unsat", b"unknown", b"unknown", b"unsat"]  # kept prelude, then replay
    # the failed assertions Boogie reads: z3 on the kept prelude names one more (the loop invariant's); the
    # replay's are z3's as Boogie sent it
    assert LABELS.findall(on_kept) != LABELS.findall(as_sent)
    assert LABELS.findall(with_replay) == LABELS.findall(as_sent)
