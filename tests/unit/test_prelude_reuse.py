"""The relay's prelude reuse: z3 must hold, at every check, exactly the commands Boogie sent for it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bot.verifier.output import FRESH_FILE
from bot.verifier.prelude_reuse import PING, REASON, AnswerWatch, PreludeReuse, check_name, common_commands
from bot.verifier.server import _fresh_checks
from support.smt import held_at_checks, sent_since_reset_at_checks

OPTIONS = [b"(set-option :print-success false)\n", b"(set-option :TIMEOUT 20000)\n"]
AXIOMS = [b"(declare-fun f (Int) Int)\n", b"(assert (forall ((x Int)) (! (> (f x) 0)\n :qid |q1|\n)))\n",
          b"(declare-fun g () Int)\n", b"(assert (= g 3))\n"]


def check(name: str, extra: list[bytes] | None = None, axioms: list[bytes] = AXIOMS) -> list[bytes]:
    """One of Boogie's checks after a reset: the prelude, its own declarations, then the scoped VC."""
    own = [f"(declare-fun {name} () Int)\n".encode(), f"(assert (= (type {name}) 1))\n".encode()]
    # Boogie asks z3's name before each of its questions
    return [*OPTIONS, *axioms, *(extra or []), *own, b"(push 1)\n", vc_id(name),
            f"(assert (not (> (f {name}) 0)))\n".encode(), NAME, b"(check-sat)\n", NAME, b"(labels)\n",
            b"(pop 1)\n"]


NAME = b"(get-info :name)\n"


def vc_id(name: str) -> bytes:
    return f"(set-info :boogie-vc-id Impl$$_module.__default.{name})\n".encode()


def stream(*checks: list[bytes]) -> list[bytes]:
    out: list[bytes] = [b"(get-info :name)\n"]
    for k, lines in enumerate(checks):
        out += ([b"(reset)\n"] if k else []) + lines
    return out


def relayed(lines: list[bytes], fresh: frozenset[bytes] = frozenset()) -> bytes:
    r = PreludeReuse(fresh)
    return b"".join(r.feed(line) for line in lines)


def test_the_shared_prelude_is_sent_once_and_each_check_holds_what_boogie_sent() -> None:
    lines = stream(check("a"), check("b"), check("c"), check("d"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    assert sent.count(AXIOMS[1]) == 2  # the first whole, the second sets the shared part; then never again
    assert sent.count(b"(reset)") == 1
    # each check's own scope stays open after Boogie's, as its part stayed at level 0 in Boogie's stream, and
    # closes when the next prelude comes
    assert sent.count(b"(pop 1)\n(push 1)\n") == 2 and sent.endswith(b"(labels)\n(pop 1)\n")


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
    lines = stream(check("a"), check("b"))
    # said after the second check's pop and before the next reset: the next prelude may not be reused
    lines += [b"(assert (= g 5))\n", b"(reset)\n", *check("c"), b"(reset)\n", *check("d")]
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


def test_after_a_check_z3_holds_what_boogie_left_at_level_0() -> None:
    # a check at level 0 after Boogie's scope closed: the check's own part is still there, as in Boogie's stream
    lines = stream(check("a"), check("b"), [*check("c"), b"(check-sat)\n"], check("d"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))


def plain(lines: list[bytes]) -> bytes:
    """What z3 gets when the relay gives up at the first line it does not trust: Boogie's stream, as sent (the
    prelude held back sent first, then the rest)."""
    return b"".join(lines)


def test_a_scope_command_spelt_otherwise_sends_the_rest_as_boogie_sent_it() -> None:
    for odd in (b"(push)\n", b"( pop 1)\n", b"(push  1)\n", b"(reset )x\n", b"(pop 0)\n"):
        lines = stream(check("a"), check("b"))
        lines.insert(len(lines) - 2, odd)  # inside b's scope
        lines += [b"(reset)\n", *check("c"), b"(reset)\n", *check("d")]
        sent = relayed(lines)
        tail = b"".join(lines[len(lines) - 2 - len(check("c")) - len(check("d")) - 2:])
        assert sent.endswith(tail), odd  # from the odd line on: exactly Boogie's stream, resets included


def test_a_quote_that_does_not_end_on_its_line_sends_the_rest_as_boogie_sent_it() -> None:
    for odd in (b"(assert (! true :qid |a\n", b'(echo "(pop 1)\n'):
        lines = [*OPTIONS, odd, b"(pop 1)\n", b')|))\n', *check("a")[2:], b"(reset)\n", *check("b")]
        assert relayed(lines) == plain(lines), odd


def test_a_quote_over_several_lines_of_a_check_is_sent_as_boogie_sent_it() -> None:
    # a symbol quoted over three lines, the middle one a reset to the eye: z3 reads one symbol
    c = check("c")
    at = c.index(b"(check-sat)\n")
    c[at:at] = [b"(assert (! true :qid |x\n", b"(reset)\n", b"y|))\n"]
    lines = stream(check("a"), check("b"), c, check("d"))
    sent = relayed(lines)
    assert sent.endswith(b"".join(lines[lines.index(b"(assert (! true :qid |x\n"):]))


def test_parentheses_in_quoted_symbols_are_not_counted() -> None:
    quoted = [b"(assert (forall ((x Int)) (! (> (f x) 0)\n", b" :qid |q)))|\n", b" :skolemid |1|\n", b")))\n"]
    first = [*OPTIONS, b"(declare-fun f (Int) Int)\n"]
    checks = [[*first, *quoted, f"(declare-fun {v} () Int)\n".encode(), f"(assert (= {v} 1))\n".encode(),
               b"(push 1)\n", f"(assert (not (= {v} 1)))\n".encode(), b"(check-sat)\n", b"(pop 1)\n"]
              for v in ("b", "c", "d")]
    lines = stream(*checks)
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    # the shared part ends after the quantifier (its quoted `)))` counted for nothing), before `b`'s declaration
    assert sent.count(b" :qid |q)))|") == 2
    assert sent.count(b"(push 1)\n(declare-fun d () Int)\n") == 1
    assert common_commands(quoted, quoted) == 4 and common_commands(quoted[:2], quoted[:2]) == 0


def passes_through_from(lines: list[bytes], odd: bytes) -> bool:
    """Whether everything from the line `odd` on reached z3 exactly as Boogie sent it."""
    return relayed(lines).endswith(b"".join(lines[lines.index(odd):]))


def test_more_pops_than_pushes_sends_the_rest_as_boogie_sent_it() -> None:
    # the extra pop is z3's error in Boogie's stream; through the relay it would close the relay's own scope
    lines = stream(check("a"), check("b"))
    extra = len(lines)
    lines += [b"(pop 1)\n", b"(assert (> g 5))\n", b"(reset)\n", *check("c")]
    assert relayed(lines).endswith(b"".join(lines[extra:]))


def test_a_carriage_return_that_ends_no_line_sends_the_rest_as_boogie_sent_it() -> None:
    b = check("b")
    b[-1:] = [b"; x\r", b"(pop 1)\n"]  # z3 reads on to the `\n`: the comment swallows what looks like a pop
    lines = stream(check("a"), b, check("c"), check("d"))
    assert passes_through_from(lines, b"; x\r")


def test_an_escaped_bar_sends_the_rest_as_boogie_sent_it() -> None:
    c = check("c")
    c.insert(c.index(b"(check-sat)\n"), b"(assert (! true :named |x\\|))\n")
    lines = stream(check("a"), check("b"), c, check("d"))
    assert passes_through_from(lines, b"(assert (! true :named |x\\|))\n")


def test_a_scope_command_begun_on_the_line_before_sends_the_rest_as_boogie_sent_it() -> None:
    c = check("c")
    c[c.index(b"(pop 1)\n"):] = [b"(\n", b"pop 1)\n"]
    lines = stream(check("a"), check("b"), c, check("d"))
    assert passes_through_from(lines, b"pop 1)\n")


def test_an_option_set_in_a_check_is_set_back_by_the_next_prelude() -> None:
    b = check("b")
    b.insert(b.index(b"(check-sat)\n"), b"(set-option :TIMEOUT 1)\n")  # options outlive scopes
    lines = stream(check("a"), b, check("c"), check("d"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    after = sent[sent.index(b"(set-option :TIMEOUT 1)\n"):]
    assert after.count(b"(reset)") == 1 and OPTIONS[1] in after  # c's prelude again, its options with it


def test_an_empty_prelude_does_not_end_the_reuse() -> None:
    lines = stream(check("a"), check("b"), [b"(push 1)\n", b"(check-sat)\n", b"(pop 1)\n"],
                   check("c"), check("d"), check("e"))
    sent = relayed(lines)
    assert held_at_checks(sent) == held_at_checks(b"".join(lines))
    # a whole, b shared, c whole after the empty one, d shared again: e reuses it
    assert sent.count(AXIOMS[1]) == 4 and sent.endswith(b"".join(check("e")[len(OPTIONS) + len(AXIOMS):]))


def test_a_command_z3_answers_is_never_held_back_with_a_prelude() -> None:
    for answered in (b"(check-sat )\n", b"(check-sat-assuming (p))\n", b"(eval g)\n", b"(simplify g)\n",
                     b"(echo \"x\")\n"):
        r = PreludeReuse()
        assert r.feed(OPTIONS[0]) == b""
        assert r.feed(answered).endswith(answered), answered  # sent at once, after what was held back


def test_a_prelude_z3_would_read_otherwise_goes_as_boogie_sent_it() -> None:
    # a carriage return ending no line in a prelude: z3 would read the relay's `(push 1)` after the shared part as
    # the rest of that comment, and the check's own part would stay at level 0
    for odd in (b"; x\r", b"(assert (! true :qid |a\n", b"; (pop 1)\n"):
        tail = [b"b|))\n"] if b"|" in odd else []
        lines = stream(*(check(v, [odd, *tail]) for v in "abc"))
        assert relayed(lines) == b"".join(lines), odd


# ---------------------------------------------------------------------------------------------------
# Checks whose models are read: answered as after Boogie's own prelude

INCOMPLETE = b'(:reason-unknown "smt tactic failed to show goal to be sat/unsat (incomplete quantifiers)")\n'
TIMEOUT = b'(:reason-unknown "timeout")\n'
PONG = b'(:name "Z3")\n'


def relayed_with_answers(lines: list[bytes], fresh: frozenset[bytes],
                         answers: dict[bytes, bytes]) -> tuple[bytes, list[int]]:
    """z3's input through the relay, z3 answering each watched check as `answers` says (`unsat`, `sat`,
    `unknown`, or `timeout`: `unknown` for lack of time); and the checks whose answers Boogie did not get (their
    index among z3's checks)."""
    reuse = PreludeReuse(fresh)
    out: list[bytes] = []
    unseen: list[int] = []
    checks = 0
    name = None
    for line in lines:
        name = check_name(line) or name
        sent = reuse.feed(line)
        out.append(sent)
        checks += sent.count(b"(check-sat)")
        replay = reuse.take_watch()
        if replay is None:
            continue
        assert name is not None
        answer = answers[name]
        watch = AnswerWatch(reuse, replay)
        to_boogie, to_z3 = watch.read(b"unknown\n" if answer == b"timeout" else answer + b"\n")
        if to_z3 == REASON + PING:
            assert watch.read(TIMEOUT if answer == b"timeout" else INCOMPLETE) == (b"", b"")
            to_boogie, to_z3 = watch.read(PONG)
        if to_z3:
            assert to_boogie == b"" and to_z3.endswith(b"(check-sat)\n" + PING)
            unseen.append(checks - 1)
            out.append(to_z3)
            checks += 1
            assert watch.read(b"sat\n") == (b"sat\n", b"")
            to_boogie, to_z3 = watch.read(PONG)
            to_boogie = b"sat\n"
        assert watch.done and to_z3 == b"" and to_boogie.strip() in (b"sat", b"unsat", b"unknown")
    return b"".join(out), unseen


def seen(held: list[Any], unseen: list[int]) -> list[Any]:
    return [h for k, h in enumerate(held) if k not in unseen]


def test_a_check_whose_model_is_read_is_answered_after_what_boogie_sent_since_its_reset() -> None:
    lines = stream(check("a"), check("b"), check("c"), check("d"), check("e"))
    boogie = b"".join(lines)
    sent, unseen = relayed_with_answers(lines, frozenset({b"c"}), {b"c": b"sat"})
    assert unseen == [2]  # c's answer from the kept prelude, not shown to Boogie
    assert seen(held_at_checks(sent), unseen) == held_at_checks(boogie)
    z3 = seen(sent_since_reset_at_checks(sent), unseen)
    assert z3[2] == sent_since_reset_at_checks(boogie)[2]  # c answered (and its model) after a reset, as Boogie sent
    assert sent.count(AXIOMS[1]) == 4  # a whole, b sets the shared part, c's replay, d sets it again
    assert sent.count(b"(reset)") == 3


def test_a_proof_needs_no_replay_and_a_time_out_gets_none() -> None:
    lines = stream(check("a"), check("b"), check("c"), check("d"))
    for answer in (b"unsat", b"timeout"):
        sent, unseen = relayed_with_answers(lines, frozenset({b"c"}), {b"c": answer})
        assert unseen == [] and sent == relayed(lines)
    sent, unseen = relayed_with_answers(lines, frozenset({b"c"}), {b"c": b"unknown"})
    assert unseen == [2]  # unknown for incomplete quantifiers: a counterexample Boogie reads, replayed


def test_a_check_whose_prelude_went_whole_is_not_replayed() -> None:
    lines = stream(check("a"), check("b"))
    sent, unseen = relayed_with_answers(lines, frozenset({b"a"}), {})
    assert unseen == [] and sent_since_reset_at_checks(sent)[0] == sent_since_reset_at_checks(b"".join(lines))[0]


def test_a_scope_not_followed_by_a_checks_name_is_reused_as_without_fresh_checks() -> None:
    lines = stream(check("a"), check("b"), check("c"))
    unnamed = [line for line in lines if not line.startswith(b"(set-info")]
    assert relayed(unnamed, frozenset({b"b"})) == relayed(unnamed)
    assert relayed(lines, frozenset({b"x"})) == relayed(lines)


def test_another_answer_or_a_scope_before_the_check_ends_its_record() -> None:
    for extra in (b"(get-info :all-statistics)\n", b"(push 1)\n", b"(check-sat-assuming (p))\n"):
        lines = stream(check("a"), check("b"), check("c"))
        k = lines.index(vc_id("c")) + 1
        reuse = PreludeReuse(frozenset({b"c"}))
        for line in [*lines[:k], extra, *lines[k:]]:
            reuse.feed(line)
            assert reuse.take_watch() is None, extra


def test_a_checks_name_is_the_last_part_of_boogies_name() -> None:
    assert check_name(b"(set-info :boogie-vc-id Impl$$_module.__default.SpecScore__9a)\n") == b"SpecScore__9a"
    assert check_name(b"(set-info :boogie-vc-id CheckWellformed$$M.C.f)\r\n") == b"f"
    assert check_name(b"(set-info :boogie-vc-id |Impl$$x|)\n") is None
    assert check_name(b"(push 1)\n") is None


def test_the_watch_passes_on_what_z3_says_besides_the_answer() -> None:
    watch = AnswerWatch(PreludeReuse(), b"(reset)\nREPLAY\n(check-sat)\n")
    error = b'(error "line 17 column 31: unknown parameter \'model_compress\'")\n'
    assert watch.read(b"unknown\n") == (b"", REASON + PING)
    assert watch.read(b'(:reason-unknown "two\n') == (b"", b"")  # a reason of two lines: read up to z3's name
    assert watch.read(b'lines")\n') == (b"", b"")
    assert watch.read(PONG) == (b"", b"(reset)\nREPLAY\n(check-sat)\n" + PING)
    assert watch.read(error) == (error, b"") and not watch.done  # the replayed prelude's own
    assert watch.read(b"sat\n") == (b"sat\n", b"")
    assert watch.read(PONG) == (b"", b"") and watch.done  # the relay's own question: not Boogie's


def test_a_refused_check_ends_the_watch_and_an_exact_reason_is_a_time_out() -> None:
    # Boogie waits for z3's name before its `(check-sat)`: an error after it is the check's
    watch = AnswerWatch(PreludeReuse(), b"REPLAY")
    assert watch.read(b'(error "line 3: unknown constant x")\n') == (b'(error "line 3: unknown constant x")\n', b"")
    assert watch.done
    for reason, replayed in ((b"timeout", False), (b"(resource limits reached)", False), (b"canceled", False),
                             (b"timeout or something", True), (b"(incomplete quantifiers)", True)):
        watch = AnswerWatch(PreludeReuse(), b"REPLAY")
        watch.read(b"unknown\n")
        watch.read(b'(:reason-unknown "%s")\n' % reason)
        assert watch.read(PONG) == ((b"", b"REPLAY" + PING) if replayed else (b"unknown\n", b"")), reason


def test_random_streams_with_fresh_checks_answer_those_as_after_boogies_prelude() -> None:
    rng = random.Random(11)
    for _ in range(300):
        checks = []
        for k in range(rng.randint(1, 6)):
            extra = [b"(assert (= g %d))\n" % rng.randint(0, 2)] if rng.random() < 0.3 else []
            lines = check(f"v{k}", extra)
            if rng.random() < 0.15:
                lines = lines[:-1]  # a scope left open at the reset
            if rng.random() < 0.1:
                lines.append(b"(get-model)\n")
            checks.append(lines)
        names = [b"v%d" % k for k in range(len(checks))]
        fresh = frozenset(n for n in names if rng.random() < 0.4)
        answers = {n: rng.choice([b"sat", b"unsat", b"unknown", b"timeout"]) for n in names}
        lines = stream(*checks)
        boogie = b"".join(lines)
        sent, unseen = relayed_with_answers(lines, fresh, answers)
        assert seen(held_at_checks(sent), unseen) == held_at_checks(boogie)
        z3 = seen(sent_since_reset_at_checks(sent), unseen)
        for k, name in enumerate(names):
            if name in fresh and answers[name] in (b"sat", b"unknown"):
                assert z3[k] == sent_since_reset_at_checks(boogie)[k]


def checked(name: str, procedure: str) -> list[bytes]:
    """One procedure of a checked declaration (a background check's: `CheckWellformed` or `Impl`)."""
    return [line.replace(b"Impl$$", procedure.encode() + b"$$") if line.startswith(b"(set-info") else line
            for line in check(name)]


def test_a_checked_declarations_failed_procedure_is_answered_after_what_boogie_sent_since_its_reset(
    tmp_path: Path,
) -> None:
    # the suggestion's implementation check: the method's well-formedness, its body, then the background method.
    # Boogie names a failed assertion from z3's labels, which come from z3's model: the body's check, not proved,
    # goes again as Boogie sent it (on a kept prelude, z3 answered `unknown` with other labels for the same formula)
    (tmp_path / FRESH_FILE).write_text("SpecScore__pin\n")  # a model read in the same batch keeps its name
    _fresh_checks(str(tmp_path), ["Find_x"])
    fresh = frozenset((tmp_path / FRESH_FILE).read_bytes().split())  # as the relay reads it
    assert fresh == {b"SpecScore__pin", b"Find__x", b"Find__x_h"}
    lines = stream(checked("Find__x", "CheckWellformed"), checked("Find__x", "Impl"), check("SpecScoreBackground"))
    boogie = b"".join(lines)
    assert relayed_with_answers(lines, frozenset(), {})[1] == []  # without the names: answered from the kept prelude
    sent, unseen = relayed_with_answers(lines, fresh, {b"Find__x": b"unknown"})
    assert unseen == [1]
    assert seen(held_at_checks(sent), unseen) == held_at_checks(boogie)
    assert seen(sent_since_reset_at_checks(sent), unseen)[1] == sent_since_reset_at_checks(boogie)[1]
    # proved: nothing sent again
    assert relayed_with_answers(lines, fresh, {b"Find__x": b"unsat"}) == (relayed(lines, fresh), [])


ODD_LINES = [b"(push)\n", b"( pop 1)\n", b"(push  1)\n", b"(reset )x\n", b"(assert (! true :qid |a\n", b'(echo "x\n',
             b"; x\r", b"(assert (! true :named |x\\|))\n", b"(\n", b"pop 1)\n", b"  (push 1)\n",
             b"\t(get-info :name)\n",
             b"(set-option :TIMEOUT 1)\n", b"(get-model)\n", b"(check-sat)\n", b"(exit)\n", b" :qid |q)))|\n",
             b"(assert (= g 3))\r\n", b"(declare-fun h () Int)\r\n", b"(push 1)\r\n", b"(reset)\r\n"]


def fed_by_pieces(lines: list[bytes], fresh: frozenset[bytes], cuts: list[int]) -> list[bytes]:
    """What the relay sends, in order, with its watches: the stream in chunks cut after the lines `cuts` names (the
    last chunk need not end a line), each fed as `pieces` gives it (as the relay does)."""
    r = PreludeReuse(fresh)
    text = b"".join(lines)
    bounds = sorted({0, *(len(b"".join(lines[:k])) for k in cuts), len(text)})
    out: list[bytes] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        for piece in r.pieces(text[start:end]):
            out.append(r.feed(piece))
            watch = r.take_watch()
            if watch is not None:
                out.append(b"<watch>" + watch)
    return out


def fed_by_lines(lines: list[bytes], fresh: frozenset[bytes]) -> list[bytes]:
    r = PreludeReuse(fresh)
    out: list[bytes] = []
    for line in b"".join(lines).splitlines(keepends=True):
        out.append(r.feed(line))
        watch = r.take_watch()
        if watch is not None:
            out.append(b"<watch>" + watch)
    return out


def test_a_stream_fed_in_pieces_is_sent_as_when_fed_line_by_line() -> None:
    # the relay feeds the lines a held-back prelude only stores as one piece: what z3 gets, and when, is the same
    rng = random.Random(5)
    for _ in range(400):
        checks = []
        for k in range(rng.randint(1, 5)):
            lines = check(f"v{k}", [b"(assert (= g %d))\n" % rng.randint(0, 2)] if rng.random() < 0.3 else [])
            for _ in range(rng.choice([0, 0, 1, 2])):
                lines.insert(rng.randrange(len(lines) + 1), rng.choice(ODD_LINES))
            if rng.random() < 0.2:
                lines = [line.replace(b"\n", b"\r\n") for line in lines]
            checks.append(lines)
        lines = stream(*checks)
        if rng.random() < 0.3:
            lines[-1] = lines[-1].rstrip(b"\n")  # the stream's last line, unended
        fresh = frozenset(b"v%d" % k for k in range(len(checks)) if rng.random() < 0.4)
        cuts = sorted(rng.sample(range(1, len(lines)), min(len(lines) - 1, rng.randint(0, 4))))
        assert b"".join(fed_by_pieces(lines, fresh, cuts)) == b"".join(fed_by_lines(lines, fresh))
        assert [o for o in fed_by_pieces(lines, fresh, cuts) if o.startswith(b"<watch>")] == \
            [o for o in fed_by_lines(lines, fresh) if o.startswith(b"<watch>")]


def test_a_held_back_preludes_lines_go_as_one_piece() -> None:
    r = PreludeReuse()
    text = b"".join(stream(check("a"), check("b")))
    pieces = list(r.pieces(text))
    assert b"".join(pieces) == text
    assert len(pieces) < len(text.splitlines()) / 2  # the prelude's lines, stored whole
