"""What the z3 relay sends z3: Boogie's stream, without the prelude z3 already holds.

Dafny 2.3's Boogie sends `(reset)` and its whole prelude again before every check (Dafny's axioms, then the
batch's declarations and axioms, then the check's own declarations: about 4,800 lines), and z3 reads it again each
time. Measured on a batch of 33 small programs of the development audit, replaying Boogie's prover log to z3:
2.5 s as sent, 1.3 s with the part the preludes share kept at level 0 and each check's own part inside a scope, with
the same 33 answers in the same order.

So the relay keeps the longest part of the preludes that is the same from one check to the next (whole commands
only) at z3's level 0, and sends each check's rest inside a scope of its own, closed when the next prelude comes.
z3 then holds exactly the commands Boogie sent at each check and after it: only their scopes differ. The relay reads
the stream as Boogie writes it, one command or one line of a long command per line, and trusts nothing else:
- a prelude that does not start with what z3 holds, a command at level 0 besides the check's (`(check-sat)`,
  `(labels)`, ...), an option set after a prelude (options outlive scopes), a reset with a scope still open, or a
  check without a scope: that prelude is sent as Boogie sent it, reset included;
- a scope or reset command spelt otherwise than Boogie spells it or begun on the line before, more pops than
  pushes, a quoted symbol or string that does not end on its line, an escaped `|`, or a carriage return that ends
  no line: from then on, the stream goes to z3 exactly as Boogie sent it.
Boogie renames a symbol that is an SMT-LIB keyword, so no term of its own reads `(pop 1)` or `(reset)`.

A counterexample is z3's, and z3 keeping a prelude finds other ones than z3 after a reset; so are the labels Boogie
names a failed assertion by (its `(labels)` after `unknown`). So for the checks whose counterexamples or failed
assertions are read (`fresh`: their methods, named after the check's `(push 1)`), the relay keeps what Boogie
sent since the reset, and watches z3's answer (AnswerWatch): `unsat` is a proof whatever z3 held besides and goes
on; any other answer but a time-out is dropped, the check is sent again from a reset exactly as Boogie sent it, and
that answer, and the model after it, go to Boogie: those z3 gives without the relay. The next prelude sets the
shared part again. On the development audit 131 of 751 programs want their models; most are proved.

No import besides `re` and `collections.abc` (which the relay's own imports load anyway): the relay
(bot/verifier/server.py) is this module's source followed by its own.
"""

import re
from collections.abc import Iterator

_SCOPE = re.compile(rb"\((push|pop) ([1-9][0-9]*)\)")
# what Boogie says about a check; at level 0 it leaves z3's assertions as they are
_NEUTRAL = frozenset({b"(check-sat)", b"(labels)", b"(get-model)", b"(get-info :reason-unknown)",
                      b"(get-info :name)", b"(exit)"})
# commands z3 answers (Boogie may wait for the answer), which a prelude does not hold
_ANSWERED = (b"(check-sat", b"(get-", b"(echo", b"(eval", b"(simplify", b"(labels", b"(exit")
# a quoted symbol or a string ending on its line (`""` inside a string: two of them)
_QUOTED_ON_LINE = re.compile(rb'\|[^|\n]*\||"[^"\n]*"')
# z3 reads such text otherwise than line by line: a carriage return that ends no line (a comment goes on to the next
# `\n`), an escaped `|`, a scope or reset command anywhere (in a prelude) or begun on the line before
_VC_ID = re.compile(rb"\(set-info :boogie-vc-id [^\s()|]*\$\$(?:[^\s()|]*\.)?([^\s().|]+)\)")
_ODD = re.compile(rb"\r(?!\n)|\\\||\(\s*(?:push|pop|reset)\b|^\s*(?:push|pop|reset)\b", re.MULTILINE)
# a line a held-back prelude does not just store (PreludeReuse._buffer), or more (`pieces` looks no further); the
# next such line after a line end (a literal first: about five times faster than `^` on Boogie's 300 kB preludes)
_NOT_STORED_TEXT = rb"[ \t\r\x0b\x0c]*\((?:push|reset|check-sat|get-|echo|eval|simplify|labels|exit)"
_NOT_STORED = re.compile(_NOT_STORED_TEXT)
_NEXT_NOT_STORED = re.compile(rb"\n" + _NOT_STORED_TEXT)
_LONE_CR = re.compile(rb"\r(?!\n)")  # a line end of splitlines' besides `\n`


def _odd(text: bytes) -> bool:
    """Whether `text` (lines of Boogie's stream) holds what the relay does not read as z3 does: see _ODD, and a quoted
    symbol or string that does not end on its line."""
    # _ODD's alternatives one by one: a lone carriage return and `\|` are looked for as such, and the scope commands
    # only in a text that holds their words (the `^` alternative has no first character to look for: it was the
    # relay's slowest part, on Boogie's lines ended by `\r\n`)
    if _LONE_CR.search(text) or b"\\|" in text \
            or ((b"push" in text or b"pop" in text or b"reset" in text) and _ODD.search(text)):
        return True
    if b"|" not in text and b'"' not in text:
        return False
    bare = _QUOTED_ON_LINE.sub(b"", text)
    return b"|" in bare or b'"' in bare


def _balance(line: bytes) -> int | None:
    """Opened minus closed parentheses of a line, outside quoted symbols, strings and comments; None when a quote
    does not end on the line."""
    bare = _QUOTED_ON_LINE.sub(b"", line) if b"|" in line or b'"' in line else line
    if b"|" in bare or b'"' in bare:
        return None
    bare = bare.split(b";", 1)[0]
    return bare.count(b"(") - bare.count(b")")


def common_commands(a: list[bytes], b: list[bytes]) -> int:
    """How many leading lines `a` and `b` share that end at the end of a command (parentheses balanced)."""
    depth = 0
    end = 0
    for k, (x, y) in enumerate(zip(a, b, strict=False)):  # the shorter one ends what they share
        balance = _balance(x)
        if x != y or balance is None:
            break
        depth += balance
        if depth == 0:
            end = k + 1
    return end


def check_name(line: bytes) -> bytes | None:
    """The method a check is about, as Boogie names it after the check's `(push 1)`
    (`(set-info :boogie-vc-id Impl$$_module.__default.NAME)`: NAME), or None for another line."""
    found = _VC_ID.fullmatch(line.strip())
    return None if found is None else found.group(1)


class PreludeReuse:
    """Feed it Boogie's stream line by line; it returns what to send z3 for each line (often nothing).

    `fresh`: the methods (as Boogie names them) whose counterexamples are read: for a check of theirs whose prelude
    went otherwise than Boogie sent it, what Boogie sent since the reset is kept, to be sent again when z3 does not
    prove it (`take_watch`, AnswerWatch): z3 finds other counterexamples in a scope above a kept prelude."""

    def __init__(self, fresh: frozenset[bytes] = frozenset()) -> None:
        self.fresh = fresh
        self.pushed: bytes | None = None  # a check's `(push 1)`, held back until its name comes (with `fresh`)
        self.recording: list[bytes] | None = None  # what Boogie sent since the reset, for a reused `fresh` check
        self.watch: bytes | None = None  # the replay of a `fresh` check whose `(check-sat)` was fed (`take_watch`)
        self.held: bytes | None = None  # what z3 holds at level 0 besides its options, None: not known
        self.previous: list[bytes] | None = None  # the last prelude sent whole, or the shared part: what the next
        # prelude is compared with
        self.prelude: list[bytes] | None = []  # the lines since the last reset (or the start), while buffering
        self.after_reset = False  # a `(reset)` came before this prelude (the first prelude has none)
        self.depth = 0  # scopes Boogie opened
        self.own = 0  # scopes the relay opened (a check's own part), closed when the next prelude comes
        self.plain = False  # the stream is not as expected: sent as it comes from now on

    def pieces(self, text: bytes) -> Iterator[bytes]:
        """`text` (whole lines, but for the stream's last) in the pieces `feed` takes: its lines one by one, as
        `splitlines` cuts them, but a run of lines a held-back prelude only stores goes as one piece, stored whole.
        About 4,800 lines a check are such (the relay's time went on them, line by line). Lazy: whether a prelude is
        held back is looked at as each piece is taken, once the one before it was fed."""
        if _LONE_CR.search(text):  # splitlines ends a line there too: line by line, as it does
            yield from text.splitlines(keepends=True)
            return
        pos, end = 0, len(text)
        while pos < end:
            if self.prelude is not None and self.pushed is None and not self.plain \
                    and not _NOT_STORED.match(text, pos):
                found = _NEXT_NOT_STORED.search(text, pos)
                stop = end if found is None else found.start() + 1
                yield text[pos:stop]
                pos = stop
                continue
            newline = text.find(b"\n", pos)
            stop = end if newline < 0 else newline + 1
            yield text[pos:stop]
            pos = stop

    def feed(self, line: bytes) -> bytes:
        if self.plain:
            return line
        if self.prelude is not None:
            return self._buffer(line)
        out = self._line(line)
        if self.recording is not None:
            self._record(line)
        return out

    def take_watch(self) -> bytes | None:
        """The replay of a `fresh` check whose `(check-sat)` was just fed, once (see `replayed`)."""
        watch, self.watch = self.watch, None
        return watch

    def replayed(self) -> None:
        """z3 was sent the replay after its answer: it holds what Boogie sent since the reset, at the levels Boogie
        sent it; the next prelude sets the shared part again."""
        self.held, self.own = None, 0

    def _record(self, line: bytes) -> None:
        """A line of a reused `fresh` check, up to its `(check-sat)`; anything else about scopes ends the record."""
        recording = self.recording
        assert recording is not None
        command = line.strip()
        if command == b"(check-sat)":
            self.watch, self.recording = b"".join([*recording, line]), None
        elif command == b"(get-info :name)":
            pass  # Boogie asks it before each of its questions: no part of the formula, and not to be answered twice
        elif self.plain or self.prelude is not None or _SCOPE.fullmatch(command) or command.startswith(_ANSWERED):
            self.recording = None  # another answer before the check's (its replay would answer it again), a scope
        else:
            recording.append(line)

    def _line(self, line: bytes) -> bytes:
        command = line.strip()
        scope = _SCOPE.fullmatch(command)
        if command != b"(reset)" and scope is None and _odd(line):
            return self._give_up(line)
        if command == b"(reset)":
            if self.depth != 0:
                self.held = None  # Boogie's scope is still open: only a reset brings z3 back to its level 0
            self.prelude, self.after_reset, self.depth = [], True, 0
            return b""
        if scope is not None:
            self.depth += int(scope.group(2)) * (1 if scope.group(1) == b"push" else -1)
            if self.depth < 0:
                return self._give_up(line)  # more pops than pushes: z3 would take the relay's own scope
        elif command.startswith(b"(set-option"):
            self.held = None  # options outlive scopes, and only a prelude sent again sets them back
        elif self.depth == 0 and command and command not in _NEUTRAL and not command.startswith(b";"):
            self.held = None  # something else at level 0: z3 no longer holds only the prelude there
        return line

    def _give_up(self, line: bytes) -> bytes:
        """From here on, exactly what Boogie sends: a prelude held back goes first, with its reset."""
        self.plain = True
        if self.prelude is None:
            return line
        return self._whole(self.prelude) + line

    def _buffer(self, line: bytes) -> bytes:
        """A line while a prelude is held back (checked as a whole when its check's scope opens: `_push`)."""
        prelude = self.prelude
        assert prelude is not None
        if self.pushed is not None:
            pushed, self.pushed = self.pushed, None
            text = self._push(pushed)
            if check_name(line) in self.fresh and self.own and not self.plain:
                # z3 holds the prelude otherwise than Boogie sent it: what to send it again, from a reset
                self.recording = [b"(reset)\n", *prelude, pushed]
            return text + self.feed(line)
        command = line.strip()
        if command[:1] == b"(":  # (most of a prelude's lines go on a command: no need to look further)
            if command == b"(push 1)":
                if self.fresh:
                    self.pushed = line  # which check it is comes next
                    return b""
                return self._push(line)
            if command == b"(get-info :name)":
                return line  # z3's name, whatever it holds (Boogie asks it before its first prelude)
            if command == b"(reset)" or command.startswith(_ANSWERED):
                # something besides a prelude: exactly what Boogie sent, and z3's level 0 is no longer known
                self.prelude, self.held, self.previous = None, None, None
                return self._whole(prelude) + self.feed(line)
        prelude.append(line)
        return b""

    def _push(self, line: bytes) -> bytes:
        """The check's scope opens: what of the prelude z3 gets."""
        prelude = self.prelude
        assert prelude is not None
        # line ends are whitespace to z3; Boogie ends the first prelude's lines otherwise than the next's
        text = b"".join(prelude)
        text = text.replace(b"\r\n", b"\n") if b"\r" in text else text
        held = self.held if self.held is not None and text.startswith(self.held) else None
        rest = text[len(held):] if held is not None else text
        if _odd(rest):  # (the held part was checked when it was first sent)
            return self._give_up(line)
        self.prelude, self.depth = None, 1
        if held is not None:
            # z3 holds the shared part at level 0, under the previous check's own scope: that closed, the rest
            closing, self.own = self.own, 1
            return (b"(pop %d)\n" % closing if closing else b"") + b"(push 1)\n" + rest + line
        lines = text.splitlines(keepends=True)
        shared = common_commands(self.previous, lines) if self.previous is not None else 0
        if shared and shared * 2 >= len(lines):
            # a new shared part: z3 reset, the shared part at level 0, the rest in a scope
            self.held, self.previous, self.own = b"".join(lines[:shared]), lines[:shared], 1
            reset = b"(reset)\n" if self.after_reset else b""
            return reset + self.held + b"(push 1)\n" + b"".join(lines[shared:]) + line
        # nothing shared yet (the first prelude, or another one): as Boogie sent it
        self.held, self.previous = None, lines
        return self._whole(prelude) + line

    def _whole(self, prelude: list[bytes]) -> bytes:
        self.own = 0  # the reset closes every scope
        return (b"(reset)\n" if self.after_reset else b"") + b"".join(prelude)


# z3's answer to a check, alone on its line
_ANSWER = re.compile(rb"\s*(sat|unsat|unknown)\s*")
# z3 ran out of time or memory (Boogie's own list of such reasons): not a counterexample it could not confirm
_GAVE_UP = re.compile(rb'\s*\(:reason-unknown "(?:timeout|canceled|memout|max\. resource limit exceeded'
                      rb'|resource limits reached|\(resource limits reached\))"\)\s*')
REASON = b"(get-info :reason-unknown)\n"
PING = b"(get-info :name)\n"  # as Boogie does: what z3 says up to its name answers what was asked before
_PONG = b"(:name "


class AnswerWatch:
    """z3's output after a `fresh` check's `(check-sat)` (its replay: `PreludeReuse.take_watch`), line by line:
    `read` says what goes to Boogie and what to z3. `unsat` is a proof either way and goes on, and so does an error.
    Any other answer is z3's from the kept prelude: z3 is sent the replay, whose answer goes to Boogie instead, and so
    does what it answers next (the model). A time-out is not replayed (a second one would cost as much again): an
    `unknown` whose reason is time or memory goes on as it is. Each question of the relay's own ends with z3's name,
    asked after it, so the watch ends whatever z3 says."""

    def __init__(self, reuse: PreludeReuse, replay: bytes) -> None:
        self.reuse = reuse
        self.replay = replay
        self.stage = "answer"  # then "reason" (asked why `unknown`), "replayed"; "done" once answered
        self.first = b""  # the first answer, while its reason is asked
        self.reason = b""  # z3's reason, up to its name

    @property
    def done(self) -> bool:
        return self.stage == "done"

    def read(self, line: bytes) -> tuple[bytes, bytes]:
        """For one line z3 wrote: (for Boogie, for z3)."""
        if self.stage == "answer":
            word = line.strip()
            if _ANSWER.fullmatch(line) and word != b"unsat":
                if word == b"unknown":
                    self.stage, self.first = "reason", line
                    return b"", REASON + PING
                return b"", self._replay()
            if _ANSWER.fullmatch(line) or line.startswith(b"(error"):
                self.stage = "done"  # a proof, or z3 refused the check: as it is
            return line, b""
        if self.stage == "reason":
            if not line.startswith(_PONG):
                self.reason += line
                return b"", b""
            if _GAVE_UP.fullmatch(self.reason):
                self.stage = "done"
                return self.first, b""
            return b"", self._replay()
        if line.startswith(_PONG):  # "replayed": the replay's answer went on before it
            self.stage = "done"
            return b"", b""
        return line, b""  # the replay's answer, or an error about an option it sets again

    def _replay(self) -> bytes:
        self.stage = "replayed"
        self.reuse.replayed()
        return self.replay + PING
