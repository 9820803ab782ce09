"""Declarations found in a Dafny file (the data the structural parser produces).

Pure data. Offsets are into the source text the parser was given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.dafny.lexer import LexError, TokKind, significant, tokenize
from bot.dafny.types import NO_DATATYPES, DafnyType, Datatypes


@dataclass(frozen=True)
class Param:
    name: str
    type_text: str  # as written, e.g. "seq<int>"
    type: DafnyType


@dataclass(frozen=True)
class Clause:
    kind: str  # "requires" | "ensures" | "modifies" | "reads" | "decreases"
    text: str  # the expression text after the keyword, without a trailing ';'
    line: int
    start: int  # offset of the keyword
    end: int  # offset after the clause (after a trailing ';' when present)


@dataclass(frozen=True)
class Decl:
    kind: str  # "method" | "lemma" | "function" | "predicate" | "function method" | "predicate method"
    #            | "constructor" | "twostate function" | ... (the keyword(s) as written, without "ghost")
    name: str
    ghost: bool
    params: tuple[Param, ...]
    returns: tuple[Param, ...]  # method out-parameters; for a function, one unnamed Param with its result type
    clauses: tuple[Clause, ...]
    start: int  # offset of the first token of the declaration (modifiers such as `ghost` included)
    header_end: int  # offset after the last specification clause (where the body would start)
    body: tuple[int, int] | None  # offsets of '{' and one past the matching '}', None when bodiless
    end: int  # offset after the whole declaration
    line: int  # 1-based line of the declaring keyword
    end_line: int
    container: str  # "" at top level, else "module M", "class C", "module M.class C" ...
    # a function scored as a method, `ensures result == F(params)` (bot/testcases/dfy_methods.py function_target)
    tested_function: bool = False
    generic: bool = False  # declared with type parameters (`function Len<T>(..)`)

    def clause_texts(self, kind: str) -> list[str]:
        return [c.text for c in self.clauses if c.kind == kind]

    @property
    def scope(self) -> str:
        """The dotted path of the enclosing modules, classes and types ("" at top level): `A.B`."""
        return ".".join(part.split()[-1] for part in self.container.split(".") if part) if self.container else ""

    @property
    def in_module_only(self) -> bool:
        """Declared at top level or inside modules only (not in a class): callable as `M.name`."""
        return all(part.startswith("module ") for part in self.container.split(".") if part)

    @property
    def qualified(self) -> str:
        """The name that tells this declaration apart in reports, jobs and comparisons: `A.Add`."""
        return f"{self.scope}.{self.name}" if self.scope else self.name


def scope_imports(scope: str, opened: Sequence[str] = ()) -> str:
    """The import lines that open module path `scope` (`A.B`) in a module of the generated programs, and the
    top-level modules `opened` that the method's module opens itself (Dafny 2.3's `import opened A` does not carry
    A's own opened imports: a name A's clauses take from one was unresolved, measured). Dafny 2.3 rejects `import
    opened A.B` (a qualified import needs a name) and resolves a named one's path only from a module already
    imported there (`module A does not exist` otherwise, measured): each step is imported by name."""
    parts = scope.split(".")
    if len(parts) == 1:
        lines = [f"import opened {scope}"]
    else:
        lines = [f"import SpecScore_Open0 = {parts[0]}"]
        for k, part in enumerate(parts[1:], start=1):
            last = k == len(parts) - 1
            lines.append(f"import {'opened ' if last else ''}SpecScore_Open{k} = SpecScore_Open{k - 1}.{part}")
    return "\n".join([*lines, *(f"import opened {m}" for m in opened)])


@dataclass(frozen=True)
class DafnyFile:
    path: str
    source: str
    decls: tuple[Decl, ...]
    datatypes: Datatypes = NO_DATATYPES  # those declared in this file, at any nesting
    # the declarations that are not callables, at any nesting: `const`, `var` (fields), `type`, `newtype`,
    # `datatype`, `codatatype`, `class`, `trait`, `module`; `kind` is the keyword, `header_end` where a member
    # block `{` starts (else the end), no clauses and no body
    others: tuple[Decl, ...] = ()

    def opened_in(self, container: str) -> tuple[str, ...]:
        """The modules that the innermost module of `container` (a class's: its module) opens by a plain `import
        opened M` (M a module this file does not declare inside it: a top-level one, or one of an included
        file), in order."""
        container = ".".join(p for p in container.split(".") if p.startswith("module "))
        if not container:
            return ()
        module = next((d for d in self.others if d.kind == "module"
                       and (f"{d.container}.module {d.name}" if d.container else f"module {d.name}") == container),
                      None)
        if module is None:
            return ()
        inner = {d.name for d in self.others if d.kind == "module" and d.container == container}
        try:
            toks = significant(tokenize(self.source[module.header_end:module.end]))
        except LexError:
            return ()
        out: list[str] = []
        depth = 0
        for k, t in enumerate(toks):
            depth += t.text in ("{", "(", "[") and t.kind is not TokKind.STRING
            depth -= t.text in ("}", ")", "]") and t.kind is not TokKind.STRING
            if depth == 0 and t.text == "import" and k + 2 < len(toks) and toks[k + 1].text == "opened":
                name = toks[k + 2]
                after = toks[k + 3].text if k + 3 < len(toks) else ""
                if name.kind is TokKind.IDENT and after not in ("=", ".", ":") and name.text not in inner:
                    out.append(name.text)
        return tuple(dict.fromkeys(out))

    def refining(self, container: str) -> str:
        """The first module around `container` (outermost first) that refines another, or "". A method there has
        the clauses it inherits besides its own, which no restatement of its own clauses states."""
        paths = {f"{d.container}.module {d.name}" if d.container else f"module {d.name}": d
                 for d in self.others if d.kind == "module"}
        parts = container.split(".") if container else []
        for k in range(1, len(parts) + 1):
            d = paths.get(".".join(parts[:k]))
            if d is not None and re.search(r"\brefines\b", self.source[d.start:d.header_end]):
                return d.name
        return ""

    def seen_from(self, container: str) -> DafnyFile:
        """This file as code in `container` sees it by unqualified names: of its functions and predicates only those
        declared there (in a class or datatype, also those of its module: a module sees nothing of the modules
        around it); every other declaration as it is. The ground evaluator and the hints call a function by its
        name: a same-named function of another module is not the one a clause there means."""
        def seen(where: str) -> bool:
            head, _, last = container.rpartition(".")
            return where == container or (bool(last) and not last.startswith("module ") and where == head)

        kept = tuple(d for d in self.decls if not d.kind.startswith(("function", "predicate")) or seen(d.container))
        return self if len(kept) == len(self.decls) else replace(self, decls=kept)

    def end_line(self, clause: Clause) -> int:
        """The 1-based line a clause ends on (its `;` included)."""
        return self.source.count("\n", 0, max(clause.start, clause.end - 1)) + 1

    def find(self, name: str) -> Decl | None:
        """The declaration with this qualified name, or else the first with this plain name."""
        for d in self.decls:
            if d.qualified == name:
                return d
        for d in self.decls:
            if d.name == name:
                return d
        return None

    def methods(self) -> list[Decl]:
        return [d for d in self.decls if d.kind == "method"]
