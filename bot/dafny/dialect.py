"""Token-level rewriting between Dafny syntax generations (2.x/3.x and 4.x).

Pure code. Every rewrite keeps each line at its line number (no newline is added or removed) because
the verifier reports errors by line and those lines are mapped back to the original file.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from enum import Enum

from bot.dafny.lexer import LexError, Token, TokKind, matching_close, significant, tokenize
from bot.dafny.parser import CLAUSE_KEYWORDS, LOOP_SPEC_KEYWORDS, DafnyParseError, TokenView, parse_file


class Dialect(Enum):
    DAFNY2 = "2"  # Dafny 2.x/3.x: `function` is ghost, `function method` is compiled
    DAFNY4 = "4"  # Dafny 4: `function` is compiled, `ghost function` is ghost


@dataclass(frozen=True)
class Rewrite:
    text: str
    changes: tuple[str, ...]  # e.g. "line 12: `ghost function` -> `function`"
    left_alone: tuple[str, ...] = ()  # constructs the target rejects that were not rewritten


class UnreadableConstruct(ValueError):
    """A construct Dafny 4 rejects that a rewrite would turn into something Dafny 2.3 accepts with another meaning
    (`expect` in ghost code would become an assumption: an axiom): the file is not read."""


# tokens no type argument holds (`seq<T>(n, f)`): scanning an unclosed `seq <` stops at them, not at the file's end
# (each `seq` of a file then cost the rest of the file: a generated file of many `seq < a` comparisons took 12 s)
_LONGEST_TYPE = 200  # tokens: a type argument longer is taken for no call (the file is then Dafny 2.3's to reject)
_NO_TYPE_HERE = frozenset({";", "{", "}", ":=", "=", "==", "!=", "=>", "==>", "<==", "<==>", "&&", "||", "|", "::"})
_FUNCTION_WORDS = frozenset({"function", "predicate"})
_PROOF_BLOCKS = frozenset({"by", "calc"})  # `assert P by { }`, `calc { }`: ghost blocks of a method body
_FUNCTION_MODIFIERS = frozenset({"ghost", "static", "opaque", "abstract", "protected", "private"})
_EXTREME_PREFIXES = frozenset({"twostate", "least", "greatest", "inductive"})
_STATEMENT_BEFORE = frozenset({";", "{", "}", "=>"})
# Dafny 2 and Dafny 4 names of extreme predicates and lemmas
_EXTREME_TO_2 = {
    ("least", "predicate"): "inductive predicate",
    ("least", "lemma"): "inductive lemma",
    ("greatest", "predicate"): "copredicate",
    ("greatest", "lemma"): "colemma",
}
_EXTREME_TO_4 = {
    ("inductive", "predicate"): "least predicate",
    ("inductive", "lemma"): "least lemma",
    ("copredicate",): "greatest predicate",
    ("colemma",): "greatest lemma",
}


def detect_syntax(source: str) -> Dialect:
    """Which syntax generation a source is written in; DAFNY2 when nothing tells.

    `function method` and Dafny 2 extreme predicates mean DAFNY2 and win over everything else;
    `ghost function`, `opaque function`, `for` loops, `expect`, `continue`, `least`/`greatest` and
    `by method` mean DAFNY4. Raises LexError on text the lexer cannot split.
    """
    v = TokenView(significant(tokenize(source)))
    dafny4 = False
    for k in range(v.n):
        if v.is_word(k, _FUNCTION_WORDS):
            if v.is_word(k + 1, "method"):
                return Dialect.DAFNY2
            mods = {v.toks[j].text for j in _modifiers_before(v, k)}
            dafny4 = dafny4 or bool(mods & {"ghost", "opaque"})
        elif v.is_word(k, frozenset({"copredicate", "colemma"})) or (
            v.is_word(k, "inductive") and v.is_word(k + 1, frozenset({"predicate", "lemma"}))
        ):
            return Dialect.DAFNY2
        elif (
            _is_for_loop(v, k)
            or _is_statement_word(v, k, "expect")
            or _is_statement_word(v, k, "continue")
            or (v.is_word(k, frozenset({"least", "greatest"})) and v.is_word(k + 1, frozenset({"predicate", "lemma"})))
            or (v.is_word(k, "by") and v.is_word(k + 1, "method") and v.text(k - 1) == "}")
        ):
            dafny4 = True
    return Dialect.DAFNY4 if dafny4 else Dialect.DAFNY2


_OLD_UNICODE_ESCAPE = re.compile(r"\\(?:\\|u([0-9A-Fa-f]{4}))")


def unicode_escapes_4(text: str) -> str:
    """`text` with every `\\uXXXX` escape of its char and string literals written `\\U{XXXX}`: Dafny 4 reads chars as
    Unicode scalar values by default and rejects the old form, which the values are printed in (Dafny 2.3 knows
    only it). Text that does not lex is returned as it is (the verifier will say more)."""
    try:
        toks = tokenize(text)
    except LexError:
        return text
    out: list[str] = []
    pos = 0
    for t in toks:
        if t.kind not in (TokKind.STRING, TokKind.CHAR) or t.text.startswith("@") or "\\u" not in t.text:
            continue
        new = _OLD_UNICODE_ESCAPE.sub(lambda m: m.group(0) if m.group(1) is None else f"\\U{{{m.group(1)}}}", t.text)
        out += [text[pos : t.start], new]
        pos = t.end
    return "".join(out) + text[pos:]


def expressions_to_2(text: str, avoid: str = "", seq_name: str = "SeqInit_") -> str:
    """`text` (a generated program's part) with the expression forms Dafny 2.3 does not parse rewritten: `match` on
    literals and `seq(n, f)` (see `to_dialect`); fresh names avoid every identifier of `avoid` too (the prelude
    the text is appended to). `seq_name`: the base of the name of the function that stands for `seq(n, f)`, declared
    in `text` itself: programs verified side by side in one file give each its own base (their program's name), so
    no two declare one name. Line numbers unchanged; text the lexer cannot split is returned as it is."""
    subset = _subset_results(avoid) if re.search(r"\bvar\b", text) else {}
    if not re.search(r"\bmatch\b", text) and not may_call_seq(text) and not subset:
        return text
    try:
        r = _Rewriter(text, Dialect.DAFNY2, avoid, seq_name=seq_name)
    except LexError:
        return text
    if not r.balanced():
        return text
    r.matches_to_2()
    r.seqs_to_2()
    r.subset_lets_to_2(subset)
    return r.result().text


_SEQ_WORD = re.compile(r"\bseq\b")
_TYPE_CHARS = frozenset(string.ascii_letters + string.digits + "_.,?<> \t\r\n")


def may_call_seq(text: str) -> bool:
    """Whether `text` may hold `seq(n, f)` (or `seq<T>(n, f)`): False only when every `seq` in it is a type (`seq<int>`
    followed by no `(`). Read on the characters, not the tokens: each generated program holds `seq<..>` types, and
    tokenizing all of them to find no call was a third of a warm audit's time. Anything unclear is a maybe (the rewrite
    reads the tokens then)."""
    n = len(text)
    for m in _SEQ_WORD.finditer(text):
        j = m.end()
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] == "(":
            return True
        if j >= n or text[j] != "<":
            continue
        depth = 0
        while j < n:
            if text[j] not in _TYPE_CHARS:
                return True  # not a plain type argument list
            depth += (text[j] == "<") - (text[j] == ">")
            j += 1
            if depth <= 0:
                break
        else:
            return True
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] == "(":
            return True
    return False


@functools.lru_cache(maxsize=16)  # one prelude for many programs: a string hashes once
def _subset_results(source: str) -> dict[str, str]:
    """The functions of `source` whose declared result is a subset type of a sequence type, each with that base
    type's text: `function natToString(n: nat): stringNat` with `type stringNat = s: string | ...` gives
    `{"natToString": "string"}`."""
    if "|" not in source or not re.search(r"\btype\b", source):
        return {}
    try:
        toks = significant(tokenize(source))
    except LexError:
        return {}
    bases: dict[str, str] = {}
    for k in range(len(toks) - 4):
        # `type N = x : BASE |`
        if toks[k].text == "type" and toks[k + 2].text == "=" and toks[k + 4].text == ":":
            j, parts, depth = k + 5, [], 0
            while j < len(toks) and not (depth == 0 and toks[j].text == "|"):
                depth += {"<": 1, ">": -1}.get(toks[j].text, 0)
                parts.append(toks[j].text)
                j += 1
            base = "".join(parts)
            if re.fullmatch(r"string|seq<.+>", base):
                bases[toks[k + 1].text] = base
    if not bases:
        return {}
    out: dict[str, str] = {}
    for k, t in enumerate(toks):
        if t.text != "function" or k + 2 >= len(toks):
            continue
        j = k + 2 if toks[k + 1].text == "method" else k + 1
        name = toks[j].text
        j += 1
        if j < len(toks) and toks[j].text == "<":
            while j < len(toks) and toks[j].text != ">":
                j += 1
            j += 1
        if j < len(toks) and toks[j].text == "(":
            close = matching_close(toks, j)
            if 0 <= close < len(toks) - 2 and toks[close + 1].text == ":" and toks[close + 2].text in bases:
                out[name] = bases[toks[close + 2].text]
    return out


def to_dialect(source: str, target: Dialect, origin: Dialect | None = None, path: str = "") -> Rewrite:
    """Rewrite `source` into the syntax of `target`, line numbers unchanged. `origin`: the syntax it is written in,
    when known from more than `source` (a file whose bodies were removed, with its `for` loops and `expect`s:
    its functions are still Dafny 4's); by default detected from `source`.

    Raises LexError on text the lexer cannot split, and UnreadableConstruct (naming `path` and the line) on an
    `expect` in ghost code.
    """
    origin = origin or detect_syntax(source)
    r = _Rewriter(source, origin, path=path)
    if not r.balanced():
        # structure unknown: rewriting could move text across blocks; the verifier will say more
        return Rewrite(source, (), ("unbalanced brackets: not rewritten",))
    if target is Dialect.DAFNY2:
        r.functions_to_2()
        r.loops_to_2()
        r.expects_to_2()
        r.matches_to_2()
        r.seqs_to_2()
        r.subset_lets_to_2(_subset_results(source))
        r.notes_for_2()
    else:
        r.functions_to_4()
    return r.result()


# -- token patterns ---------------------------------------------------------------------------


def _modifiers_before(v: TokenView, k: int) -> list[int]:
    """Indices of the modifier words directly before token k (nearest last)."""
    j = k - 1
    while j >= 0 and v.is_word(j, _FUNCTION_MODIFIERS):
        j -= 1
    return list(range(j + 1, k))


def _is_for_loop(v: TokenView, k: int) -> bool:
    return v.is_word(k, "for") and k + 2 < v.n and v.toks[k + 1].kind is TokKind.IDENT and v.text(k + 2) in (":=", ":")


def _is_statement_word(v: TokenView, k: int, word: str) -> bool:
    """Token k is `word` at the start of a statement."""
    if not v.is_word(k, word):
        return False
    if k == 0 or v.text(k - 1) in _STATEMENT_BEFORE:
        return True
    # `label L: expect ...`
    return v.text(k - 1) == ":" and v.is_word(k - 3, "label")


@dataclass
class _Loop:
    kw: int  # index of `for` / `while`
    body_open: int
    body_close: int
    label: str | None
    line: int
    continue_label: str | None = None
    open_text: str = "{"  # what the body's braces become
    close_text: str = "}"
    header: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, text) edits of a `for`


class _Rewriter:
    def __init__(
        self, source: str, origin: Dialect, avoid: str = "", path: str = "", seq_name: str = "SeqInit_"
    ) -> None:
        self.src = source
        self.path = path
        self.seq_name = seq_name
        self.avoid = avoid
        self.origin = origin
        self.v = TokenView(significant(tokenize(source)))
        self.toks = self.v.toks
        self.names = {t.text for t in self.toks if t.kind is TokKind.IDENT}
        self.edits: list[tuple[int, int, int, str]] = []  # (start, end, sequence, text)
        self.blanked: list[tuple[int, int]] = []  # spans removed whole: no edit inside them
        self.changes: list[tuple[int, str]] = []
        self.left: list[tuple[int, str]] = []
        self.ghosts: list[tuple[int, int, str]] | None = None  # (start, end, what) of ghost code, once asked

    # -- bookkeeping ----------------------------------------------------------------------

    def balanced(self) -> bool:
        pairs = {"(": ")", "[": "]", "{": "}", "{:": "}"}
        stack: list[str] = []
        for t in self.toks:
            if t.kind is not TokKind.OP:
                continue
            if t.text in pairs:
                stack.append(pairs[t.text])
            elif t.text in (")", "]", "}") and (not stack or stack.pop() != t.text):
                return False
        return not stack

    def edit(self, start: int, end: int, text: str) -> None:
        if any(b0 <= start and end <= b1 for b0, b1 in self.blanked):
            return
        self.edits.append((start, end, len(self.edits), text))

    def remove_word(self, tok: Token) -> None:
        end = tok.end
        while end < len(self.src) and self.src[end] in " \t":
            end += 1
        self.edit(tok.start, end, "")

    def blank(self, start: int, end: int) -> None:
        self.edits = [e for e in self.edits if not (start <= e[0] and e[1] <= end)]
        self.blanked.append((start, end))
        self.edits.append((start, end, len(self.edits), ""))

    def change(self, line: int, before: str, after: str) -> None:
        self.changes.append((line, f"line {line}: `{before}` -> `{after}`"))

    def fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.names or (self.avoid and re.search(rf"\b{re.escape(name)}\b", self.avoid)):
            n += 1
            name = f"{base}{n}"
        self.names.add(name)
        return name

    def result(self) -> Rewrite:
        out: list[str] = []
        at = 0
        left = list(self.left)
        for start, end, _, text in sorted(self.edits):
            if start < at:
                # two rewrites of one piece of text (an `expect` whose message holds a `seq(n, f)`): the first
                # stands, this one is left as is and said, as any other form the rewrite does not take
                line = self.src.count("\n", 0, start) + 1
                left.append((line, f"line {line}: a rewrite left as is (inside another rewrite)"))
                continue
            old = self.src[start:end]
            missing = old.count("\n") - text.count("\n")
            if missing < 0:
                raise AssertionError("a rewrite may not add lines")
            out.append(self.src[at:start])
            out.append(text + "\n" * missing)
            at = end
        out.append(self.src[at:])
        text = "".join(out)
        if text.count("\n") != self.src.count("\n"):
            raise AssertionError("a rewrite changed the number of lines")
        return Rewrite(
            text,
            tuple(c for _, c in sorted(self.changes, key=lambda c: c[0])),
            tuple(c for _, c in sorted(left, key=lambda c: c[0])),
        )

    def _joined(self, first: int, last: int) -> str:
        """Tokens first..last on one line, one space where the source had any gap."""
        parts: list[str] = []
        for k in range(first, last + 1):
            if k > first and self.toks[k].start > self.toks[k - 1].end:
                parts.append(" ")
            parts.append(self.toks[k].text)
        return "".join(parts)

    # -- functions and predicates ----------------------------------------------------------

    def _functions(self) -> list[tuple[int, list[int], bool, tuple[int, int] | None]]:
        """(keyword index, modifier indices, `function method`?, `by method` token span) per function."""
        v = self.v
        found = []
        for k in range(v.n):
            if not v.is_word(k, _FUNCTION_WORDS) or v.is_word(k - 1, _EXTREME_PREFIXES):
                continue
            has_method = v.is_word(k + 1, "method")
            found.append((k, _modifiers_before(v, k), has_method, self._by_method(k + (2 if has_method else 1))))
        return found

    def _by_method(self, k: int) -> tuple[int, int] | None:
        """Token span of `by method { ... }` after the function header starting at k, if any."""
        v = self.v
        body = self._body_open(k)
        if body is None:
            return None
        close = v.close(body)
        if v.is_word(close + 1, "by") and v.is_word(close + 2, "method") and v.text(close + 3) == "{":
            return close + 1, v.close(close + 3)
        return None

    def _body_open(self, k: int) -> int | None:
        """Index of the `{` that opens the body of the declaration whose header continues at k; None when it has
        none (a `;`, a `}` or the next declaration comes first). Clause expressions are skipped whole: the braces
        of `ensures r in {1, 2}` open no body."""
        v = self.v
        while k < v.n:
            t = v.text(k)
            if v.is_word(k, CLAUSE_KEYWORDS):
                k = v.expression_end(v.skip_attributes(k + 1, v.n), v.n, CLAUSE_KEYWORDS)
                continue
            if t == "{":
                return k
            if t in ("(", "[", "{:"):
                k = v.close(k) + 1
                continue
            if t in (";", "}") or v.starts_decl(k, v.n):
                return None
            k += 1
        return None

    def functions_to_2(self) -> None:
        v = self.v
        for k, mods, has_method, by_method in self._functions():
            kw = self.toks[k]
            word = kw.text
            texts = {self.toks[j].text: self.toks[j] for j in mods}
            ghost = "ghost" in texts
            if ghost:
                self.remove_word(texts["ghost"])
                self.change(kw.line, f"ghost {word}", word)
            insert = ""
            compiled = not ghost and (self.origin is Dialect.DAFNY4 or by_method is not None)
            if compiled and not has_method:
                insert += " method"
                self.change(kw.line, word, f"{word} method")
            if "opaque" in texts:
                self.remove_word(texts["opaque"])
                insert += " {:opaque}"
                self.change(kw.line, f"opaque {word}", f"{word} {{:opaque}}")
            if insert:
                at = self.toks[k + 1].end if has_method else kw.end
                self.edit(at, at, insert)
            if by_method is not None:
                first, last = by_method
                self.blank(self.toks[first].start, self.toks[last].end)
                line = self.toks[first].line
                self.changes.append(
                    (
                        line,
                        f"line {line}: `by method {{ ... }}` removed (Dafny 2.3 has none: the {word} "
                        "body is compiled instead and the method body goes unverified)",
                    )
                )
        for k in range(v.n):
            words = (v.text(k), v.text(k + 1))
            if words in _EXTREME_TO_2 and v.is_word(k, words[0]) and v.is_word(k + 1, words[1]):
                self.edit(self.toks[k].start, self.toks[k + 1].end, _EXTREME_TO_2[words])
                self.change(self.toks[k].line, " ".join(words), _EXTREME_TO_2[words])

    def functions_to_4(self) -> None:
        v = self.v
        for k, mods, has_method, by_method in self._functions():
            kw = self.toks[k]
            word = kw.text
            ghost = any(self.toks[j].text == "ghost" for j in mods)
            if has_method:
                self.edit(kw.end, self.toks[k + 1].end, "")
                self.change(kw.line, f"{word} method", word)
            elif self.origin is Dialect.DAFNY2 and not ghost and by_method is None:
                self.edit(kw.start, kw.start, "ghost ")
                self.change(kw.line, word, f"ghost {word}")
        for k in range(v.n):
            for words, new in _EXTREME_TO_4.items():
                if all(v.is_word(k + i, w) for i, w in enumerate(words)):
                    self.edit(self.toks[k].start, self.toks[k + len(words) - 1].end, new)
                    self.change(self.toks[k].line, " ".join(words), new)

    # -- loops --------------------------------------------------------------------------------

    def loops_to_2(self) -> None:
        loops = self._loops()
        self._continues(loops)
        for loop in loops:
            if loop.header:
                for start, end, text in loop.header:
                    self.edit(start, end, text)
            if loop.continue_label is not None:
                loop.open_text += f" label {loop.continue_label}: {{"
                loop.close_text = "} " + loop.close_text
            if loop.open_text != "{":
                tok = self.toks[loop.body_open]
                self.edit(tok.start, tok.end, loop.open_text)
            if loop.close_text != "}":
                tok = self.toks[loop.body_close]
                self.edit(tok.start, tok.end, loop.close_text)

    def _loops(self) -> list[_Loop]:
        v = self.v
        loops: list[_Loop] = []
        for k in range(v.n):
            if _is_for_loop(v, k):
                loop = self._for_loop(k)
            elif v.is_word(k, "while"):
                loop = self._while_loop(k)
            else:
                continue
            if loop is not None:
                loops.append(loop)
        return loops

    def _label_of(self, k: int) -> str | None:
        v = self.v
        if v.text(k - 1) == ":" and v.is_word(k - 3, "label"):
            return v.text(k - 2)
        return None

    def _loop_specs(self, k: int) -> tuple[int, bool]:
        """Index after the loop specification clauses starting at k; whether one is `decreases`."""
        v = self.v
        decreases = False
        while v.is_word(k, LOOP_SPEC_KEYWORDS):
            decreases = decreases or v.text(k) == "decreases"
            k = v.expression_end(v.skip_attributes(k + 1, v.n), v.n, LOOP_SPEC_KEYWORDS)
            if v.text(k) == ";":
                k += 1
        return k, decreases

    def _while_loop(self, k: int) -> _Loop | None:
        v = self.v
        guard_end = v.expression_end(k + 1, v.n, LOOP_SPEC_KEYWORDS)
        body, _ = self._loop_specs(guard_end)
        if v.text(body) != "{" or v.is_word(body + 1, "case"):
            return None
        return _Loop(k, body, v.close(body), self._label_of(k), self.toks[k].line)

    def _for_loop(self, k: int) -> _Loop | None:
        v = self.v
        line = self.toks[k].line
        index = v.text(k + 1)
        j = k + 2
        type_text = ""
        if v.text(j) == ":":
            t0 = j + 1
            while j < v.n and v.text(j) not in (":=", ";", "{"):
                j += 1
            if v.text(j) != ":=" or j == t0:
                self.left.append((line, f"line {line}: `for` loop not understood (left as is)"))
                return None
            type_text = ": " + self._joined(t0, j - 1)
        assign = j
        d = assign + 1
        while d < v.n and not v.is_word(d, frozenset({"to", "downto"})):
            if v.text(d) in (";", "{", "}"):
                self.left.append((line, f"line {line}: `for` loop without `to`/`downto` (left as is)"))
                return None
            d = v.close(d) + 1 if v.text(d) in ("(", "[", "{:") else d + 1
        if d >= v.n or d == assign + 1:
            self.left.append((line, f"line {line}: `for` loop not understood (left as is)"))
            return None
        down = v.text(d) == "downto"
        unbounded = v.text(d + 1) == "*"
        bound_end = d + 2 if unbounded else v.expression_end(d + 1, v.n, LOOP_SPEC_KEYWORDS)
        if bound_end == d + 1:
            self.left.append((line, f"line {line}: `for` loop without a bound (left as is)"))
            return None
        body, decreases = self._loop_specs(bound_end)
        if v.text(body) != "{":
            self.left.append((line, f"line {line}: body-less `for` loop (left as is)"))
            return None
        if index == "_":
            index = self.fresh("for_index")
        lo, hi = self.fresh(f"{index}_lo"), self.fresh(f"{index}_hi")
        first, second = (hi, lo) if down else (lo, hi)
        start_tok, assign_tok, dir_tok = self.toks[k], self.toks[assign], self.toks[d]
        after_bound = self.toks[bound_end - 1].end
        # Dafny 4 semantics: bounds evaluated once, `lo <= hi` checked, `lo <= i <= hi` invariant,
        # the body sees lo..hi-1 (upwards) or hi-1..lo (downwards)
        header = [(start_tok.start, assign_tok.end, f"{{ var {first} :=")]
        if unbounded:
            guard = f"; var {index}{type_text} := {first}; while true invariant "
            guard += f"{index} <= {hi}" if down else f"{lo} <= {index}"
            if not decreases:
                guard += " decreases *"
            header.append((dir_tok.start, self.toks[d + 1].end, guard))
        else:
            header.append((dir_tok.start, dir_tok.end, f"; var {index}{type_text} := {first}; var {second} :="))
            loop = (
                f"while {lo} < {index} invariant {lo} <= {index} <= {hi} decreases {index} - {lo}"
                if down
                else f"while {index} < {hi} invariant {lo} <= {index} <= {hi} decreases {hi} - {index}"
            )
            header.append((after_bound, after_bound, f"; assert {lo} <= {hi}; {loop}"))
        bound = "*" if unbounded else "..."
        self.changes.append(
            (
                line,
                f"line {line}: `for {v.text(k + 1)} := ... {dir_tok.text} {bound}` -> `while` loop in a block",
            )
        )
        return _Loop(
            k,
            body,
            v.close(body),
            self._label_of(k),
            line,
            open_text=f"{{ {index} := {index} - 1;" if down else "{",
            close_text="} }" if down else f"{index} := {index} + 1; }} }}",
            header=header,
        )

    def _continues(self, loops: list[_Loop]) -> None:
        """`continue` (Dafny 2.3 has none) -> `break` to a label around the loop body."""
        v = self.v
        for k in range(v.n):
            if not _is_statement_word(v, k, "continue") and not (
                v.is_word(k, "continue") and v.is_word(k - 1, "break")
            ):
                continue
            line = self.toks[k].line
            if v.is_word(k - 1, "break"):
                self.left.append((line, f"line {line}: `break continue` (left as is)"))
                continue
            label = v.text(k + 1) if self.toks[k + 1].kind is TokKind.IDENT else None
            enclosing = [lp for lp in loops if lp.body_open < k < lp.body_close]
            targets = [lp for lp in enclosing if label is None or lp.label == label]
            if not targets:
                self.left.append((line, f"line {line}: `continue` outside a loop it can target (left as is)"))
                continue
            loop = max(targets, key=lambda lp: lp.body_open)  # the innermost one
            if loop.continue_label is None:
                loop.continue_label = self.fresh(f"continue{loop.line}")
            last = self.toks[k + 1] if label is not None else self.toks[k]
            self.edit(self.toks[k].start, last.end, f"break {loop.continue_label}")
            self.change(line, "continue" if label is None else f"continue {label}", f"break {loop.continue_label}")

    # -- statements ---------------------------------------------------------------------------

    def expects_to_2(self) -> None:
        """`expect E, msg;` -> `assume {:axiom} E;`: the verifier assumes what `expect` checks at run time."""
        v = self.v
        for k in range(v.n):
            if not v.is_word(k, "expect"):
                continue
            line = self.toks[k].line
            # the lexer splits the `:-` operator into `:` and `-`
            elephant = v.text(k - 2) == ":" and v.text(k - 1) == "-"
            if elephant and self.toks[k - 2].end == self.toks[k - 1].start:
                self.left.append((line, f"line {line}: `:- expect` (left as is)"))
                continue
            if not _is_statement_word(v, k, "expect"):
                continue
            j, comma = k + 1, -1
            while j < v.n and v.text(j) not in (";", "}"):
                if v.text(j) == "," and comma < 0:
                    comma = j
                j = v.close(j) + 1 if v.text(j) in ("(", "[", "{", "{:") else j + 1
            if v.text(j) != ";":
                self.left.append((line, f"line {line}: `expect` without ';' (left as is)"))
                continue
            tok = self.toks[k]
            ghost = self.ghost_code(tok.start)
            if ghost:
                where = f"{self.path} line {line}" if self.path else f"line {line}"
                raise UnreadableConstruct(
                    f"{where}: `expect` in ghost code ({ghost}): Dafny 4 rejects it, and read as an assumption it "
                    "would be an axiom; remove it, or state it with `assert`")
            self.edit(tok.start, tok.end, "assume {:axiom}")
            if comma >= 0:
                self.edit(self.toks[comma].start, self.toks[j].start, "")
            self.change(line, "expect", "assume {:axiom}")

    def ghost_code(self, at: int) -> str:
        """What ghost code the offset `at` is in ("" when compiled code): the body of a lemma, a ghost method, a
        function or predicate, or a proof block (`by { }`, `calc { }`) of a method. Text that does not parse is
        all taken as ghost code (no `expect` in it becomes an assumption)."""
        if self.ghosts is None:
            try:
                decls = parse_file(self.src, self.path or "<input>").decls
            except (DafnyParseError, ValueError, RecursionError):
                self.ghosts = [(0, len(self.src), "a file that could not be read to tell")]
                decls = ()
            else:
                self.ghosts = []
            for d in decls:
                if d.body is not None and (d.kind not in ("method", "constructor") or d.ghost):
                    kind = f"ghost {d.kind}" if d.ghost and d.kind == "method" else d.kind
                    self.ghosts.append((d.body[0], d.body[1], f"{kind} {d.name}"))
            v = self.v
            for k in range(v.n - 1):
                if v.is_word(k, _PROOF_BLOCKS) and v.text(k + 1) == "{":
                    self.ghosts.append((self.toks[k + 1].start, self.toks[v.close(k + 1)].end,
                                        f"a `{self.toks[k].text}` block"))
        inner = [g for g in self.ghosts if g[0] <= at < g[1]]
        return max(inner, key=lambda g: g[0])[2] if inner else ""

    def notes_for_2(self) -> None:
        """Constructs Dafny 2.3 rejects that are not rewritten."""
        v = self.v
        for k in range(v.n):
            tok = self.toks[k]
            if tok.kind is TokKind.CHAR and not tok.text.isascii():
                self.left.append((tok.line, f"line {tok.line}: non-ASCII character literal (left as is)"))

    def _seq_call(self, k: int) -> bool:
        v = self.v
        j = k + 1
        if v.text(j) == "<":
            depth = 0
            while j < v.n:
                # `seq < a` unclosed: no type argument runs past these, nor is that long
                if v.text(j) in _NO_TYPE_HERE or j - k > _LONGEST_TYPE:
                    return False
                depth += {"<": 1, ">": -1, ">>": -2}.get(v.text(j), 0)
                j += 1
                if depth <= 0:
                    break
        return v.text(j) == "(" and v.text(k - 1) != ":"

    # -- match forms of Dafny 3+ -> if chains ------------------------------------------------

    def _statement_bodies(self) -> list[tuple[int, int]]:
        """Token spans (open, close) of the bodies of methods, lemmas and constructors: statements."""
        v = self.v
        spans = []
        for k in range(v.n):
            if not v.is_word(k, _STATEMENT_CALLABLES) or v.is_word(k - 1, frozenset({"function", "predicate", "by"})):
                continue
            body = self._body_open(k + 1)
            if body is not None:
                spans.append((body, v.close(body)))
        return spans

    def matches_to_2(self) -> None:
        """`match` forms Dafny 2.3 does not parse or resolve become an `if` chain on a fresh variable bound to the
        matched value: expressions as `var m := E; if m == 0 then A else B`, statements as
        `{ var m := E; if m == 0 { S } else { T } }` (with braces or without: the cases of a match statement without
        braces run to the end of its block). The forms: literal patterns (`case 0 =>`, `case "a" =>`, `case -1 =>`,
        `case 1 | 2 =>`), and a constructor match with a top-level `_` or name case or an `A | B` case (tested with
        `m.A?`; a case that binds, `case Some(x) =>`, is Dafny 2.3's own match on `m` inside its branch). Without a
        last case that takes the rest, the last case's test is asserted (`assert m == 9;`), the exhaustiveness Dafny 4
        checks. Constructor matches Dafny 2.3 reads (nested patterns, braces or not) are left to it; a form this
        cannot carry (a literal inside a constructor or tuple pattern, a rest case before the last) is left as is and
        said (Dafny 2.3 then rejects the file, naming the line)."""
        v = self.v
        bodies = self._statement_bodies()
        ctors = self._constructor_names()
        case_arrows: set[int] = set()  # the `=>` of statement matches' cases: a statement follows each
        for k in range(v.n):
            if not v.is_word(k, "match"):
                continue
            in_body = any(a < k < b for a, b in bodies)
            labelled = v.text(k - 1) == ":" and v.is_word(k - 3, "label")
            statement = in_body and (v.text(k - 1) in (";", "{", "}") or labelled or k - 1 in case_arrows)
            cases, open_brace, close = self._match_cases(k, statement)
            if statement:
                case_arrows.update(arrow for _, arrow in cases)
            if not cases:
                continue
            kinds = [self._pattern(c + 1, arrow, ctors) for c, arrow in cases]
            plan = self._match_plan(kinds)
            line = self.toks[k].line
            if plan is None:
                continue  # Dafny 2.3's own
            if isinstance(plan, str):
                self.left.append((line, f"line {line}: a `match` {plan} (left as is)"))
                continue
            self._rewrite_match(k, cases, kinds, open_brace, close, statement)

    def _match_plan(self, kinds: list[str]) -> bool | str | None:
        """True: the match is rewritten; None: Dafny 2.3 reads it as it is; a string: why it is left as is."""
        if "other" in kinds:
            return "with a pattern Dafny 2.3 does not read and this rewrite does not take (a literal inside a " \
                   "constructor or tuple pattern, or a disjunction of patterns that bind)"
        rests = [i for i, kind in enumerate(kinds) if kind in ("wildcard", "name")]
        literal = any(kind == "literal" for kind in kinds)
        ctor = any(kind.startswith("ctor") for kind in kinds)
        if literal and ctor:
            return "mixing literal and constructor patterns"
        if not literal and not rests and "ctor-or" not in kinds:
            return None  # constructor patterns only: Dafny 2.3's match
        if any(i != len(kinds) - 1 for i in rests):
            return "with a case that takes every value before its last case"
        if not literal and not ctor:
            return "with no pattern but one that takes every value"
        if ctor and any(kind == "ctor-nested" for kind in kinds):
            return "with nested constructor patterns and a `_` or `|` case"
        return True

    def _match_cases(self, k: int, statement: bool) -> tuple[list[tuple[int, int]], int | None, int | None]:
        """(`case` index, `=>` index) of each case of the match at k; its `{` and `}` when braced, and the `}` of
        its block for a statement without braces (its cases run to there)."""
        v = self.v
        j = k + 1
        while j < v.n and not v.is_word(j, "case") and not (v.text(j) == "{" and v.is_word(j + 1, "case")):
            if v.text(j) in ("(", "[", "{", "{:"):
                j = v.close(j)
            elif v.text(j) in (";", ")", "]", "}") or v.is_word(j, "match"):
                return [], None, None
            j += 1
        open_brace = j if v.text(j) == "{" else None
        stop = v.close(j) if open_brace is not None else v.n
        cases: list[tuple[int, int]] = []
        j = j + 1 if open_brace is not None else j
        while j < stop:
            t = v.text(j)
            if t in ("(", "[", "{", "{:"):
                j = v.close(j) + 1
                continue
            if open_brace is None and statement and t == "}":
                stop = j  # the end of the block: where a match statement without braces ends
                break
            if open_brace is None and not statement and t in (")", "]", "}", ";"):
                break  # the end of a match expression without braces
            if open_brace is None and v.is_word(j, "match"):
                if statement:
                    stop = self._block_end(j)
                break  # a nested match without braces takes the cases after it
            if v.is_word(j, "case"):
                arrow = j + 1
                while arrow < stop and v.text(arrow) != "=>":
                    if v.text(arrow) in ("(", "[", "{"):
                        arrow = v.close(arrow)
                    arrow += 1
                if arrow >= stop:
                    return [], None, None
                cases.append((j, arrow))
                j = arrow + 1
                continue
            j += 1
        if open_brace is not None:
            return cases, open_brace, stop
        return cases, None, (stop if statement and stop < v.n else None)

    def _block_end(self, j: int) -> int:
        """Index of the `}` closing the block token j is in (v.n when none)."""
        v = self.v
        while j < v.n and v.text(j) != "}":
            j = v.close(j) + 1 if v.text(j) in ("(", "[", "{", "{:") else j + 1
        return j

    def _constructor_names(self) -> frozenset[str]:
        """Names of the constructors the datatypes of the text declare."""
        v = self.v
        names: set[str] = set()
        for k in range(v.n):
            if not v.is_word(k, frozenset({"datatype", "codatatype"})):
                continue
            j = k + 1
            while j < v.n and v.text(j) not in ("=", "{", ";") and not v.starts_decl(j, v.n):
                j += 1
            if v.text(j) != "=":
                continue
            expect_name = True
            j += 1
            while j < v.n and not v.starts_decl(j, v.n) and v.text(j) not in ("}", "{"):
                t = v.text(j)
                if t in ("(", "[", "{:"):
                    j = v.close(j) + 1
                    continue
                if t == "|":
                    expect_name = True
                elif expect_name and self.toks[j].kind is TokKind.IDENT and t != "ghost":
                    names.add(t)
                    expect_name = False
                j += 1
        return frozenset(names)

    def _pattern(self, start: int, end: int, ctors: frozenset[str] = frozenset()) -> str:
        """The kind of the pattern in tokens start..end-1: literal (a literal, or literals joined by `|`), wildcard,
        name (binds the value), ctor (a constructor, its arguments names or `_`), ctor-or (constructors joined by
        `|`, binding nothing), ctor-nested (2.3 reads it, but not beside a rest case), other."""
        alternatives = self._split(start, end, "|")
        if len(alternatives) > 1:
            kinds = [self._pattern(a, b, ctors) for a, b in alternatives]
            if all(kind == "literal" for kind in kinds):
                return "literal"
            pairs = zip(kinds, alternatives, strict=True)
            plain = all(kind == "ctor" and not self._binds(a, b) for kind, (a, b) in pairs)
            return "ctor-or" if plain else "other"
        toks = self.toks[start:end]
        if not toks:
            return "other"
        if len(toks) == 1 and (toks[0].kind in (TokKind.NUMBER, TokKind.STRING, TokKind.CHAR)
                               or toks[0].text in ("true", "false")):
            return "literal"
        if len(toks) == 2 and toks[0].text == "-" and toks[1].kind is TokKind.NUMBER:
            return "literal"
        if len(toks) == 1 and toks[0].text == "_":
            return "wildcard"
        name_end = start
        while name_end < end and (self.toks[name_end].kind is TokKind.IDENT or self.v.text(name_end) == "."):
            name_end += 1
        if name_end == start:
            # a tuple pattern: Dafny 2.3's when it holds no literal
            tuple_ = toks[0].text == "(" and self.v.close(start) == end - 1
            return "ctor-nested" if tuple_ and not self._has_literal(start, end) else "other"
        if name_end == end:
            last = self.toks[end - 1].text
            if len(toks) == 1 and last not in ctors and last[:1].islower():
                return "name"
            return "ctor"
        if self.v.text(name_end) != "(" or self.v.close(name_end) != end - 1:
            return "other"
        args = self._split(name_end + 1, end - 1, ",")
        if self._has_literal(name_end, end):
            return "other"
        flat = all(b - a == 1 and self.toks[a].kind is TokKind.IDENT for a, b in args if b > a)
        return "ctor" if flat else "ctor-nested"

    def _has_literal(self, start: int, end: int) -> bool:
        return any(t.kind in (TokKind.NUMBER, TokKind.STRING, TokKind.CHAR) or t.text in ("true", "false")
                   for t in self.toks[start:end])

    def _split(self, start: int, end: int, sep: str) -> list[tuple[int, int]]:
        """Token spans of start..end-1 split at `sep` outside brackets."""
        v = self.v
        spans = []
        a = j = start
        while j < end:
            if v.text(j) in ("(", "[", "{", "{:"):
                j = v.close(j) + 1
                continue
            if v.text(j) == sep:
                spans.append((a, j))
                a = j + 1
            j += 1
        spans.append((a, end))
        return spans

    def _binds(self, start: int, end: int) -> bool:
        """The constructor pattern in tokens start..end-1 binds a name."""
        if end - start <= 1 or self.v.text(end - 1) != ")":
            return False
        first = next(j for j in range(start, end) if self.v.text(j) == "(")
        return any(self.toks[j].kind is TokKind.IDENT and self.toks[j].text != "_" for j in range(first + 1, end - 1))

    def _case_test(self, name: str, c: int, arrow: int, kind: str) -> str:
        """The test of a case on the value in `name` ("" for a case that takes the rest)."""
        if kind in ("wildcard", "name"):
            return ""
        tests = []
        for a, b in self._split(c + 1, arrow, "|"):
            if kind == "literal":
                tests.append(f"{name} == {self._joined(a, b - 1)}")
            else:
                ctor = next((j for j in range(a, b) if self.v.text(j) == "("), b)
                tests.append(f"{name}.{self.toks[ctor - 1].text}?")
        return " || ".join(tests)

    def _rewrite_match(
        self, k: int, cases: list[tuple[int, int]], kinds: list[str], open_brace: int | None, close: int | None,
        statement: bool,
    ) -> None:
        toks = self.toks
        name = self.fresh("match_")
        line = toks[k].line
        if statement:
            self.edit(toks[k].start, toks[k].end, f"{{ var {name} :=")
            if open_brace is not None:
                assert close is not None
                self.edit(toks[open_brace].start, toks[open_brace].end, ";")
                self.edit(toks[close].start, toks[close].end, "} }")
            elif close is not None:
                self.edit(toks[close].start, toks[close].start, "} } ")
            else:
                self.edit(len(self.src), len(self.src), " } }")
        elif open_brace is not None:
            assert close is not None
            self.edit(toks[k].start, toks[k].end, f"(var {name} :=")
            self.edit(toks[open_brace].start, toks[open_brace].end, ";")
            self.edit(toks[close].start, toks[close].end, ")")
        else:
            self.edit(toks[k].start, toks[k].end, f"var {name} :=")
        last = len(cases) - 1
        # `true` and `false` both cased: the last is the rest (nothing to assert)
        exhaustive = {self._joined(c + 1, arrow - 1) for c, arrow in cases} == {"true", "false"}
        inner_open = False  # the previous case's body is inside an inner `(match ...` still open
        for i, ((c, arrow), kind) in enumerate(zip(cases, kinds, strict=True)):
            test = self._case_test(name, c, arrow, kind)
            pattern = self._joined(c + 1, arrow - 1)
            bind = f" var {pattern} := {name};" if kind == "name" else ""
            inner = kind == "ctor" and self._binds(c + 1, arrow)
            if statement:
                lead = ("" if open_brace is not None else "; ") if i == 0 else "} " * inner_open + "} else "
                if i == last and test and not exhaustive:
                    head = f"{lead}{{ assert {test};"
                elif test and i != last:
                    head = f"{lead}if {test} {{"
                else:
                    head = f"{lead}{{{bind}"
                text = head + (f" match {name} {{ case {pattern} =>" if inner else "")
            else:
                lead = ("" if open_brace is not None else "; ") if i == 0 else ")" * inner_open + " else "
                if i == last and test and not exhaustive:
                    head = f"{lead}assert {test};"
                elif i == last and test:
                    head = lead.rstrip() + " "
                elif test:
                    head = f"{lead}if {test} then"
                else:
                    head = f"{lead}{bind.strip()}"
                opened = "" if i == last else "("  # the last case's inner match ends with the chain
                text = head + (f" {opened}match {name} case {pattern} =>" if inner else "")
            self.edit(toks[c].start, toks[arrow].end, text)
            inner_open = inner and i != last
        if statement and inner and cases:
            # the inner match of the last case closes with the chain
            at = toks[close].start if close is not None else len(self.src)
            self.edit(at, at, "} ")
        what = "match on literals" if "literal" in kinds else "match with a `_`, name or `|` case"
        self.change(line, what, "if chain")

    # -- sequence constructors (Dafny 3+) -> a helper function -------------------------------

    def subset_lets_to_2(self, results: dict[str, str]) -> None:
        """`var s := F(..)` with F's result a subset type of a sequence type (`results`: `_subset_results`) declares
        s's type as the base: Dafny 2.3 infers the subset type and then refuses to index s ("element selection
        requires a sequence ... (got stringNat)", measured), where Dafny 4 takes it. The value is the same; the
        subset type's constraint is F's to prove, and still is."""
        if not results:
            return
        toks = self.toks
        for k in range(len(toks) - 4):
            if (self.v.is_word(k, "var") and toks[k + 1].kind is TokKind.IDENT and toks[k + 2].text == ":="
                    and toks[k + 3].text in results and toks[k + 4].text == "("):
                self.edit(toks[k + 1].end, toks[k + 1].end, f": {results[toks[k + 3].text]}")
                self.change(toks[k + 1].line, f"var {toks[k + 1].text} :=", f"var {toks[k + 1].text}: "
                            f"{results[toks[k + 3].text]} :=")

    def seqs_to_2(self) -> None:
        """`seq(n, f)`, which Dafny 2.3 does not parse, becomes a call of a generated function with the same
        meaning (its `ensures` give the length and every element, proved from its recursive body), declared once
        in each module that uses it, on the module's last line (the file's for top-level uses)."""
        v = self.v
        calls = [k for k in range(v.n) if v.is_word(k, "seq") and v.text(k + 1) in ("(", "<") and self._seq_call(k)]
        if not calls:
            return
        name = self.fresh(self.seq_name)
        modules = self._module_spans()
        homes: set[int | None] = set()
        for k in calls:
            self.edit(self.toks[k].start, self.toks[k].end, name)
            self.change(self.toks[k].line, "seq(n, f)", f"{name}(n, f)")
            inner = [m for m in modules if m[0] < k < m[1]]
            homes.add(max(inner)[1] if inner else None)
        decl = _seq_init(name)
        for close in sorted(homes, key=lambda c: -1 if c is None else c):
            if close is None:
                # right after the last token, on its line: a `//` comment after it would comment the declaration
                # out, and a file may end without a newline
                end = self.toks[-1].end
                self.edit(end, end, " " + decl)
            else:
                at = self.toks[close].start
                self.edit(at, at, decl + " ")

    def _module_spans(self) -> list[tuple[int, int]]:
        """Token spans (`{`, `}`) of module bodies."""
        v = self.v
        spans = []
        for k in range(v.n):
            if v.is_word(k, "module"):
                j = k + 1
                while j < v.n and v.text(j) not in ("{", ";"):
                    j += 1
                if v.text(j) == "{":
                    spans.append((j, v.close(j)))
        return spans


_STATEMENT_CALLABLES = frozenset({"method", "lemma", "constructor"})


def _seq_init(name: str) -> str:
    """A Dafny 2.3 function with the meaning of `seq(n, f)`: length n, element i is f(i), indexes of type `nat` as
    Dafny 4 gives them; one line."""
    return (
        f"function method {name}<T>(n: nat, f: nat ~> T): seq<T> "
        f"requires forall i: nat :: i < n ==> f.requires(i) reads set i: nat, o | i < n && o in f.reads(i) :: o "
        f"ensures |{name}(n, f)| == n ensures forall i: nat :: i < n ==> {name}(n, f)[i] == f(i) decreases n "
        f"{{ if n == 0 then [] else {name}(n - 1, f) + [f(n - 1)] }}"
    )
