"""Verified suggestions: a candidate clause is offered only when the same engine proves it better. Pure code (the
engine is passed in).

For a weak method (every case verified, and wrong outputs proved accepted: surviving mutants, confirmed witnesses),
each candidate (bot/symbolic/suggest/templates.py) is added as one more `ensures` to a copy of the spec, and the
method is scored again with the same cases, with every wrong output the spec accepted as its mutants (no others:
those are what the clause must reject, and generated ones would multiply the programs for no verdict). The
candidate is offered only when all of these are proved:
- every test case is verified (its expected output accepted, by proof; consistent, since a vacuous or inconsistent
  case is not verified);
- the helpers the spec reaches still verify;
- every wrong output the original spec accepted is killed (its rejection proved, or implied by a proved pin).
Order variants of the expected output and reals within the tolerance are not wrong outputs here (bot/symbolic/
rounds.py, `_accepted_wrong`), so a clause that pins a result up to order passes. Candidates that pass are ranked
by what the pin check proves with them (pinned, then up to order, then as a set), then by length.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.dafny.dialect import Dialect
from bot.dafny.includes import included_files
from bot.dafny.parser import DafnyParseError, parse_file
from bot.progress.lines import MethodTally
from bot.symbolic import everywhere_run
from bot.symbolic.background import BACKGROUND_METHOD, BACKGROUND_NAME, own_checking_off, read_check
from bot.symbolic.harness.programs import HarnessError, make_prelude
from bot.symbolic.program import Outcome, Program, Result
from bot.symbolic.results import BackgroundStatus, CaseStatus, Determinacy, MethodScore, MutantStatus, Suggestion
from bot.symbolic.rounds import EXTRA_OUTPUT, EngineLike, MethodJob, ScoreOptions, Strategy, score_methods
from bot.symbolic.stages import run_stages
from bot.symbolic.suggest.templates import Candidate, candidates
from bot.symbolic.together import stop_if_stopped, together
from bot.symbolic.urgency import URGENCY

# an external suggester: candidate clauses for a weak method (bot/verifier/suggester.py runs one)
Suggester = Callable[[MethodJob, MethodScore], Sequence[Candidate]]


def describe(job: MethodJob, score: MethodScore) -> dict[str, object]:
    """What an external suggester is told of a weak method: its signature, clauses, tests and the wrong outputs
    its spec accepts (as Dafny text)."""
    m = job.method
    return {
        "file": score.file,
        "method": m.qualified,
        "parameters": [{"name": p.name, "type": p.type_text} for p in m.params],
        "returns": [{"name": p.name, "type": p.type_text} for p in m.returns],
        "requires": m.clause_texts("requires"),
        "ensures": m.clause_texts("ensures"),
        "tests": [{"name": c.name, "inputs": c.inputs, "expected": c.expected} for c in score.cases],
        "wrong_outputs_accepted": list({(w.case, w.value): {"case": w.case, "inputs": w.inputs,
                                                             "expected": w.expected, "output": w.value}
                                        for w in (*score.witnesses, *score.surviving)}.values()),
    }


def weak(score: MethodScore) -> bool:
    """Worth a suggestion: every case verified on a checked background, and a wrong output proved accepted."""
    return (score.correctness == 1.0 and all(c.status is CaseStatus.VERIFIED for c in score.cases)
            and score.background is BackgroundStatus.VERIFIED and any(c.accepted_wrong for c in score.cases))


def strengthened(job: MethodJob, score: MethodScore, clause: str) -> MethodJob | None:
    """The job with `ensures clause` added after the method's last clause, and the wrong outputs its spec accepted
    as extra mutants; None when the spec cannot be read again the same way."""
    source = job.file.source
    at = job.method.header_end
    text = source[:at].rstrip() + f"\n  ensures {clause}" + source[at:]
    try:
        file = parse_file(text, job.file.path)
    except (DafnyParseError, ValueError, RecursionError):
        return None
    method = file.find(job.method.qualified)
    same = method is not None and [p.type for p in (*method.params, *method.returns)] == [
        p.type for p in (*job.method.params, *job.method.returns)]
    if method is None or not same:
        return None  # e.g. a datatype from an included file no longer read: no suggestion rather than a wrong one
    extra = tuple((c.name, c.accepted_wrong) for c in score.cases if c.accepted_wrong)
    return replace(job, file=file, method=method, extra_outputs=extra)


def _proved_better(new: MethodScore, cases: int, wrong: int) -> bool:
    extra = [m for c in new.cases for m in c.mutants if m.description == EXTRA_OUTPUT]
    return (len(new.cases) == cases and all(c.status is CaseStatus.VERIFIED for c in new.cases)
            and new.background is BackgroundStatus.VERIFIED and len(extra) == wrong
            and all(m.status is MutantStatus.KILLED for m in extra))


def _suggestion(cand: Candidate, new: MethodScore, wrong: int, line: int) -> Suggestion:
    pins = new.pins
    return Suggestion(
        clause=cand.clause,
        template=cand.template,
        line=line,
        cases=len(new.cases),
        rejected=wrong,
        pinned=pins[Determinacy.PINNED.value],
        pinned_up_to_order=pins[Determinacy.PINNED_UP_TO_ORDER.value],
        pinned_as_set=pins[Determinacy.PINNED_AS_SET.value],
        pin_checked=sum(c.determinacy is not None for c in new.cases),
    )


def _rank(s: Suggestion) -> tuple[int, int, int, int, str]:
    return (-s.pinned, -s.pinned_up_to_order, -s.pinned_as_set, len(s.clause), s.clause)


def with_suggestions(
    jobs: Sequence[MethodJob],
    scores: Sequence[MethodScore],
    engine: EngineLike,
    dialect: Dialect,
    options: ScoreOptions,
    more: Suggester | None = None,
) -> list[MethodScore]:
    """`scores` with the verified suggestions of each weak method (best first); the others unchanged. All
    candidates of all methods are scored in one run, so the engine verifies them side by side."""
    plans: list[tuple[int, Candidate, MethodJob]] = []
    for k, (job, score) in enumerate(zip(jobs, scores, strict=True)):
        if not weak(score) or own_checking_off(job.method, job.file):
            continue  # a method Dafny does not check as written: no clause, body or well-formedness claim
        if score.slow:
            continue  # its programs timed out at the full limit: each candidate would ask them all again
        stop_if_stopped(engine)  # a failure beside it stops it before a suggester's minute, not after
        extra = more(job, score) if more is not None else ()
        for cand in candidates(job.file, job.method, job.cases, extra):
            again = strengthened(job, score, cand.clause)
            if again is not None:
                plans.append((k, cand, again))
    if not plans:
        return list(scores)
    # each candidate's rescoring spends an even part of its method's share of what the rounds left of the budget: its
    # own, so that which candidates are scored in full does not depend on which one the engine reaches first
    count = {k: sum(1 for q, _, _ in plans if q == k) for k, _, _ in plans}
    plans = [(k, cand, replace(again, ledger=ledger.share(SUGGESTION_SHARE / count[k]))
              if (ledger := scores[k].ledger) is not None else again) for k, cand, again in plans]
    # no witness search (Strategy.LEAN): a suggestion is ranked by what the pins prove, never by a witness; and the
    # whole's pins, which the leading clauses' would not give (the suggested clause is the last)
    again_options = replace(options, mutants=0, suggest=False, witnesses=options.strategy is not Strategy.LEAN,
                            first_limit=None, leading_pins=False)
    rescored: list[MethodScore] = []
    # a method with one candidate has its body checked beside the rescoring, on an engine that takes runs side by
    # side: the check depends on the clause alone, and after the rescoring it was one more round trip the suggestion
    # waited for (the pull request's last 0.6 s, one slot idle); a candidate the rescoring refuses costs that program.
    # (A method whose rounds spent its budget is `slow`, and has no candidates above.)
    early: dict[int, Program] = {}
    if getattr(engine, "concurrent", False):
        early, _ = _bodies({k: again for k, _, again in plans if count[k] == 1}, dialect)
    checked_early: dict[Program, Result] = {}

    def rescore(through: EngineLike) -> None:
        rescored[:] = score_methods([p[2] for p in plans], through, dialect, again_options)

    def bodies_beside(through: EngineLike) -> None:
        URGENCY.set(URGENCY.get() + 1)  # behind the rescoring, whose rounds are the longer way (symbolic/urgency.py)
        checked_early.update(through.run(list(early.values())))

    if early:
        together(engine, [rescore, bodies_beside], 2)
    else:
        rescore(engine)
    passed: list[tuple[int, Candidate, MethodJob, MethodScore, int]] = []
    for (k, cand, again), new in zip(plans, rescored, strict=True):
        wrong = sum(len(set(outputs)) for _, outputs in again.extra_outputs)
        # nothing trusted that the spec did not already rest on (a body-less helper with a false `ensures` makes
        # any clause about it provable)
        trusted = set(new.axioms) <= set(scores[k].axioms)
        if _proved_better(new, len(scores[k].cases), wrong) and trusted:
            passed.append((k, cand, again, new, wrong))
    lines = {k: max((jobs[k].file.end_line(c) for c in jobs[k].method.clauses), default=jobs[k].method.line)
             for k, *_ in passed}  # after the line the last specification clause ends on (one may span several)
    offered = [(k, _suggestion(cand, new, wrong, lines[k]), again) for k, cand, again, new, wrong in passed]
    formed = [proved_well_formed(new, again) for _, _, again, new, _ in passed]
    # per method, the candidate ranked first: its body is checked in the same engine run as every candidate's
    # well-formedness, so the PR waits for one more round trip, not two (one that turns out ill-formed has the best
    # well-formed one's body checked after, alone)
    first: dict[int, tuple[Suggestion, MethodJob]] = {}
    for k, s, again in offered:
        if k not in first or _rank(s) < _rank(first[k][0]):
            first[k] = (s, again)
    forms = [None if known else _check(again, dialect) for (_, _, again), known in zip(offered, formed, strict=True)]
    bodies, said = _bodies({k: again for k, (_, again) in first.items()}, dialect)
    asked = [p for p in dict.fromkeys([*(p for p in forms if isinstance(p, Program)), *bodies.values()])
             if p not in checked_early]
    results = {**checked_early, **(engine.run(asked) if asked else {})}
    found: dict[int, list[tuple[Suggestion, MethodJob]]] = {}
    for (k, s, again), form, known in zip(offered, forms, formed, strict=True):
        if known or isinstance(form, Program) and _well(results[form], again):
            found.setdefault(k, []).append((s, again))
    ranked = {k: [g for g, _ in sorted(found[k], key=lambda pair: _rank(pair[0]))] for k in found}
    best = {k: min(found[k], key=lambda pair: _rank(pair[0]))[1] for k in found}
    checked = {k: _implementation(results[bodies[k]], job.method.qualified, job.method.name) if k in bodies
               else said[k] for k, job in best.items() if job is first[k][1]}
    checked.update(_implementations({k: job for k, job in best.items() if k not in checked}, engine, dialect))
    return [replace(s, suggestions=(replace(ranked[k][0], implementation=checked[k]), *ranked[k][1:]))
            if k in ranked else s for k, s in enumerate(scores)]


def _well_formed(jobs: Sequence[MethodJob], engine: EngineLike, dialect: Dialect,
                 known: Sequence[bool]) -> list[bool]:
    """Whether each strengthened spec is well-formed as the user would write it (every index in range, every call
    within its `requires`): harness programs skip that check, so a clause such as `r == a[0]` could be proved of
    the tests and still be rejected by Dafny in the spec. One program per job (the method's spec, its body left
    out), all in one engine run; none for a job `known` well-formed (proved_well_formed of its rescoring)."""
    programs = [None if ok else _check(job, dialect) for job, ok in zip(jobs, known, strict=True)]
    made = [p for p in programs if isinstance(p, Program)]
    results = engine.run(made) if made else {}
    return [ok or isinstance(p, Program) and _well(results[p], job)
            for p, job, ok in zip(programs, jobs, known, strict=True)]


def proved_well_formed(new: MethodScore, job: MethodJob) -> bool:
    """Whether a rescoring already proved its strengthened spec well-formed: its background check verified, and it
    checks every scored method's own spec too (rounds.py `_background_checks`: the file as written, its proofs
    kept), which reported the method's clauses checked (background.py `well_formed`). The check of its spec alone
    (`_check`) would ask the same clauses again, but for one thing: it verifies every procedure of the method's
    name (Dafny's `/proc` pattern) and needs them all, so a namesake elsewhere (`Other.M`, `C.M`) that fails
    refuses the clause there; where the method's name is not its own alone, that check is still asked."""
    return new.background is BackgroundStatus.VERIFIED and new.well_formed is True and _sole_name(job)


def _sole_name(job: MethodJob) -> bool:
    """Whether no other declaration of any kind in the spec file or the files it includes has the method's name."""
    try:
        files = [job.file, *included_files(job.file, job.include_root, job.spec_path)]
    except ValueError:
        return False
    return sum(d.name == job.method.name for f in files for d in (*f.decls, *f.others)) == 1


def _well(r: Result, job: MethodJob) -> bool:
    # a body-less method's well-formedness check is not listed by name: the whole run must verify, finished
    return (r.outcome is Outcome.VERIFIED and read_check(r.message).finished
            and not _implementation(r, job.method.qualified, job.method.name).startswith("fails"))


def _check(job: MethodJob, dialect: Dialect, keep_body: bool = False) -> Program | str:
    """The program that checks the method's own procedures in its (strengthened) spec file, as Dafny checks the
    file (the background check's kind): its spec's well-formedness, and with `keep_body` its body too; or why
    there is none."""
    try:
        text = make_prelude(job.file, dialect, job.include_root, job.spec_path,
                            keep_body=job.method.qualified if keep_body else "")
    except (ValueError, HarnessError) as e:
        return str(e)
    return Program(text, BACKGROUND_NAME, BACKGROUND_METHOD, checks=(job.method.name,))


def _implementations(best: dict[int, MethodJob], engine: EngineLike, dialect: Dialect) -> dict[int, str]:
    """Per method, whether its own body verifies against the spec with the best suggestion added: the strongest
    evidence that the clause says what the code does. One program each, all in one engine run."""
    programs, said = _bodies(best, dialect)
    results = engine.run(list(programs.values())) if programs else {}
    for k, program in programs.items():
        said[k] = _implementation(results[program], best[k].method.qualified, best[k].method.name)
    return said


def _bodies(best: dict[int, MethodJob], dialect: Dialect) -> tuple[dict[int, Program], dict[int, str]]:
    """Per method, the program that checks its body against its strengthened spec; or, for those that have none,
    the verdict already known (no body, or why the program cannot be made)."""
    programs: dict[int, Program] = {}
    said: dict[int, str] = {}
    for k, job in best.items():
        if job.method.body is None:
            said[k] = "no body"
            continue
        made = _check(job, dialect, keep_body=True)
        if isinstance(made, str):
            said[k] = f"unknown: {made}"
        else:
            programs[k] = made
    return programs, said


def _implementation(r: Result, qualified: str, name: str) -> str:
    """The check's word on the method's own procedures (its well-formedness and its body): each line of the report
    that names it (bot/symbolic/background.py, read_check)."""
    report = read_check(r.message)
    whys = [w for key, ws in report.checks.items() if key.removesuffix("#") in (qualified, name) for w in ws]
    failed = [w for w in whys if w]
    if failed:
        return f"fails: {failed[0]}"
    if whys and all(w == "" for w in whys) and report.finished:
        return "verifies"
    first = next((line.strip() for line in r.message.splitlines() if line.strip()), "")
    # the checked text keeps the spec file's line numbers: say the line, not the verifier's file name
    first = re.sub(r"^\S+\.dfy\((\d+),\d+\): (?:Error: )?", r"line \1: ", first)
    first = first if len(first) <= MAX_SAID else first[:MAX_SAID] + " …"
    if r.outcome is Outcome.ERROR:
        return "unknown: the method does not resolve" + (f" ({first})" if first else "")
    return f"unknown: {r.outcome.value}" + (f" ({first})" if first else "")


# of what a method's rounds left of its budget (bot/symbolic/ledger.py), the share its suggestions' rescorings spend;
# its questions on every input, asked beside them, spend the rest (bot/symbolic/everywhere_run.py EVERYWHERE_SHARE)
SUGGESTION_SHARE = 2 / 3
MAX_SAID = 160  # characters of the verifier's words in an implementation verdict


def score_suggest_everywhere(
    jobs: Sequence[MethodJob],
    engine: EngineLike,
    dialect: Dialect,
    options: ScoreOptions,
    on_phase: Callable[[str], None] | None = None,
    more: Suggester | None = None,
    on_round: Callable[[list[MethodTally]], None] | None = None,
) -> list[MethodScore]:
    """score_methods, then (options.suggest) the verified suggestions of the weak methods (`more`: an external
    suggester's candidates, checked the same way) and what each spec says on every input (with_everywhere): both from
    the same scores, each setting a field of its own (bot/symbolic/stages.py). On an engine that takes runs side by
    side, a spec file's follow its own rounds, as soon as they are over (score_methods `then`)."""
    shown: set[str] = set()
    lock = threading.Lock()
    # an external suggester is one command at a time, as when the stages followed every file's rounds: each file's
    # stages ask from their own thread, and a command written for one call at a time may share a file or a model
    asking = threading.Lock()

    def once(phase: str) -> None:  # each file's stages name the same phases: a phase is shown once, as the rounds'
        with lock:
            first = phase not in shown
            shown.add(phase)
        if first and on_phase is not None:
            on_phase(phase)

    def stages(part: Sequence[MethodJob], scores: Sequence[MethodScore], engine: EngineLike) -> list[MethodScore]:
        suggested, everywhere = list(scores), list(scores)

        def suggest(through: EngineLike) -> None:
            def one_at_a_time(job: MethodJob, score: MethodScore) -> Sequence[Candidate]:
                assert more is not None
                with asking:
                    # stopped while it waited for another file's call: by this file's stage beside it, or by
                    # another file (`through` wraps both, bot/symbolic/together.py)
                    stop_if_stopped(through)
                    return more(job, score)

            suggested[:] = with_suggestions(part, scores, through, dialect, options,
                                            one_at_a_time if more is not None else None)

        def on_every_input(through: EngineLike) -> None:
            # looked up when asked: a wrapper put in its place (the benchmark's recorder tags its programs) is used
            everywhere[:] = everywhere_run.with_everywhere(part, scores, through, dialect)

        asks = options.suggest and any(weak(s) for s in scores)
        run_stages(engine, [*([("suggestions", suggest)] if asks else []), ("every input", on_every_input)], once)
        return [replace(e, suggestions=s.suggestions) for s, e in zip(suggested, everywhere, strict=True)]

    return score_methods(jobs, engine, dialect, options, on_phase, on_round, then=stages)
