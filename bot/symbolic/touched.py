"""Which methods a pull request changed: what the gate judges by default (`gate-scope: methods`). Pure code.

A method is changed when it is new, when its own declaration up to its body changed (signature and clauses),
when its test cases changed (what they state, not where: moving a test is no change), or when a declaration its
spec reaches changed (a helper, a constant, a type: bot/symbolic/background.py `reached`). An untouched method
of a touched file is still scored and reported; it fails the check only through a regression against base or
with `gate-scope: files`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.dafny.decls import DafnyFile
from bot.dafny.includes import included_files
from bot.symbolic.background import reached
from bot.symbolic.rounds import MethodJob

Key = tuple[str, str]  # (file as reports show it, qualified method name)


def method_key(job: MethodJob) -> Key:
    """How reports and the gate know a job's method: (file as reports show it, qualified name)."""
    return (job.display_path or job.file.path, job.method.qualified)


def _files(job: MethodJob) -> list[DafnyFile]:
    try:
        return [job.file, *included_files(job.file, job.include_root, job.spec_path)]
    except ValueError:
        return [job.file]


def fingerprint(job: MethodJob) -> tuple[object, ...]:
    """What the method's score depends on, without positions: its header and clauses, its cases as stated, the
    cases that could not be read, and the text of every declaration its spec reaches."""
    m = job.method
    header = job.file.source[m.start : m.header_end]
    cases = tuple(sorted(repr(replace(c, line=0, source="")) for c in job.cases))
    problems = tuple(sorted(p.reason for p in job.problems))
    helpers = tuple(sorted((d.qualified, f.source[d.start : d.end]) for f, d in reached(m, _files(job))))
    return (header, cases, problems, helpers)


def touched(head: Sequence[MethodJob], base: Sequence[MethodJob]) -> set[Key]:
    """The head methods the pull request changed (new ones included)."""
    before = {method_key(j): fingerprint(j) for j in base}
    return {method_key(j) for j in head if before.get(method_key(j)) != fingerprint(j)}
