"""A background check in one batch with harness methods (`verify_batch`'s `background`), with the real Dafny 2.x, on
the command line and on a server: the check's result is the one a batch of its own gives, word for word (a helper
lemma that fails, a loop Dafny trusts, with the harness's own warning and failures left out), and each harness
method's result is the one a batch without the check gives."""

from __future__ import annotations

import pytest

from bot.symbolic.background import BACKGROUND_METHOD, BACKGROUND_NAME
from bot.symbolic.program import Outcome
from bot.verifier import Dafny2Backend, DafnyServerBackend, VerifierInfo, detect, make_backend
from bot.verifier.process import KILLED

PRELUDE = """lemma Wrong(x: int)
  ensures x > 0
{
}

function Double(x: int): int
  ensures Double(x) == 2 * x
{
  x + x
}

method Count(n: nat) returns (r: nat)
  ensures r == n
{
  r := n;
  while r < n
}
"""
CHECKS = ("Count", "Double", "Wrong")
HARNESS = [
    ("SpecScore_ok", "method SpecScore_ok() { assert Double(2) == 4; }"),
    ("SpecScore_no", "method SpecScore_no() { assert Double(2) == 5; }"),
    # a loop without a body in a harness method: a warning on the harness's lines, not the checked declarations'
    ("SpecScore_warns", "method SpecScore_warns() { var i := 0; while i < 3 }"),
]


def _dafny2(dafny_command: str) -> VerifierInfo:
    info = detect(dafny_command)
    if info.major > 2:
        pytest.skip("Dafny 2.x's command line only")
    return info


def _apart(backend: Dafny2Backend | DafnyServerBackend) -> tuple[dict[str, object], dict[str, object]]:
    alone = backend.verify_batch(PRELUDE, [(BACKGROUND_NAME, BACKGROUND_METHOD)], 20, checks=CHECKS)
    harness = backend.verify_batch(PRELUDE, HARNESS, 20)
    return ({n: (r.outcome, r.message) for n, r in alone.items()},
            {n: (r.outcome, r.message) for n, r in harness.items()})


def _together(backend: Dafny2Backend | DafnyServerBackend) -> dict[str, object]:
    found = backend.verify_batch(PRELUDE, [(BACKGROUND_NAME, BACKGROUND_METHOD), *HARNESS], 20, checks=CHECKS,
                                 background=BACKGROUND_NAME)
    return {n: (r.outcome, r.message) for n, r in found.items()}


@pytest.mark.dafny
def test_a_check_beside_harness_methods_answers_as_alone_on_the_command_line(dafny_command: str) -> None:
    backend = Dafny2Backend(_dafny2(dafny_command))
    alone, harness = _apart(backend)
    outcome, message = alone[BACKGROUND_NAME]  # type: ignore[misc]
    assert outcome is Outcome.REFUTED
    assert "check Wrong: failed: " in message and "check Double: ok" in message
    assert "has no body" in message  # Count's loop, which Dafny trusts
    assert harness["SpecScore_ok"][0] is Outcome.VERIFIED  # type: ignore[index]
    assert harness["SpecScore_no"][0] is Outcome.REFUTED  # type: ignore[index]
    assert _together(backend) == {**harness, **alone}


@pytest.mark.dafny
def test_a_check_beside_harness_methods_answers_as_alone_on_a_server(dafny_command: str) -> None:
    dafny = _dafny2(dafny_command)
    server = make_backend(dafny, reuse=True)
    if not isinstance(server, DafnyServerBackend):
        pytest.skip("no Dafny.exe behind this `dafny`, or no mcs: no server")
    try:
        alone, harness = _apart(Dafny2Backend(dafny))
        assert _together(server) == {**harness, **alone}
        assert server.server_pids(), "the batch went to the command line, not to a server"
    finally:
        server.close()


@pytest.mark.dafny
def test_a_mixed_batch_killed_at_its_wall_leaves_the_check_a_transient_time_out(dafny_command: str) -> None:
    backend = Dafny2Backend(_dafny2(dafny_command))
    found = backend.verify_batch(PRELUDE, [(BACKGROUND_NAME, BACKGROUND_METHOD), *HARNESS], 20, checks=CHECKS,
                                 wall=0.05, background=BACKGROUND_NAME)
    assert found[BACKGROUND_NAME].outcome is Outcome.TIMEOUT
    assert found[BACKGROUND_NAME].message.startswith(KILLED)
