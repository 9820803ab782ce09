"""From parsed spec files and their test cases to method scores, through an engine.

No I/O of its own: the engine (which runs the verifier) is passed in. Two rounds: first the
checks of every case (precondition, vacuity, correctness), then mutants of the cases that verified,
so no verifier time goes to mutants of a case that is already wrong or inconclusive.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.dialect import Dialect
from bot.dafny.types import unsupported_parts
from bot.dafny.values import show
from bot.harness import (
    HarnessError,
    HarnessOptions,
    Planned,
    ProgramKind,
    UnsupportedType,
    make_prelude,
    mutation_target,
    plan_case,
)
from bot.mutants import Mutant, mutate
from bot.outcomes import Outcome, Program, Result
from bot.scoring import (
    CaseResult,
    CaseStatus,
    MethodScore,
    MutantResult,
    case_status,
    method_score,
    mutant_status,
)
from bot.tests_io.model import CaseProblem, ReadResult, TestCase


class EngineLike(Protocol):
    def run(self, programs: Sequence[Program]) -> dict[Program, Result]: ...


@dataclass(frozen=True)
class ScoreOptions:
    mutants: int = 5
    seed: int = 0
    harness: HarnessOptions = field(default_factory=HarnessOptions)


@dataclass(frozen=True)
class MethodJob:
    file: DafnyFile  # the spec file (its declarations are the harness prelude)
    method: Decl
    cases: tuple[TestCase, ...]
    problems: tuple[CaseProblem, ...] = ()
    display_path: str = ""  # path as shown in reports


def method_jobs(
    file: DafnyFile, read: ReadResult, names: Sequence[str] | None = None, display_path: str = ""
) -> list[MethodJob]:
    """One job per tested method of the file (or per given name), with its cases and unreadable cases."""
    if names is None:
        names = sorted({c.method for c in read.cases} | {p.method for p in read.problems if p.method})
    jobs = []
    for name in names:
        decl = file.find(name)
        if decl is None or decl.kind != "method":
            continue
        cases = tuple(c for c in read.cases if c.method == name)
        problems = tuple(p for p in read.problems if p.method in ("", name))
        jobs.append(MethodJob(file, decl, cases, problems, display_path or file.path))
    return jobs


def show_assignment(names: Sequence[str], values: Sequence[object], types: Sequence[object]) -> str:
    parts = [f"{n} = {show(v, t)}" for n, v, t in zip(names, values, types, strict=True)]  # type: ignore[arg-type]
    return ", ".join(parts)


_POSITION = re.compile(r"^\S*?\(\d+,\d+\): ", re.MULTILINE)
_LINE_REF = re.compile(r"(related location: )?\bline (\d+)(: )?")


def clean_message(message: str) -> str:
    """Drop positions in the generated file: they depend on how programs were batched."""
    return _POSITION.sub("", message).strip()


def explain(message: str, program: Program) -> str:
    """Replace line numbers of the generated program by the clause they point at.

    A user never sees the harness, so "line 13" means nothing; "ensures |r| == |s|" does.
    """
    lines = program.text().splitlines()

    def sub(m: re.Match[str]) -> str:
        n = int(m.group(2))
        text = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        if text.startswith("forall") and " ensures " in text:  # a case-split hint restating a clause
            text = "ensures " + text.split(" ensures ", 1)[1].rstrip("{ ")
        if text.startswith(("ensures", "requires", "modifies")) or (text.startswith("assert ") and "false" not in text):
            return f"`{' '.join(text.rstrip(';').split())}`" + (": " if m.group(3) else "")
        return ""

    return " ".join(_LINE_REF.sub(sub, clean_message(message)).split()).replace("()", "").strip()


@dataclass
class _CaseWork:
    case: TestCase
    planned: list[Planned]
    fixed: CaseResult | None = None  # decided without the verifier (unsupported, harness error)


def _display(job: MethodJob, case: TestCase) -> tuple[str, str]:
    m = job.method
    inputs = show_assignment([p.name for p in m.params], case.inputs, [p.type for p in m.params])
    values, types, names = mutation_target(m, case)
    return inputs, show_assignment(names, values, types)


def _plan(
    job: MethodJob, prelude: str, case: TestCase, mutants: list[Mutant], options: ScoreOptions
) -> _CaseWork:
    try:
        return _CaseWork(case, plan_case(prelude, job.file, job.method, case, mutants, options.harness))
    except HarnessError as e:
        status = CaseStatus.UNSUPPORTED if isinstance(e, UnsupportedType) else CaseStatus.ERROR
        try:
            inputs, expected = _display(job, case)
        except (ValueError, TypeError, AssertionError):
            inputs, expected = "", ""
        return _CaseWork(
            case,
            [],
            CaseResult(case.name, case.line, inputs, expected, case.text, case.source, status, str(e)),
        )


def _unsupported(job: MethodJob) -> list[_CaseWork]:
    """Cases that could not be read because the method has a type without values: one result each."""
    bad = [(p, unsupported_parts(p.type)) for p in (*job.method.params, *job.method.returns)]
    bad = [(p, parts) for p, parts in bad if parts]
    if not bad:
        return []
    p, parts = bad[0]
    reason = f"unsupported type `{p.type_text}` of `{p.name}` (not supported: {', '.join(parts)})"
    out = []
    for k, prob in enumerate(job.problems, 1):
        name = prob.name or f"case#{k}"
        placeholder = TestCase(name, job.method.name, (), (), (), prob.source, prob.line, "")
        out.append(
            _CaseWork(
                placeholder,
                [],
                CaseResult(name, prob.line, "", "", "", prob.source, CaseStatus.UNSUPPORTED, reason),
            )
        )
    return out


def _mutants_for(job: MethodJob, case: TestCase, options: ScoreOptions) -> list[Mutant]:
    values, types, names = mutation_target(job.method, case)
    if not values or options.mutants <= 0:
        return []
    # arrays changed in place keep their length: a shorter expected state has no harness
    fixed = frozenset(range(len(case.expected), len(values)))
    try:
        return mutate(
            values,
            types,
            names,
            seed=options.seed,
            count=options.mutants,
            salt=f"{job.method.name}\0{case.name}",
            real_tolerance=options.harness.real_tolerance,
            fixed_length=fixed,
        )
    except ValueError:
        return []  # a type without mutation operators: the case still counts for correctness


def score_methods(
    jobs: Sequence[MethodJob],
    engine: EngineLike,
    dialect: Dialect,
    options: ScoreOptions = ScoreOptions(),
    on_phase: Callable[[str], None] | None = None,
) -> list[MethodScore]:
    preludes: dict[int, str] = {}
    prelude_errors: dict[int, str] = {}
    for job in jobs:
        key = id(job.file)
        if key not in preludes and key not in prelude_errors:
            try:
                preludes[key] = make_prelude(job.file, dialect)
            except (ValueError, HarnessError) as e:
                prelude_errors[key] = str(e)

    # round 1: checks of every case
    work: list[list[_CaseWork]] = []
    for job in jobs:
        prelude = preludes.get(id(job.file))
        if prelude is None:
            work.append([])
            continue
        work.append([_plan(job, prelude, c, [], options) for c in job.cases] + _unsupported(job))
    if on_phase:
        on_phase("cases")
    results = engine.run([p.program for ws in work for w in ws for p in w.planned])

    # round 2: mutants of verified cases
    statuses: list[list[tuple[CaseStatus, str]]] = []
    mutant_work: list[list[list[Planned]]] = []
    for job, ws in zip(jobs, work, strict=True):
        st_row: list[tuple[CaseStatus, str]] = []
        mw_row: list[list[Planned]] = []
        prelude = preludes.get(id(job.file), "")
        for w in ws:
            if w.fixed is not None:
                st_row.append((w.fixed.status, w.fixed.message))
                mw_row.append([])
                continue
            by_kind = {p.kind: _explained(results[p.program], p.program) for p in w.planned}
            status, message = case_status(
                by_kind.get(ProgramKind.PRECONDITION),
                by_kind.get(ProgramKind.VACUITY),
                by_kind[ProgramKind.CORRECTNESS],
            )
            st_row.append((status, clean_message(message)))
            planned: list[Planned] = []
            if status is CaseStatus.VERIFIED:
                muts = _mutants_for(job, w.case, options)
                if muts:
                    mw = _plan(job, prelude, w.case, muts, options)
                    planned = [p for p in mw.planned if p.kind is ProgramKind.MUTANT]
            mw_row.append(planned)
        statuses.append(st_row)
        mutant_work.append(mw_row)
    if on_phase:
        on_phase("mutants")
    mresults = engine.run([p.program for row in mutant_work for ps in row for p in ps])

    scores: list[MethodScore] = []
    for job, ws, st_row, mw_row in zip(jobs, work, statuses, mutant_work, strict=True):
        cases: list[CaseResult] = []
        for w, (status, message), planned in zip(ws, st_row, mw_row, strict=True):
            if w.fixed is not None:
                cases.append(w.fixed)
                continue
            inputs, expected = _display(job, w.case)
            mres = tuple(_mutant_result(job, w.case, p, mresults[p.program]) for p in planned)
            cases.append(
                CaseResult(
                    w.case.name,
                    w.case.line,
                    inputs,
                    expected,
                    w.case.text,
                    w.case.source,
                    status,
                    message,
                    mres,
                )
            )
        note = prelude_errors.get(id(job.file), "")
        if not job.cases and not job.problems and not note:
            note = "no test cases found"
        problems = () if _unsupported(job) else tuple(str(p) for p in job.problems)
        scores.append(
            method_score(
                job.display_path or job.file.path,
                job.method.name,
                job.method.line,
                tuple(cases),
                problems,
                note,
            )
        )
    return scores


def _explained(r: Result, p: Program) -> Result:
    return Result(r.outcome, explain(r.message, p), r.seconds)


def _mutant_result(job: MethodJob, case: TestCase, p: Planned, r: Result) -> MutantResult:
    assert p.mutant is not None
    _, types, names = mutation_target(job.method, case)
    if len(names) == 1:
        value = show(p.mutant.values[0], types[0])
    else:
        value = show_assignment(names, p.mutant.values, types)
    message = (
        ""
        if r.outcome in (Outcome.VERIFIED, Outcome.REFUTED)
        else f"{r.outcome.value}: {clean_message(r.message)}"
    )
    return MutantResult(value, p.mutant.description, mutant_status(r), message)
