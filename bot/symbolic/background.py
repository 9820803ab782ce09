"""A method's background: the functions, predicates and lemmas its spec reaches, transitively; which of them are
trusted rather than checked (axioms); and the text whose verification checks the rest. Pure code.

Harness programs verify only themselves (`/proc:Impl$$...`), so every declaration they use is assumed: a
helper whose `ensures` is false makes both the acceptance and the rejection of one output provable
(measured on Dafny 2.3; README, "What a verdict proves"). So the spec file is verified
once as it is written, method bodies aside (they are implementations, not background), and what no
verification can check is named: a body-less function or lemma with `ensures`, `{:verify false}`, `{:axiom}`,
`{:extern}`, an `assume` in a body or a spec clause. Reach is by name, over every declaration of that name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, Token, TokKind, significant, tokenize
from bot.symbolic.program import CHECK_LINE, RUN_FINISHED
from bot.symbolic.results import Axiom, BackgroundStatus

BACKGROUND_NAME = "SpecScoreBackground"
# Dafny 2.3 reports nothing for a file without proof obligations: this one always leaves one
BACKGROUND_METHOD = f"method {BACKGROUND_NAME}() {{ assert true; }}"
_TRUSTING_ATTRIBUTES = {"verify": "{:verify false}", "axiom": "{:axiom}", "extern": "{:extern}"}


@dataclass(frozen=True)
class _Owned:
    file: DafnyFile
    decl: Decl


def _tokens(text: str) -> list[Token]:
    try:
        return significant(tokenize(text))
    except LexError:
        return []  # the parser read this file already; a span that does not lex names nothing


def _names(text: str) -> set[tuple[str, str]]:
    """(qualifier, name) of every identifier: `A.F` gives ("A", "F"), a plain `F` ("", "F")."""
    tokens = _tokens(text)
    out = set()
    for i, t in enumerate(tokens):
        if t.kind is TokKind.IDENT:
            qualified = i >= 2 and tokens[i - 1].text == "." and tokens[i - 2].kind is TokKind.IDENT
            out.add((tokens[i - 2].text if qualified else "", t.text))
    return out


def _spec_text(file: DafnyFile, d: Decl) -> str:
    return file.source[d.start : d.header_end]


def _whole_text(file: DafnyFile, d: Decl) -> str:
    return file.source[d.start : d.end]


def _is_helper(d: Decl) -> bool:
    """Functions, predicates, lemmas of every flavour and ghost methods (a lemma's proof may call one): what a
    spec can name and a harness relies on."""
    return d.kind not in ("method", "constructor") or d.ghost


def _candidates(owned: list[_Owned], qualifier: str, scope: str) -> list[_Owned]:
    """The declarations a name may mean, seen from `scope`: a qualified name's of that qualifier; else those of
    the same scope, else the top level's, else (an opened module's, say) every one of that name."""
    if qualifier:
        named = [o for o in owned if o.decl.scope.split(".")[-1:] == [qualifier]]
        return named or owned
    for wanted in (scope, ""):
        found = [o for o in owned if o.decl.scope == wanted]
        if found:
            return found
    return owned


def reached(method: Decl, files: Sequence[DafnyFile]) -> list[tuple[DafnyFile, Decl]]:
    """The helpers (functions, predicates, lemmas) that `method`'s clauses name, and those theirs name, in
    declaration order. `files[0]` holds the method."""
    helpers: dict[str, list[_Owned]] = {}
    for f in files:
        for d in f.decls:
            if _is_helper(d):
                helpers.setdefault(d.name, []).append(_Owned(f, d))
    seen: dict[tuple[int, int], _Owned] = {}
    todo = [(q, n, method.scope) for q, n in sorted(_names(_spec_text(files[0], method)))]
    while todo:
        qualifier, name, scope = todo.pop()
        for owned in _candidates(helpers.get(name, []), qualifier, scope):
            key = (id(owned.file), owned.decl.start)
            if key not in seen:
                seen[key] = owned
                todo += [(q, n, owned.decl.scope) for q, n in sorted(_names(_whole_text(owned.file, owned.decl)))]
    order = {id(f): i for i, f in enumerate(files)}
    found = sorted(seen.values(), key=lambda o: (order[id(o.file)], o.decl.start))
    return [(o.file, o.decl) for o in found]


def _attributes(tokens: Sequence[Token]) -> list[tuple[str, set[str], int]]:
    """(attribute name, the words of its arguments, line) of every `{:name ...}` among `tokens`."""
    out = []
    for i, t in enumerate(tokens):
        if t.text == "{:" and i + 1 < len(tokens):
            words: set[str] = set()
            depth, j = 0, i + 2
            while j < len(tokens) and not (depth == 0 and tokens[j].text == "}"):
                if tokens[j].text in ("(", "[", "{", "{:"):
                    depth += 1
                elif tokens[j].text in (")", "]", "}"):
                    depth -= 1
                words.add(tokens[j].text)
                j += 1
            out.append((tokens[i + 1].text, words, t.line))
    return out


def _trusted(file: DafnyFile, d: Decl) -> list[Axiom]:
    """Why `d` is trusted rather than checked (empty: it is checked like any declaration)."""
    label = file.path
    found: list[Axiom] = []
    if d.body is None and any(c.kind == "ensures" for c in d.clauses) and d.kind != "method":
        found.append(Axiom(d.qualified, d.line, label, f"body-less {d.kind} with `ensures`"))
    header = _tokens(file.source[d.start : d.body[0] if d.body else d.header_end])
    for name, words, line in _attributes(header):
        if name in _TRUSTING_ATTRIBUTES and (name != "verify" or "false" in words):
            found.append(Axiom(d.qualified, d.line + line - 1, label, _TRUSTING_ATTRIBUTES[name]))
    text = _whole_text(file, d) if _is_helper(d) else _spec_text(file, d)
    for t in _tokens(text):
        if t.kind is TokKind.IDENT and t.text == "assume":
            where = "its spec" if not _is_helper(d) or t.start < d.header_end - d.start else "its body"
            found.append(Axiom(d.qualified, d.line + t.line - 1, label, f"`assume` in {where}"))
            break
    return found


_DECLARATION_WORDS = frozenset({"function", "predicate", "method", "lemma", "const", "class", "datatype",
                                "codatatype", "module", "type", "newtype", "trait", "iterator", "ghost", "static",
                                "twostate", "least", "greatest", "inductive", "copredicate", "colemma", "import"})


def _trusting_declarations(file: DafnyFile) -> list[Axiom]:
    """Constants whose initializer holds an `assume` (`const K := assume false; 5`), and types declared
    `witness *` (Dafny does not check that they have values: a value of an empty one proves anything). The parser
    keeps no declaration for either, so they are found here, by their tokens."""
    tokens = _tokens(file.source)
    out = []
    for i, tok in enumerate(tokens):
        if tok.text not in ("const", "type", "newtype") or i + 1 >= len(tokens):
            continue
        if tokens[i + 1].kind is not TokKind.IDENT:
            continue
        j = i + 2
        while j < len(tokens) and tokens[j].text not in _DECLARATION_WORDS and tokens[j].text != "}":
            if tok.text == "const" and tokens[j].text == "assume":
                out.append(Axiom(tokens[i + 1].text, tok.line, file.path, "`assume` in its initializer"))
                break
            unchecked = tokens[j].text == "witness" and j + 1 < len(tokens) and tokens[j + 1].text == "*"
            if tok.text != "const" and unchecked:
                out.append(Axiom(tokens[i + 1].text, tok.line, file.path, "`witness *`: whether it has values is "
                                                                          "not checked"))
                break
            j += 1
    return out


def axioms(method: Decl, files: Sequence[DafnyFile]) -> tuple[Axiom, ...]:
    """What `method`'s verdicts rest on without a check: its own spec's `assume`s and its helpers' axioms."""
    found = _trusted(files[0], method)
    pairs = reached(method, files)
    for f, d in pairs:
        found += _trusted(f, d)
    mentioned = {n for _, n in _names(_spec_text(files[0], method))}
    mentioned |= {n for f, d in pairs for _, n in _names(_whole_text(f, d))}
    found += [a for f in files for a in _trusting_declarations(f) if a.name in mentioned]
    unique = dict.fromkeys(found)
    return tuple(sorted(unique, key=lambda a: (a.file != files[0].path, a.file, a.line, a.name, a.why)))


def may_trust_statements(method: Decl, files: Sequence[DafnyFile]) -> bool:
    """Whether a proof the method's spec reaches holds a loop or `forall` statement, which Dafny takes on trust
    when it has no body (it only warns): such a method's cases are checked for consistency too."""
    return any(t.text in ("while", "forall") for f, d in reached(method, files) if d.body is not None
               for t in _tokens(f.source[d.body[0] : d.body[1]]))


@dataclass(frozen=True)
class CheckReport:
    """A background check's result as bot/verifier/output.py `whole_file_result` wrote it."""

    checks: dict[str, list[str | None]]  # qualified declaration -> per procedure: "" proved, None not, else why
    finished: bool  # the run ended by itself (else what it did not report was not checked)
    warnings: tuple[tuple[int, str], ...]  # (line of the checked text, Dafny's warning)


def read_check(message: str) -> CheckReport:
    checks: dict[str, list[str | None]] = {}
    warnings = []
    for line in message.splitlines():
        m = CHECK_LINE.match(line)
        if m:
            how = m.group("how")
            checks.setdefault(m.group("name"), []).append("" if how == "ok" else None if how == "not concluded"
                                                          else m.group("why"))
        elif line.startswith("warning line "):
            number, _, text = line[len("warning line "):].partition(": ")
            if number.isdigit():
                warnings.append((int(number), text))
    return CheckReport(checks, RUN_FINISHED in message.splitlines(), tuple(warnings))


def _entries(report: CheckReport, d: Decl) -> list[str | None]:
    """The reported procedures of `d`: by its qualified name (Dafny 2), or by its plain name when the report
    names symbols without their scope (Dafny 4)."""
    def own(key: str) -> bool:
        key = key.removesuffix("#")  # a co-lemma's or inductive lemma's prefix lemma is its proof
        return key == d.qualified or ("." not in key and key == d.name)

    return [why for key, whys in report.checks.items() if own(key) for why in whys]


def _where(text: str, files: Sequence[DafnyFile]) -> str:
    """`line N` of the checked text as the line of the file it comes from: the spec file's lines come first and
    are its own; an included file's are named with it (bot/symbolic/harness/programs.py appends them in this order)."""
    first = files[0].source.count("\n") + (0 if files[0].source.endswith("\n") else 1)

    def place(m: re.Match[str]) -> str:
        n, offset = int(m.group(1)), first
        if n <= offset:
            return m.group(0)
        for f in files[1:]:
            size = f.source.count("\n") + (0 if f.source.endswith("\n") else 1)
            if n <= offset + size:
                return f"{f.path} line {n - offset}"
            offset += size
        return m.group(0)

    return re.sub(r"\bline (\d+)", place, text)


def background_status(method: Decl, files: Sequence[DafnyFile], report: CheckReport) -> tuple[BackgroundStatus, str]:
    """Whether what the method's spec reaches verified, with the failing or unchecked declarations."""
    failed, open_ = [], []
    for _, d in reached(method, files):
        for why in _entries(report, d):
            if why:
                failed.append(f"{d.qualified}: {_where(why, files)}")
            elif why is None:
                open_.append(f"{d.qualified}: not concluded")
    if failed:
        return BackgroundStatus.FAILED, "; ".join(failed)
    if open_:
        return BackgroundStatus.UNKNOWN, "; ".join(open_)
    if not report.finished:
        return BackgroundStatus.UNKNOWN, "the check did not finish"
    return BackgroundStatus.VERIFIED, ""


def ill_formed(method: Decl, report: CheckReport) -> str:
    """The failures of the method's own well-formedness check (its clauses), when the report has them."""
    return "; ".join(why for why in _entries(report, method) if why)


def trusted_statements(method: Decl, files: Sequence[DafnyFile], report: CheckReport) -> tuple[Axiom, ...]:
    """Statements Dafny takes on trust that it warned of (a loop or `forall` without a body) in the proofs the
    method's spec reaches, as axioms; lines of the spec file only (the checked text's first part)."""
    spec = files[0]
    out = []
    for line, text in report.warnings:
        if "has no body" not in text:
            continue
        for f, d in reached(method, files):
            if f is spec and d.line <= line <= d.end_line:
                out.append(Axiom(d.qualified, line, spec.path, f"a statement Dafny trusts ({text})"))
    return tuple(out)
