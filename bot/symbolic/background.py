"""A method's background: the declarations its spec reaches, transitively; which of them are trusted rather than
checked (axioms); and the text whose verification checks the rest. Pure code.

Harness programs verify only themselves (`/proc:Impl$$...`), so every declaration they use is assumed: a
helper whose `ensures` is false makes both the acceptance and the rejection of one output provable
(measured on Dafny 2.3; README, "What a verdict proves"). So the spec file is verified
once as it is written, method bodies aside (they are implementations, not background), and each declaration the
spec reaches is in one of three states: verified (Dafny reported its checks proved), a trusted axiom named with its
file and line (what no verification checks: a body-less declaration with `ensures`, an `assume`, `witness *`, an
attribute that is not on bot/symbolic/trust.py's allow-list, on it, inside it or on its class or module), or not
concluded (no verdict). Reach is computed on the parsed program: every name a reached declaration's text holds
(calls, function values, types, constants, constructors, members), over every declaration of that name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError, Token, TokKind, significant, tokenize
from bot.symbolic.program import CHECK_LINE, RUN_FINISHED
from bot.symbolic.results import Axiom, BackgroundStatus
from bot.symbolic.trust import attributes

BACKGROUND_NAME = "SpecScoreBackground"
# Dafny 2.3 reports nothing for a file without proof obligations: this one always leaves one
BACKGROUND_METHOD = f"method {BACKGROUND_NAME}() {{ assert true; }}"
# declarations that are not callables and that a name may reach (DafnyFile.others); classes, traits and modules
# are reached member by member, by name, and their attributes count for every member
_REACHABLE_OTHERS = frozenset({"const", "var", "type", "newtype", "datatype", "codatatype"})
_CONTAINERS = frozenset({"module", "class", "trait", "datatype", "codatatype", "type", "newtype"})


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


def _is_other(d: Decl) -> bool:
    return d.kind in _REACHABLE_OTHERS and not d.params and d.body is None and not d.clauses and not d.returns


def _spec_text(file: DafnyFile, d: Decl) -> str:
    return file.source[d.start : d.header_end]


def _whole_text(file: DafnyFile, d: Decl) -> str:
    """What a reached declaration names: a callable's whole text; a constant's or a type's definition (its
    initializer, constraint and witness; a member block's members are reached by their own names)."""
    return file.source[d.start : d.header_end if _is_other(d) else d.end]


def _is_helper(d: Decl) -> bool:
    """Functions, predicates, lemmas of every flavour and ghost methods (a lemma's proof may call one): what a
    spec can name and a harness relies on."""
    return d.kind not in ("method", "constructor") or d.ghost


# words after which a name may mean a declaration of a scope that is not around it: a trait's member inherited by
# a class, a refined module's, an imported (opened or aliased) module's
_OTHER_SCOPES = frozenset({"extends", "refines", "import"})


def _scopes_nest(files: Sequence[DafnyFile]) -> bool:
    """Whether a name can only mean a declaration of its own scope or of one around it (no file inherits, refines
    or imports)."""
    return not any(t.kind is TokKind.IDENT and t.text in _OTHER_SCOPES for f in files for t in _tokens(f.source))


def _candidates(owned: list[_Owned], qualifier: str, scope: str, nested: bool = True) -> list[_Owned]:
    """The declarations a name may mean, seen from `scope`: a qualified name's of that qualifier; else those of
    `scope` and of every scope around it (`A.B`, `A`, the top level: which one Dafny picks is not decided here),
    else (an opened module's, say) every one of that name. Every one of that name when scopes do not only nest
    (`nested` false: an inherited member, a refined or imported module's, shadows one of a scope around)."""
    if not nested:
        return owned
    if qualifier:
        named = [o for o in owned if o.decl.scope.split(".")[-1:] == [qualifier]]
        return named or owned
    parts = scope.split(".") if scope else []
    around = {".".join(parts[:k]) for k in range(len(parts) + 1)}
    return [o for o in owned if o.decl.scope in around] or owned


def _reachable(files: Sequence[DafnyFile]) -> dict[str, list[_Owned]]:
    """Every declaration a name may reach, by name: helpers, constants, fields and types; a datatype also by
    its constructors' names (`Leaf(1)` reaches the datatype's definition and what it names)."""
    table: dict[str, list[_Owned]] = {}
    for f in files:
        for d in f.decls:
            if _is_helper(d):
                table.setdefault(d.name, []).append(_Owned(f, d))
        ctors = {dt.name: [c.name for c in dt.ctors] for dt in f.datatypes.decls}
        for d in f.others:
            if d.kind in _REACHABLE_OTHERS:
                for name in (d.name, *(ctors.get(d.name, []) if "datatype" in d.kind else [])):
                    table.setdefault(name, []).append(_Owned(f, d))
    return table


def reached(method: Decl, files: Sequence[DafnyFile]) -> list[tuple[DafnyFile, Decl]]:
    """The declarations (helpers, constants, types) that `method`'s clauses and signature name, and those theirs
    name, in declaration order. `files[0]` holds the method."""
    table = _reachable(files)
    nested = _scopes_nest(files)
    seen: dict[tuple[int, int, str], _Owned] = {}
    todo = [(q, n, method.scope) for q, n in sorted(_names(_spec_text(files[0], method)))]
    while todo:
        qualifier, name, scope = todo.pop()
        for owned in _candidates(table.get(name, []), qualifier, scope, nested):
            key = (id(owned.file), owned.decl.start, owned.decl.kind)
            if key not in seen:
                seen[key] = owned
                todo += [(q, n, owned.decl.scope) for q, n in sorted(_names(_whole_text(owned.file, owned.decl)))]
    order = {id(f): i for i, f in enumerate(files)}
    found = sorted(seen.values(), key=lambda o: (order[id(o.file)], o.decl.start, o.decl.kind))
    return [(o.file, o.decl) for o in found]


def _containers(file: DafnyFile, d: Decl) -> list[Decl]:
    """The modules, classes, traits and types `d` is declared in (outermost first)."""
    return [o for o in file.others if o.kind in _CONTAINERS and o is not d and o.start <= d.start and d.end <= o.end
            and o.header_end <= d.start]


def _unchecked_attributes(file: DafnyFile, d: Decl, text_end: int) -> list[Axiom]:
    """The attributes not on the allow-list in `d`'s text up to `text_end` and on its containers' headers."""
    found = []
    spans = [(d.start, text_end, "")]
    spans += [(c.start, c.header_end, f" on {c.kind} {c.name}") for c in _containers(file, d)]
    for start, end, where in spans:
        line = file.source.count("\n", 0, start)
        text = file.source[start:end]
        for a in attributes(_tokens(text), text):
            if not a.allowed:
                found.append(Axiom(d.qualified, line + a.line, file.path, f"{a.text}{where}"))
    return found


def _trusted(file: DafnyFile, d: Decl, root: bool = False) -> list[Axiom]:
    """Why `d` is trusted rather than checked (empty: it is checked like any declaration). `root`: `d` is the
    scored method, whose spec (not its body, the implementation) is what the verdicts rest on."""
    label = file.path
    found: list[Axiom] = []
    if not root and d.body is None and any(c.kind == "ensures" for c in d.clauses):
        kind = f"ghost {d.kind}" if d.ghost and d.kind == "method" else d.kind
        found.append(Axiom(d.qualified, d.line, label, f"body-less {kind} with `ensures`"))
    end = d.header_end if root or _is_other(d) else d.end
    found += _unchecked_attributes(file, d, end)
    first = file.source.count("\n", 0, d.start)
    tokens = _tokens(file.source[d.start : end])
    for t in tokens:
        if t.kind is TokKind.IDENT and t.text == "assume":
            where = ("its initializer" if d.kind == "const" else "its definition" if _is_other(d)
                     else "its spec" if root or t.start < d.header_end - d.start else "its body")
            found.append(Axiom(d.qualified, first + t.line, label, f"`assume` in {where}"))
            break
    unchecked = [i for i, t in enumerate(tokens[:-1]) if t.text == "witness" and tokens[i + 1].text == "*"]
    if d.kind in ("type", "newtype") and unchecked:
        found.append(Axiom(d.qualified, d.line, label, "`witness *`: whether it has values is not checked"))
    return found


def axioms(method: Decl, files: Sequence[DafnyFile]) -> tuple[Axiom, ...]:
    """What `method`'s verdicts rest on without a check: its own spec's `assume`s and attributes, and the axioms
    of what it reaches."""
    found = _trusted(files[0], method, root=True)
    for f, d in reached(method, files):
        found += _trusted(f, d)
    unique = dict.fromkeys(found)
    return tuple(sorted(unique, key=lambda a: (a.file != files[0].path, a.file, a.line, a.name, a.why)))


def own_checking_off(method: Decl, file: DafnyFile) -> str:
    """Why Dafny's check of the method itself (its clauses' well-formedness, its body) is not to be believed: an
    attribute not on the allow-list on it, in it or on its class or module (`{:verify false}`,
    `{:selective_checking}`, `{:ignore}`...), or an `assume` or `expect` in it (the verifier assumes what an
    `expect` checks at run time: `expect false;` makes any body verify); "" when none."""
    found = _unchecked_attributes(file, method, method.end)
    before = file.source.count("\n", 0, method.start)
    found += [Axiom(method.qualified, before + t.line, file.path, f"`{t.text}`")
              for t in _tokens(file.source[method.start : method.end])
              if t.kind is TokKind.IDENT and t.text in ("assume", "expect")]
    return "; ".join(f"{a.why} at line {a.line}" for a in found)


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


def _expects_a_check(d: Decl) -> bool:
    """A callable with a body and an `ensures`: Dafny 2.3 always reports a procedure for it (its proof, or a
    function's body against its `ensures`), so a run that finished without one did not check it."""
    return not _is_other(d) and d.body is not None and any(c.kind == "ensures" for c in d.clauses)


def background_status(method: Decl, files: Sequence[DafnyFile], report: CheckReport) -> tuple[BackgroundStatus, str]:
    """Whether what the method's spec reaches verified, with the failing or unchecked declarations. A declaration
    named as a trusted axiom is reported as such (`axioms`), not here; any other one is verified only when each
    procedure Dafny reported of it was proved, and one that must have a procedure had one."""
    failed, open_ = [], []
    for f, d in reached(method, files):
        entries = _entries(report, d)
        for why in entries:
            if why:
                failed.append(f"{d.qualified}: {_where(why, files)}")
            elif why is None:
                open_.append(f"{d.qualified}: not concluded")
        if not entries and report.finished and _expects_a_check(d) and not _trusted(f, d):
            open_.append(f"{d.qualified}: Dafny reported no check of it")
    if failed:
        return BackgroundStatus.FAILED, "; ".join(failed)
    if open_:
        return BackgroundStatus.UNKNOWN, "; ".join(open_)
    if not report.finished:
        return BackgroundStatus.UNKNOWN, "the check did not finish"
    return BackgroundStatus.VERIFIED, ""


def well_formed(method: Decl, report: CheckReport) -> bool | None:
    """Whether the method's own spec was proved well-formed (its clauses' procedure reported checked), False when
    that check failed, None when it was not concluded or not reported."""
    entries = _entries(report, method)
    if any(entries):
        return False
    # Dafny 2.3 reports no procedure for clauses with nothing to prove (measured: `ensures r == x + 1`); a method
    # whose checking an attribute turns off is a named axiom (`axioms`), which the callers refuse apart
    return True if report.finished and all(e == "" for e in entries) else None


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
