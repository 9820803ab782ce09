"""What the z3 relay sends z3: Boogie's stream, without the prelude z3 already holds.

Dafny 2.3's Boogie sends `(reset)` and its whole prelude again before every check (Dafny's axioms, then the
batch's declarations and axioms, then the check's own declarations: about 4,800 lines), and z3 reads it again each
time. Measured on a batch of 33 small programs of the development audit, replaying Boogie's prover log to z3:
2.5 s as sent, 1.3 s with the part the preludes share kept at level 0 and each check's own part inside a scope, with
the same 33 answers in the same order.

So the relay keeps the longest part of the preludes that is the same from one check to the next (whole commands
only) at z3's level 0, and sends each check's rest inside a scope of its own, closed when Boogie closes the check's
scope. z3 then holds exactly the commands Boogie sent when it checks: only their scopes differ. When anything else
happens (a prelude that does not start with what z3 holds, a command at level 0 besides the prelude, a check
without a scope), the relay sends exactly what Boogie sent, `(reset)` included, and starts over.

No import besides `re`: the relay (bot/verifier/server.py) is this module's source followed by its own.
"""

import re

_SCOPE = re.compile(rb"\((push|pop) (\d+)\)")
# commands that leave z3's assertions as they are: said at level 0, they keep what z3 holds there
_NEUTRAL = (b";", b"(get-", b"(exit", b"(check-sat", b"(labels", b"(echo")
_NOT_PRELUDE = (b"(check-sat", b"(get-", b"(exit", b"(reset")  # besides scopes: a prelude is over before them


def _balance(line: bytes) -> int:
    # symbols and comments in Boogie's stream hold no parentheses: counting them finds the commands' ends
    return line.count(b"(") - line.count(b")")


def common_commands(a: list[bytes], b: list[bytes]) -> int:
    """How many leading lines `a` and `b` share that end at the end of a command (parentheses balanced)."""
    depth = 0
    end = 0
    for k, (x, y) in enumerate(zip(a, b, strict=False)):  # the shorter one ends what they share
        if x != y:
            break
        depth += _balance(x)
        if depth == 0:
            end = k + 1
    return end


class PreludeReuse:
    """Feed it Boogie's stream line by line; it returns what to send z3 for each line (often nothing)."""

    def __init__(self) -> None:
        self.held: bytes | None = None  # what z3 holds at level 0 besides its options, None: not known
        self.previous: list[bytes] | None = None  # the last prelude sent whole, or the shared part: what the next
        # prelude is compared with
        self.prelude: list[bytes] | None = []  # the lines since the last reset (or the start), while buffering
        self.after_reset = False  # a `(reset)` came before this prelude (the first prelude has none)
        self.depth = 0  # scopes Boogie opened
        self.own = 0  # scopes the relay opened (a check's own part), closed with Boogie's last

    def feed(self, line: bytes) -> bytes:
        command = line.strip()
        if self.prelude is not None:
            return self._buffer(line, command)
        if command == b"(reset)":
            if self.depth > 0 or self.own:
                self.held = None  # a scope is still open: only a reset brings z3 back to its level 0
            self.prelude, self.after_reset = [], True
            return b""
        scope = _SCOPE.fullmatch(command)
        if scope is not None:
            self.depth += int(scope.group(2)) * (1 if scope.group(1) == b"push" else -1)
            if self.depth <= 0 and self.own:
                closing, self.own, self.depth = self.own, 0, 0
                return line + b"(pop %d)\n" % closing
            return line
        if self.depth <= 0 and command and not command.startswith(_NEUTRAL):
            self.held = None  # something else at level 0: z3 no longer holds only the prelude there
        return line

    def _buffer(self, line: bytes, command: bytes) -> bytes:
        prelude = self.prelude
        assert prelude is not None
        if command.startswith(b"(get-info"):
            return line  # answered from z3's options, whatever it holds (Boogie asks its name first)
        if command != b"(push 1)":
            if _SCOPE.fullmatch(command) is None and not command.startswith(_NOT_PRELUDE):
                # line ends are whitespace to z3; Boogie ends the first prelude's lines otherwise than the next's
                prelude.append(line[:-2] + b"\n" if line.endswith(b"\r\n") else line)
                return b""
            # something besides a prelude: exactly what Boogie sent, and z3's level 0 is no longer known
            self.prelude, self.held, self.previous, self.depth, self.own = None, None, None, 0, 0
            return self._whole(prelude) + self.feed(line)
        self.prelude, self.depth = None, 1
        text = b"".join(prelude)
        if self.held is not None and text.startswith(self.held):
            # z3 holds the shared part at level 0 (Boogie's scopes and the relay's are all closed): the rest only
            self.own = 1
            return b"(push 1)\n" + text[len(self.held):] + line
        shared = common_commands(self.previous, prelude) if self.previous is not None else 0
        if shared * 2 >= len(prelude):
            # a new shared part: z3 reset, the shared part at level 0, the rest in a scope
            self.held, self.previous, self.own = b"".join(prelude[:shared]), prelude[:shared], 1
            reset = b"(reset)\n" if self.after_reset else b""
            return reset + self.held + b"(push 1)\n" + b"".join(prelude[shared:]) + line
        # nothing shared yet (the first prelude, or another one): as Boogie sent it
        self.held, self.previous, self.own = None, prelude, 0
        return self._whole(prelude) + line

    def _whole(self, prelude: list[bytes]) -> bytes:
        return (b"(reset)\n" if self.after_reset else b"") + b"".join(prelude)
