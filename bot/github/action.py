"""The GitHub Action: glue between the event, git, GitHub, the engine and the workflow files.

`main()` is the only place that builds real clients and catches every exception; `run()` takes them
as arguments. Exit codes: 0 thresholds met (or nothing to score), 1 thresholds not met, 2 bad
configuration or input.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from bot import runner
from bot.audit import request
from bot.audit.changes import changes_md, changes_summary, should_fail
from bot.audit.model import TaskResult, Verdict
from bot.audit.request import AuditRequest, AuditUsageError
from bot.config import Config, ConfigError
from bot.dafny.dialect import Dialect
from bot.dafny.spans import EnsuresSpan
from bot.github.api import (
    ISSUES_PERMISSION_HINT,
    GitHubClient,
    GitHubError,
    GitHubPermissionError,
    NewReviewComment,
    marker_for,
)
from bot.github.commands import Annotation, Level, append_summary, emit, emit_annotations, group, set_outputs
from bot.github.git import GitError, add_worktree, changed_files, file_at, has_commit, remove_worktree
from bot.github.pr.affected import affected_specs, tests_of_no_spec
from bot.github.pr.diff import Hunks, diff_of
from bot.github.pr.event import EventError, PullRequestEvent, parse_event
from bot.github.pr.review_plan import plan_review
from bot.github.tracking import LastRun, TrackingInput, edited_body, issue_body
from bot.options import CommentMode, FailOn, GateScope, Mode, clean_comment_id, clean_fraction
from bot.paths import write_text
from bot.progress import score_progress
from bot.report.comment import TITLE, CommentInput, render_comment
from bot.report.json_report import change_dict, method_dict, render_json
from bot.report.links import Links
from bot.report.load import (
    ReportError,
    changes_from_list,
    gated_from_list,
    methods_from_list,
    spans_from_list,
    spans_to_list,
)
from bot.report.markdown import esc
from bot.report.review import Finding, findings
from bot.report.sarif import render_sarif
from bot.runner import (
    TestFiles,
    TooManyFiles,
    Verifier,
    build_jobs,
    ensures_spans_in,
    files_matching,
    specs_including,
    specs_tested_by,
    tested_methods,
)
from bot.signals import sigterm_as_interrupt, stopped_by
from bot.symbolic.compare import compare
from bot.symbolic.everywhere_run import with_everywhere
from bot.symbolic.gate import UNREAD_CASE, pr_gate
from bot.symbolic.results import CaseStatus, Gate, MethodScore, SpecChange
from bot.symbolic.rounds import EngineLike, MethodJob, ScoreOptions, score_methods
from bot.symbolic.spec_change_run import Pair, spec_changes
from bot.symbolic.stages import run_stages
from bot.symbolic.suggest.search import with_suggestions
from bot.symbolic.touched import method_key, touched
from bot.verifier import VerifierInfo, VerifierNotFound

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
COMMENT_ARTIFACT = "dafny-spec-score-comment.json"
SAVED_VERSION = 2
MAX_SAVED_BYTES = 20 * 1024 * 1024
CONFIG_FROM_BASE = (
    "the pull request changes {path}: its settings apply once merged; this run uses the base branch's"
)
NOT_A_PR = "This run is not for a pull request: there is no base to compare with (mode: pr)."
STRAY_TESTS = ("a test file for no spec: `{spec}` exists at neither revision, so its cases are never read; name it "
               "for the spec it tests")
NOTHING_CHANGED = "No Dafny spec or test file matching the `specs`/`tests` inputs changed: nothing to score."
TRACKING_NOT_WRITTEN = "the tracking issue was not written (the reports above stand)"
REVIEW_NOT_WRITABLE = ("the review comments could not be placed: the token can comment but not review (grant "
                       "`pull-requests: write`); the summary comment has every finding")
MAX_SAVED_ERRORS, MAX_SAVED_ERROR = 1000, 2000  # a saved comment's errors of files: how many, how long each
REVIEW_BODY = "{n} finding(s) on the changed specs; the summary comment has the scores."
FORK_SAVED = (
    "The token cannot comment on this pull request (a fork's read-only token). The comment was saved to "
    "{path}: upload it as an artifact and post it from a workflow_run workflow (see the README's fork recipe)."
)

GitHubFactory = Callable[[Config], GitHubClient | None]
EngineFactory = Callable[[Config], Verifier]


def make_engine(config: Config) -> Verifier:
    # an unusable cache folder warns and scores uncached: slower, never a failed check
    return runner.open_verifier(config.settings, "dafny", Path(config.cache_dir), config.z3)


def make_github(config: Config) -> GitHubClient | None:
    if not config.token or not config.repository:
        return None
    return GitHubClient(config.token, config.repository, base_url=config.api_url)


def _aggregate(scores: Sequence[MethodScore]) -> tuple[float | None, float | None]:
    """The lowest correctness and the lowest completeness among the scored methods (what a gate compares)."""
    corr = [s.correctness for s in scores if s.correctness is not None]
    comp = [s.completeness for s in scores if s.completeness is not None]
    return (min(corr) if corr else None), (min(comp) if comp else None)


def _shown(path: Path, workspace: Path) -> str:
    """A path relative to the workspace when it lies inside it (as action.yml documents)."""
    try:
        return str(path.resolve().relative_to(workspace.resolve()))
    except ValueError:
        return str(path)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def _annotations(scores: Sequence[MethodScore], config: Config, lines: dict[tuple[str, str], int]) -> list[Annotation]:
    out = []
    for s in scores:
        line = lines.get((s.file, s.method), s.line)
        if s.correctness is not None and s.correctness < config.min_correctness:
            refuted = [c for c in s.cases if c.status is CaseStatus.REFUTED]
            detail = f"; e.g. {refuted[0].inputs} -> {refuted[0].expected} is rejected" if refuted else ""
            out.append(Annotation(Level.ERROR, f"{s.method}: correctness {s.correctness:.2f} below "
                                  f"{config.min_correctness:.2f}{detail}", s.file, line,
                                  title="Spec rejects an expected output", severity=int(100 * (1 - s.correctness))))
        elif s.completeness is not None and s.completeness < config.min_completeness:
            survivors = s.surviving
            detail = f"; e.g. it also accepts {survivors[0].value} for {survivors[0].inputs}" if survivors else ""
            out.append(Annotation(Level.WARNING, f"{s.method}: completeness {s.completeness:.2f} below "
                                  f"{config.min_completeness:.2f}{detail}", s.file, line,
                                  title="Spec accepts wrong outputs", severity=int(100 * (1 - s.completeness))))
    return sorted(out, key=lambda a: -a.severity)


def run_pr(config: Config, github: GitHubClient | None, engines: EngineFactory, out: TextIO) -> int:
    if config.event_path is None or not config.event_path.is_file():
        emit(out, NOT_A_PR, Level.WARNING)
        return EXIT_OK
    try:
        event = parse_event(config.event_name, json.loads(config.event_path.read_text(encoding="utf-8")))
    except (OSError, ValueError, EventError) as e:
        message = f"cannot read the event file {config.event_path}: {e}"
        emit(out, message, Level.ERROR)
        append_summary(config.summary_file, f"## {TITLE}: not run\n\n{esc(message)}\n")
        return EXIT_USAGE
    if event is None:
        emit(out, NOT_A_PR, Level.WARNING)
        return EXIT_OK
    try:
        config = _base_config(config, event, out)
    except ConfigError as e:
        emit(out, str(e), Level.ERROR)
        return EXIT_USAGE
    root = config.working_directory
    with group(out, "Changed files"):
        paths: list[str] = []
        diff: dict[str, Hunks] | None = None  # GitHub's own diff: where review comments can go (None: not listed)
        try:
            if github is None:
                raise GitHubError("no token or repository")
            listed = github.changed_files(event.number)
            paths = [f.filename for f in listed]
            diff = diff_of(listed)
        except GitHubError as e:
            emit(out, f"GitHub did not list the changed files ({e}); using git diff instead")
            try:
                paths = [p for _, p in changed_files(root, event.base_sha, event.head_sha)]
            except GitError as ge:
                emit(out, f"cannot list the changed files: {ge}", Level.ERROR)
                return EXIT_USAGE
        emit(out, "\n".join(paths) or "(none)")
    with tempfile.TemporaryDirectory(prefix="spec-score-base-") as tmp:
        base_root = Path(tmp) / "base"
        have_base = True
        try:
            add_worktree(root, event.base_sha, base_root)
        except GitError as e:
            emit(out, f"cannot check out the base commit ({e}); scores are shown without a comparison", Level.WARNING)
            have_base = False
        try:
            roots = [root, base_root] if have_base else [root]
            specs = affected_specs(paths, config.specs, config.tests, lambda p: (root / p).is_file(),
                                   lambda p: have_base and (base_root / p).is_file(),
                                   lambda p: specs_tested_by(roots, p, config.specs),
                                   lambda changed: specs_including(roots, changed, config.specs))
            strays = [f"{p}: {STRAY_TESTS.format(spec=p.removesuffix('.tests.toml') + '.dfy')}" for p in
                      tests_of_no_spec(paths, lambda p: (root / p).is_file(),
                                       lambda p: have_base and (base_root / p).is_file())]
            for message in strays:
                emit(out, message, Level.ERROR)
            if not specs and strays:  # nothing to score, and a test that checks nothing: no pass
                append_summary(config.summary_file, f"## {TITLE}: failed\n\n" + "".join(f"- {esc(m)}\n"
                                                                                      for m in strays))
                set_outputs(config.output_file, {"correctness": "", "completeness": "", "passed": "false",
                                                 "report-json": "", "sarif-file": "", "regressions": "0"})
                return EXIT_FAILED
            if not specs:
                emit(out, NOTHING_CHANGED, Level.NOTICE)  # a docs-only pull request is no fault
                # findings of earlier runs no longer apply (without GitHub's diff, which still do is not known)
                if config.review and github is not None and config.comment is not CommentMode.OFF and diff is not None:
                    _review(github, event.number, event.head_sha, (), diff, config.comment_id, out)
                marker = marker_for(config.comment_id)
                body = render_comment(CommentInput((), config.gate, (), "", marker))
                append_summary(config.summary_file, body)
                set_outputs(config.output_file, {"correctness": "", "completeness": "", "passed": "true",
                                                 "report-json": "", "sarif-file": "", "regressions": "0"})
                return EXIT_OK
            verifier = engines(config)
            # on standard error, never in the workflow commands or reports: a line every few seconds in the log
            progress = score_progress(sys.stderr)
            verifier.engine.progress = progress.programs
            info = verifier.info
            options = config.settings.score_options()
            # the methods tested at base must be scored at head too: one that cannot be is a failure,
            # never "removed"
            # the methods without tests too: a pull request's spec change is proved on every input, tests or none
            base_built = (build_jobs(base_root, specs, TestFiles(extra=tuple(files_matching(base_root, config.tests))),
                                     untested=True) if have_base else runner.JobSet())
            where = "at head and base" if have_base else "at head"
            with group(out, f"Scoring {len(specs)} spec file(s) {where}"):
                built = build_jobs(root, specs, TestFiles(extra=tuple(files_matching(root, config.tests))),
                                   expected=tested_methods(base_built.jobs), untested=True)
                errors = built.errors
                for message in errors:
                    emit(out, message, Level.ERROR)
                # head and base in one run: their rounds go side by side (a round waits for its slowest program)
                scored = score_methods([*built.jobs, *base_built.jobs], verifier.engine, verifier.dialect, options,
                                       progress.start, progress.round)
                head_scores, changes = _after_scoring(config, built.jobs, base_built.jobs, scored, verifier, options,
                                                      progress.start)
                progress.end()
                head = head_scores + built.placeholders
                base = scored[len(built.jobs):] + base_built.placeholders  # none without a base checkout
                # what the check judges: the methods the pull request changed, or (gate-scope: files) all of them
                gated = None if config.gate_scope is GateScope.FILES else touched(built.jobs, base_built.jobs)
        except TooManyFiles as e:
            # scoring a part of the changes would let the check pass with methods left unscored
            emit(out, str(e), Level.ERROR)
            append_summary(config.summary_file, f"## {TITLE}: not run\n\n{esc(str(e))}\n")
            return EXIT_USAGE
        finally:
            if have_base:
                remove_worktree(root, base_root)
    return _report(config, github, event, head, base, info, out, errors, diff, tuple(changes), gated,
                   (*strays, *(str(p) for p in built.problems)))


def _after_scoring(config: Config, head_jobs: Sequence[MethodJob], base_jobs: Sequence[MethodJob],
                   scored: Sequence[MethodScore], verifier: Verifier, options: ScoreOptions,
                   on_phase: Callable[[str], None]) -> tuple[list[MethodScore], list[SpecChange]]:
    """Head's scores (the first of `scored`, base's after them) with their suggestions and what they say on every
    input, and what the pull request changed in each spec on every input: three stages apart from each other, from
    the same scores (bot/symbolic/stages.py)."""
    head_scores = list(scored[:len(head_jobs)])
    base_scores = list(scored[len(head_jobs):])
    # what each changed spec says on every input; every spec the gate may judge when it requires it
    asked = touched(head_jobs, base_jobs)
    if config.require_determined:
        asked |= {method_key(job) for job in head_jobs}
    suggested, everywhere = list(head_scores), list(head_scores)
    changes: list[SpecChange] = []

    def suggest(engine: EngineLike) -> None:  # base is only compared against: no suggestions for it
        suggested[:] = with_suggestions(head_jobs, head_scores, engine, verifier.dialect, options)

    def on_every_input(engine: EngineLike) -> None:
        everywhere[:] = with_everywhere_of(head_jobs, head_scores, asked, engine, verifier.dialect)

    def changed(engine: EngineLike) -> None:  # what the pull request changed in each spec (their files differ at base)
        changes[:] = spec_changes(_pairs(head_jobs, head_scores, base_jobs, base_scores), engine, verifier.dialect,
                                  options)

    run_stages(verifier.engine, [*([("suggestions", suggest)] if options.suggest else []),
                                 ("every input", on_every_input), ("spec changes", changed)], on_phase)
    # each stage set a field of its own: the suggestions, and what the spec says on every input
    return [replace(e, suggestions=s.suggestions) for s, e in zip(suggested, everywhere, strict=True)], changes


def with_everywhere_of(jobs: Sequence[MethodJob], scores: Sequence[MethodScore], keys: set[tuple[str, str]],
                       engine: EngineLike, dialect: Dialect) -> list[MethodScore]:
    """`scores` with `everywhere` asked for the methods of `keys` (file, qualified name) only."""
    picked = [k for k, job in enumerate(jobs) if method_key(job) in keys]
    asked = with_everywhere([jobs[k] for k in picked], [scores[k] for k in picked], engine, dialect)
    out = list(scores)
    for k, s in zip(picked, asked, strict=True):
        out[k] = s
    return out


def _pairs(head_jobs: Sequence[MethodJob], head: Sequence[MethodScore], base_jobs: Sequence[MethodJob],
           base: Sequence[MethodScore]) -> list[Pair]:
    """The methods scored at both revisions (by file and qualified name), in head's order."""
    at_base = {(s.file, s.method): (job, s) for job, s in zip(base_jobs, base, strict=True)}
    return [Pair(at_base[s.file, s.method][0], job, at_base[s.file, s.method][1], s)
            for job, s in zip(head_jobs, head, strict=True) if (s.file, s.method) in at_base]


def _base_config(config: Config, event: PullRequestEvent, out: TextIO) -> Config:
    """The configuration as the base branch has it: a pull request must not set the thresholds (or the
    globs) that judge it. A change to the config file applies once it is merged."""
    path = config.config_path
    if path is None or not config.environ:
        return config
    try:
        if not has_commit(config.working_directory, event.base_sha):
            return config  # no git history to read it from: the workspace's file stands
        rel = str(path.resolve().relative_to(config.working_directory.resolve()))
        # `./`: relative to the working directory, which is the checkout (not always the workspace)
        base_text = file_at(config.working_directory, event.base_sha, "./" + rel)
    except (ValueError, OSError, GitError):
        return config  # no git history to read it from: the workspace's file stands
    head_text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    if base_text == head_text:
        return config
    emit(out, CONFIG_FROM_BASE.format(path=rel), Level.WARNING)
    return Config.from_environ(config.environ, file_text=base_text or "")


def _report(config: Config, github: GitHubClient | None, event: PullRequestEvent, head: list[MethodScore],
            base: list[MethodScore], info: VerifierInfo, out: TextIO, errors: list[str],
            diff: dict[str, Hunks] | None, changes: tuple[SpecChange, ...] = (),
            gated: set[tuple[str, str]] | None = None, problems: tuple[str, ...] = ()) -> int:
    deltas = compare(head, base)
    # what no method's score carries: a spec file that does not parse ("FILE:LINE:COL: ..."), a test file of no
    # scored method that cannot be read; said at the top of the comment and on its line, as the others are
    file_errors = (*errors, *problems)
    verdict = pr_gate(deltas, config.gate, config.allow_unscored, changes, config.fail_on_weakening, gated)
    # a test case the pull request's files hold that cannot be read checks nothing: never a pass by omission
    failures = (*verdict.failures, *(f"{p}: {UNREAD_CASE}" for p in problems))
    for warning in verdict.warnings:
        emit(out, warning, Level.WARNING)
    marker = marker_for(config.comment_id)
    spans = ensures_spans_in(config.working_directory, head)
    inp = CommentInput(tuple(deltas), config.gate, failures, info.version, marker, config.run_url,
                       verdict.warnings, Links(config.server_url, config.repository, event.head_sha), spans, changes,
                       file_errors)
    body = render_comment(inp)
    append_summary(config.summary_file, render_comment(inp, limit=None).replace(marker, "", 1))
    report_path = config.working_directory / "dafny-spec-score.json"
    write_text(config.workspace, report_path, render_json(head, info.version, config.settings.report(), changes))
    sarif_path = config.working_directory / "dafny-spec-score.sarif"
    # paths from the checkout
    write_text(config.workspace, sarif_path, render_sarif(head, spans, info.version, changes=changes))
    corr, comp = _aggregate(head)
    passed = not failures and not errors
    set_outputs(config.output_file, {
        "correctness": _fmt(corr), "completeness": _fmt(comp), "passed": "true" if passed else "false",
        "report-json": _shown(report_path, config.workspace), "sarif-file": _shown(sarif_path, config.workspace),
        "regressions": str(sum(d.regression for d in deltas)),
        "spec-changes": json.dumps([c.as_dict() for c in changes]),
    })
    emit_annotations(out, _annotations(head, config, {k: v.first for k, v in spans.items() if v.clauses}))
    saved = saved_comment(config, event, info, head, base, spans, changes, gated, file_errors, problems)
    writable = True
    if config.comment is not CommentMode.OFF:
        writable = _post(config, github, event.number, marker, body, saved, out)
    # review comments go with the summary comment: `comment: off` means no writes to the pull request
    if config.review and writable and config.comment is not CommentMode.OFF:
        if github is not None and diff is None:
            # without GitHub's diff nothing can be placed, and the earlier comments may all still apply
            emit(out, "the review comments were not placed: GitHub did not list the pull request's diff; the "
                 "summary comment has every finding", Level.WARNING)
        elif not _review(github, event.number, event.head_sha,
                         findings(deltas, spans, config.comment_id, event.head_sha, file_errors, changes), diff or {},
                         config.comment_id, out):
            # this token could comment: it is no fork's, it lacks the right to review
            emit(out, REVIEW_NOT_WRITABLE, Level.WARNING)
    return EXIT_OK if passed else EXIT_FAILED


def saved_comment(config: Config, event: PullRequestEvent, info: VerifierInfo, head: Sequence[MethodScore],
                  base: Sequence[MethodScore], spans: dict[tuple[str, str], EnsuresSpan] | None = None,
                  changes: Sequence[SpecChange] = (), gated: set[tuple[str, str]] | None = None,
                  file_errors: Sequence[str] = (), unread: Sequence[str] = ()) -> dict[str, object]:
    """What the fork recipe's second workflow needs to render the comment again: data, not markdown."""
    return {
        "file_errors": list(file_errors),
        "unread": list(unread),  # test cases no method carries: each fails the check (UNREAD_CASE)
        "gated": None if gated is None else [list(k) for k in sorted(gated)],
        "version": SAVED_VERSION, "pr": event.number, "head_sha": event.head_sha, "comment_id": config.comment_id,
        "verifier": info.version, "details_url": config.run_url, "allow_unscored": config.allow_unscored,
        "fail_on_weakening": config.fail_on_weakening, "spec_changes": [change_dict(c) for c in changes],
        "gate": {"min_correctness": config.min_correctness, "min_completeness": config.min_completeness,
                 "fail_on_unknown": config.fail_on_unknown, "allow_axioms": config.allow_axioms,
                 "require_determined": config.require_determined},
        "head": [method_dict(s) for s in head], "base": [method_dict(s) for s in base],
        "spans": spans_to_list(spans or {}),
    }


def _post(config: Config, github: GitHubClient | None, number: int, marker: str, body: str,
          saved: dict[str, object], out: TextIO) -> bool:
    """Post the summary comment; False when the token cannot write (the comment is then saved for the fork
    recipe's second workflow)."""
    try:
        if github is None:
            raise GitHubPermissionError("no token")
        action, comment = github.upsert_comment(number, marker, body, github.bot_login(),
                                                only_if_changed=config.comment is CommentMode.ON_CHANGE)
        emit(out, f"comment {action}: {comment.html_url}")
    except GitHubPermissionError:
        _save_for_fork(config, saved, out)
        return False
    except GitHubError as e:
        # the scores stand without the comment: the step summary has them
        emit(out, f"the comment could not be posted: {e}", Level.WARNING)
    return True


def _save_for_fork(config: Config, saved: dict[str, object], out: TextIO) -> None:
    artifact = config.working_directory / COMMENT_ARTIFACT
    write_text(config.workspace, artifact, json.dumps(saved, sort_keys=True) + "\n")
    emit(out, FORK_SAVED.format(path=artifact), Level.WARNING)


def _review(github: GitHubClient | None, number: int, head_sha: str, found: Sequence[Finding],
            diff: dict[str, Hunks], comment_id: str, out: TextIO) -> bool:
    """Place the findings as review comments (one new review for the new ones), edit or retire the earlier
    ones. False when the token cannot write; any other failure warns: the summary comment has every finding."""
    if github is None:
        return False
    try:
        current = github.pull_request(number).head_sha
        if current != head_sha:  # lines found at this run's commit would land on another commit's diff
            emit(out, f"the review comments were not placed: the pull request moved on to {current[:12]} since "
                 "this run started; the run for that commit places them", Level.WARNING)
            return True
        author = github.bot_login()
        plan = plan_review(found, diff, github.review_comments(number), author, comment_id, head_sha)
        for comment_id_ in plan.delete:
            github.delete_review_comment(comment_id_)
        for comment_id_, body in plan.edit:
            github.edit_review_comment(comment_id_, body)
        if plan.create:
            review = github.create_review(number, head_sha, REVIEW_BODY.format(n=len(plan.create)), [
                NewReviewComment(f.path, f.line, f.start_line if f.start_line < f.line else None, f.body)
                for f in plan.create], author)
            emit(out, f"review created with {len(plan.create)} comment(s): {review.html_url}")
    except GitHubPermissionError:
        return False
    except GitHubError as e:
        emit(out, f"the review comments could not be placed ({e}); the summary comment has every finding",
             Level.WARNING)
        return True
    if plan.edit or plan.delete:
        emit(out, f"review comments: {len(plan.edit)} edited, {len(plan.delete)} deleted")
    if plan.outside:
        emit(out, f"{len(plan.outside)} finding(s) on lines outside the diff: in the summary comment only")
    return True


def run_post_comment(config: Config, github: GitHubClient | None, out: TextIO) -> int:
    """Second workflow of the fork recipe: post the comment a pull request's run saved.

    The saved file comes from an untrusted run: its pull request must be the one the triggering
    `workflow_run` ran for (number and head commit), its size is bounded, and the comment is rendered
    again from its data, never posted as it came.
    """
    path = config.comment_file
    if path is None or not path.is_file():
        emit(out, f"comment-file {path} not found", Level.ERROR)
        return EXIT_USAGE
    try:
        if path.stat().st_size > MAX_SAVED_BYTES:
            raise ReportError(f"larger than {MAX_SAVED_BYTES} bytes")
        saved = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(saved, dict) or saved.get("version") != SAVED_VERSION:
            raise ReportError(f"not a saved comment of version {SAVED_VERSION}")
        number, head_sha = saved.get("pr"), saved.get("head_sha")
        if not isinstance(number, int) or isinstance(number, bool) or not isinstance(head_sha, str):
            raise ReportError("`pr` must be a number and `head_sha` a string")
        comment_id = clean_comment_id(saved.get("comment_id", config.comment_id))
        gate_d = saved.get("gate")
        if not isinstance(gate_d, dict):
            raise ReportError("`gate` must be an object")
        gate = Gate(clean_fraction(gate_d.get("min_correctness", 1.0)),
                    clean_fraction(gate_d.get("min_completeness", 0.0)),
                    gate_d.get("fail_on_unknown") is True, gate_d.get("allow_axioms") is True,
                    gate_d.get("require_determined") is True)
        head = methods_from_list(saved.get("head"), "head")
        base = methods_from_list(saved.get("base"), "base")
        spans = spans_from_list(saved.get("spans", []), "spans")
        changes = changes_from_list(saved.get("spec_changes", []), "spec_changes")
        gated = gated_from_list(saved.get("gated"), "gated")
        file_errors = _strings(saved.get("file_errors", []), "file_errors")
        unread = _strings(saved.get("unread", []), "unread")
        verifier = str(saved.get("verifier", ""))[:100]
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        emit(out, f"{path}: not a comment saved by this action ({reason})", Level.ERROR)
        return EXIT_USAGE
    if github is None:
        emit(out, "post-comment needs github-token and a repository", Level.ERROR)
        return EXIT_USAGE
    problem = _run_mismatch(config, github, number, head_sha)
    if problem:
        emit(out, f"{path}: refusing to post: {problem}", Level.ERROR)
        return EXIT_USAGE
    deltas = compare(head, base)
    verdict = pr_gate(deltas, gate, saved.get("allow_unscored") is True, changes,
                      saved.get("fail_on_weakening") is not False, gated)
    marker = marker_for(comment_id)
    # no checkout here: links to the head commit, but no clause spans (the method's line instead)
    failures = (*verdict.failures, *(f"{p}: {UNREAD_CASE}" for p in unread))
    body = render_comment(CommentInput(tuple(deltas), gate, failures, verifier, marker,
                                       config.run_url, verdict.warnings,
                                       Links(config.server_url, config.repository, head_sha), spans, changes,
                                       file_errors))
    action, comment = github.upsert_comment(number, marker, body, github.bot_login(),
                                            only_if_changed=config.comment is CommentMode.ON_CHANGE)
    emit(out, f"comment {action}: {comment.html_url}")
    if config.review:
        # the diff comes from GitHub, not from the saved file: comments go only on the pull request's own lines
        try:
            diff = diff_of(github.changed_files(number))
        except GitHubError as e:
            emit(out, f"the review comments were not placed: {e}", Level.WARNING)
            return EXIT_OK
        found = findings(deltas, spans, comment_id, head_sha, file_errors, changes)
        if not _review(github, number, head_sha, found, diff, comment_id, out):
            emit(out, "the review comments were not placed: the token cannot write them", Level.WARNING)
    return EXIT_OK


def _strings(v: object, where: str) -> tuple[str, ...]:
    """A saved list of strings (from an untrusted run: bounded, each one cut to a line's worth)."""
    if not isinstance(v, list) or len(v) > MAX_SAVED_ERRORS or not all(isinstance(x, str) for x in v):
        raise ReportError(f"{where}: not a list of at most {MAX_SAVED_ERRORS} strings")
    return tuple(x[:MAX_SAVED_ERROR] for x in v)


def _run_mismatch(config: Config, github: GitHubClient, number: int, head_sha: str) -> str:
    """Why the saved comment does not belong to the run that triggered this workflow ("" when it does)."""
    if config.event_name != "workflow_run" or config.event_path is None:
        return "post-comment runs on the `workflow_run` event of the pull request's workflow"
    try:
        payload = json.loads(config.event_path.read_text(encoding="utf-8"))
        run = payload["workflow_run"]
        run_sha = str(run["head_sha"])
        pulls = run.get("pull_requests") or []
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"cannot read the workflow_run event ({e})"
    if head_sha != run_sha:
        return f"the saved head commit {head_sha[:40]!r} is not the triggering run's {run_sha}"
    numbers = {p.get("number") for p in pulls if isinstance(p, dict)}
    if numbers:
        return "" if number in numbers else f"pull request #{number} is not one the triggering run was for"
    # GitHub leaves `pull_requests` empty for runs from forks: ask it for the pull request's head instead
    try:
        pr_head = github.pull_request(number).head_sha
    except GitHubError as e:
        return f"cannot look up pull request #{number} ({e})"
    return "" if pr_head == run_sha else f"pull request #{number}'s head is not the triggering run's commit"


def run_audit_mode(config: Config, github: GitHubClient | None, engines: EngineFactory, out: TextIO) -> int:
    """The `audit` command's run, with the same options (inputs `audit-*`, `weak-below`, `tolerance`)."""
    if config.audit_root is None:
        emit(out, "mode audit needs the audit-root input", Level.ERROR)
        return EXIT_USAGE
    req = AuditRequest.of(config, config.audit_root, config.settings, config.working_directory)
    try:
        inputs = request.prepare(req)
    except AuditUsageError as e:
        emit(out, str(e), Level.ERROR)
        return EXIT_USAGE
    if req.fail_on is not FailOn.NEVER and inputs.baseline is None:
        emit(out, f"audit-fail-on {req.fail_on.value} compares with a baseline, and audit-baseline is empty: "
             "this run cannot fail on changes", Level.WARNING)
    verifier = engines(config)
    results, settings = request.run(req, inputs, verifier)
    try:
        changes = request.changes_since(req, inputs, results, settings)
    except AuditUsageError as e:
        emit(out, str(e), Level.ERROR)
        return EXIT_USAGE
    # first: the scores (and the changes since the baseline, first of all) reach the summary
    append_summary(config.summary_file, request.report_markdown(results, settings, changes))
    try:
        request.write_reports(req.out, results, settings, lambda p, text: _write(config.workspace, p, text),
                              root=req.root, changes=changes)
    except OSError as e:
        emit(out, f"cannot write the audit files: {e}", Level.ERROR)
        return EXIT_USAGE
    failing = should_fail(changes, req.fail_on) if changes is not None else ""
    scored = [r.score for r in results if r.score is not None]
    corr, comp = _aggregate(scored)
    set_outputs(config.output_file, {
        "correctness": _fmt(corr), "completeness": _fmt(comp), "passed": "false" if failing else "true",
        "report-json": _shown(req.out / "results.json", config.workspace),
        "regressions": str(sum(r.verdict is Verdict.WRONG for r in results)),
    })
    if changes is not None:
        emit(out, f"since the baseline {req.baseline_shown}: {changes_summary(changes)}")
    # last: the reports stand whatever GitHub answers
    tracking_issue(config, github, results, changes_md(changes, heading=False) if changes is not None else None,
                   changes is not None and not changes.empty, out)
    if failing:
        emit(out, f"audit: failing: {failing}", Level.ERROR)
        return EXIT_FAILED
    return EXIT_OK


def _now() -> datetime:
    return datetime.now(UTC)


def _dataset_name(config: Config) -> str:
    """The audit root as the workflow names it: relative to the workspace, symbolic links not followed."""
    root = config.audit_root
    if root is None:
        return ""
    try:
        return str(root.relative_to(config.workspace)) or "."
    except ValueError:
        return _shown(root, config.workspace)


def tracking_marker(comment_id: str) -> str:
    """The tracking issue's hidden marker: one issue per `comment-id`, apart from the pull-request comments."""
    return marker_for(f"audit.{comment_id}")


def tracking_issue(config: Config, github: GitHubClient | None, results: Sequence[TaskResult],
                   changes: Sequence[str] | None, changed: bool, out: TextIO) -> None:
    """Create or edit the tracking issue of `audit-issue` (nothing when it is empty). A failure warns.

    `changes` are the changes since the baseline as markdown lines (None without a baseline); when there
    are none (`changed` False) and the issue exists, only its last-run line is rewritten."""
    if not config.audit_issue:
        return
    if github is None:
        emit(out, f"{TRACKING_NOT_WRITTEN}: audit-issue needs github-token and the repository", Level.WARNING)
        return
    marker = tracking_marker(config.comment_id)
    dataset = _dataset_name(config)
    when = _now().strftime("%Y-%m-%d %H:%M UTC")
    inp = TrackingInput(marker, dataset, results, LastRun(when, config.run_url, config.run_id, config.sha),
                        changes, changed)
    body = issue_body(inp)

    def edit(old: str) -> str:  # a night without changes: only the last-run line of the issue there
        return edited_body(inp, old)

    try:
        action, issue = github.upsert_issue(config.audit_issue, marker, body, github.bot_login(),
                                            config.audit_labels, edit=edit)
    except GitHubPermissionError as e:
        hint = "" if ISSUES_PERMISSION_HINT in str(e) else f" {ISSUES_PERMISSION_HINT}"
        emit(out, f"{TRACKING_NOT_WRITTEN}: {e}{hint}", Level.WARNING)
        return
    except (GitHubError, ValueError) as e:
        emit(out, f"{TRACKING_NOT_WRITTEN}: {e}", Level.WARNING)
        return
    emit(out, f"tracking issue {action}: {issue.html_url}")
    append_summary(config.summary_file, f"\nTracking issue: [#{issue.number}]({issue.html_url}) ({action}).\n")


def _write(workspace: Path, path: Path, text: str) -> None:
    write_text(workspace, path, text)


def run(config: Config, github: GitHubClient | None, engines: EngineFactory, out: TextIO) -> int:
    if config.mode is Mode.POST_COMMENT:
        return run_post_comment(config, github, out)
    if config.mode is Mode.AUDIT:
        return run_audit_mode(config, github, engines, out)
    return run_pr(config, github, engines, out)


def _fail(config: Config, message: str) -> None:
    """A failed check that says why in the log and in the step summary."""
    emit(sys.stdout, message, Level.ERROR)
    with contextlib.suppress(OSError):  # the log line stands
        append_summary(config.summary_file, f"## {TITLE}: failed\n\n{esc(message)}\n")


def main() -> int:
    try:
        config = Config.from_environ(os.environ)
    except ConfigError as e:
        emit(sys.stdout, str(e), Level.ERROR)
        return EXIT_USAGE
    github = None
    try:
        # a cancelled job's stop: SIGINT, then SIGTERM 7.5 s later, to PID 1 of the container (bot/signals.py)
        with sigterm_as_interrupt():
            github = make_github(config)
            return run(config, github, make_engine, sys.stdout)
    except KeyboardInterrupt as e:
        word, code = stopped_by(e)
        # it may come after the summary or the comment said a verdict: the step fails all the same
        _fail(config, f"dafny-spec-score was {word} before it finished: the step fails, and what it had not yet "
                      "reported (its verdict, comment or review comments) is missing")
        return code
    except VerifierNotFound as e:
        _fail(config, str(e))
        return EXIT_USAGE
    except Exception as e:  # the last line of defence: say what happened, never a bare traceback
        _fail(config, f"dafny-spec-score failed: {type(e).__name__}: {e}")
        return EXIT_USAGE
    finally:
        if github is not None:
            github.close()
