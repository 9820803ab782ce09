"""The relay's prelude reuse: z3 must hold, at every check, exactly the commands Boogie sent for it."""

from __future__ import annotations

import random

from bot.verifier.prelude_reuse import PreludeReuse, common_commands
from support.smt import held_at_checks

OPTIONS = [b"(set-option :print-success false)\n", b"(set-option :TIMEOUT 20000)\n"]
AXIOMS = [b"(declare-fun f (Int) Int)\n", b"(assert (forall ((x Int)) (! (> (f x) 0)\n :qid |q1|\n)))\n",
          b"(declare-fun g () Int)\n", b"(assert (= g 3))\n"]


def check(name: str, extra: list[bytes] | None = None, axioms: list[bytes] = AXIOMS) -> list[bytes]:
    """One of Boogie's checks after a reset: the prelude, its own declarations, then the scoped VC."""
    own = [f"(declare-fun {name} () Int)\n".encode(), f"(assert (= (type {name}) 1))\n".encode()]
    return [*OPTIONS, *axioms, *(extra or []), *own, b"(push 1)\n",
            f"(assert (not (> (f {name}) 0)))\n".encode(), b"(check-sat)\n", b"(labels)\n", b"(pop 1)\n"]


def stream(*checks: list[bytes]) -> list[bytes]:
    out: list[bytes] = [b"(get-info :name)\n"]
    for k, lines in enumerate(checks):
        out += ([b"(reset)\n"] if k else []) + lines
    return out


def relayed(lines: list[bytes]) -> bytes:
    r = PreludeReuse()
    return b"".join(r.feed(line) for line in lines)


def test_the_shared_prelude_is_sent_once_and_each_check_holds_what_boogie_sent() -> None:
    lines = stream(check("a"), check("b"), check("c"), check("d"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    assert sent.count(AXIOMS[1]) == 2  # the first whole, the second sets the shared part; then never again
    assert sent.count(b"(reset)") == 1
    assert sent.endswith(b"(pop 1)\n(pop 1)\n")  # the check's own scope closes with Boogie's


def test_a_prelude_that_does_not_start_with_what_z3_holds_gets_a_reset() -> None:
    other = [*AXIOMS[:3], b"(assert (= g 4))\n"]  # an axiom of the shared part changed
    lines = stream(check("a"), check("b"), check("c", axioms=other), check("d", axioms=other), check("e"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    # the shared part set with b, set again (shorter) with c; e's changed axiom then goes in its own scope
    assert sent.count(b"(reset)") == 2


def test_what_follows_the_shared_part_goes_in_the_checks_scope() -> None:
    lines = stream(check("a"), check("b"), check("c", [b"(assert (= g 4))\n"]))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    assert sent.count(b"(reset)") == 1


def test_a_reset_with_a_scope_open_starts_over() -> None:
    unclosed = check("b")[:-1]  # Boogie resets without closing the check's scope (after a time-out, say)
    lines = stream(check("a"), unclosed, check("c"), check("d"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))


def test_anything_said_at_level_0_besides_the_prelude_is_not_forgotten() -> None:
    lines = stream(check("a"), check("b"), [b"(assert (= g 5))\n", *check("c")[:0]], check("c"), check("d"))
    lines = [line for line in lines if line]
    between = lines.index(b"(assert (= g 5))\n")
    # said after the second check's pop and before the next reset: the next prelude may not be reused
    lines = [*lines[:between], *lines[between + 1:]]
    lines.insert(lines.index(b"(reset)\n", lines.index(b"(declare-fun b () Int)\n")), b"(assert (= g 5))\n")
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    assert sent.count(b"(reset)") >= 2


def test_a_check_without_a_scope_is_sent_as_boogie_sent_it() -> None:
    lines = [*OPTIONS, *AXIOMS, b"(check-sat)\n", b"(reset)\n", *check("a"), b"(reset)\n", *check("b")]
    sent = relayed(lines)
    assert sent.startswith(b"".join([*OPTIONS, *AXIOMS, b"(check-sat)\n"]))
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))


def test_the_name_query_is_answered_before_the_prelude_is_sent() -> None:
    r = PreludeReuse()
    assert r.feed(OPTIONS[0]) == b""  # held back until the check's scope opens
    assert r.feed(b"(get-info :name)\n") == b"(get-info :name)\n"


def test_the_shared_part_ends_where_a_command_ends() -> None:
    a = [b"(assert (and\n", b" true\n", b" x))\n", b"(declare-fun y () Int)\n"]
    b = [b"(assert (and\n", b" true\n", b" z))\n"]
    assert common_commands(a, b) == 0  # the second line is shared, but inside a command
    assert common_commands(a, a[:3] + [b"(declare-fun q () Int)\n"]) == 3


def test_random_streams_hold_what_boogie_sent_at_every_check() -> None:
    rng = random.Random(7)
    for _ in range(300):
        checks = []
        for k in range(rng.randint(1, 6)):
            extra = [b"(assert (= g %d))\n" % rng.randint(0, 2)] if rng.random() < 0.3 else []
            lines = check(f"v{k}", extra)
            if rng.random() < 0.15:
                lines = lines[:-1]  # a scope left open at the reset
            if rng.random() < 0.1:
                lines.append(b"(assert (= g 9))\n")  # something at level 0 after the check
            if rng.random() < 0.1:
                lines.insert(rng.randrange(len(lines)), b"(get-info :reason-unknown)\n")
            checks.append(lines)
        lines = stream(*checks)
        assert held_at_checks(relayed(lines)) == held_at_checks(b"".join(lines))
