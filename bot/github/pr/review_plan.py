"""What a run does to the pull request's review comments: create, edit, delete. Pure code.

The bot's earlier comments are those of its own login with a marker of this `comment-id`
(`bot.report.review.marker`); anyone else's, even one quoting a marker, is never touched. An earlier comment
whose finding still applies on the same lines is edited in place (when its text changed); one whose finding
is gone, or has moved, is deleted, unless someone replied to it: then it is kept for the thread and edited to
say it was resolved at the new head. A spec proved weaker than base's sits on its `ensures` lines (with base's
clauses back as a suggestion when that was proved), or on the first of them in the diff without it, or on the
method's declaration line. An error on a line (one that does not resolve, parse or read) is placed once,
and a method's "could not be scored" whose every cause is such an error placed on its line is not placed beside
it (the summary comment has both). Findings on lines outside the diff cannot be placed (GitHub answers 422)
and stay in the summary comment only, as do the findings past the first `MAX_INLINE` (25) (a pull request
that weakens hundreds of specs gets a summary, not hundreds of notifications).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.github.api import ReviewComment
from bot.github.pr.diff import Hunks, commentable
from bot.report.review import Finding, Kind, marker_in, resolved_body

MAX_INLINE = 25


@dataclass(frozen=True)
class ReviewPlan:
    create: tuple[Finding, ...]  # new comments, all in one review
    edit: tuple[tuple[int, str], ...]  # (comment id, new body)
    delete: tuple[int, ...]
    outside: tuple[Finding, ...]  # not on a line of the diff: the summary comment only

    @property
    def empty(self) -> bool:
        return not (self.create or self.edit or self.delete)


def _same(a: str, b: str) -> bool:
    return a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


def _fitting(f: Finding, diff: Mapping[str, Hunks]) -> Finding | None:
    """`f` when its lines are in one hunk, else its narrow form (the clause alone) when that is, else that form on
    the first of its anchors in the diff (a weakening whose clause was only deleted: a remaining clause's line, or
    the declaration's); else None."""
    for form in (f, f.narrow):
        if form is not None and commentable(diff, form.path, form.start_line, form.line):
            return form
    plain = f.narrow or f
    line = next((n for n in plain.anchors if commentable(diff, plain.path, n, n)), None)
    return None if line is None else replace(plain, start_line=line, line=line)


def plan_review(found: Sequence[Finding], diff: Mapping[str, Hunks], existing: Sequence[ReviewComment],
                author: str, comment_id: str, head_sha: str) -> ReviewPlan:
    fitting = [_fitting(f, diff) for f in found]
    # a finding whose every cause is an error placed on its own line says nothing more there: one comment, one cause
    on_lines = {f.key for f in fitting if f is not None and f.kind is Kind.ERROR}
    covered = {f.key for f in found if f.causes and set(f.causes) <= on_lines}
    placed = [f for f in fitting if f is not None and f.key not in covered][:MAX_INLINE]
    outside = tuple(f for f, fit in zip(found, fitting, strict=True)
                    if f.key not in covered and (fit is None or fit not in placed))
    still = {f.key for f in found}
    replied = {c.in_reply_to_id for c in existing if c.in_reply_to_id is not None}
    ours: dict[str, list[tuple[ReviewComment, bool]]] = {}
    for c in sorted(existing, key=lambda c: c.id):
        mark = marker_in(c.body, comment_id)
        if c.in_reply_to_id is None and mark is not None and c.author_login.casefold() == author.casefold():
            ours.setdefault(mark[0], []).append((c, mark[1]))
    create: list[Finding] = []
    edit: list[tuple[int, str]] = []
    delete: list[int] = []
    wanted = {f.key: f for f in placed}
    for key, comments in ours.items():
        active = [c for c, resolved in comments if not resolved]
        f = wanted.get(key)
        # the newest active comment on the finding's lines is kept; any other is retired
        keep = next((c for c in reversed(active) if f is not None and c.path == f.path and c.line == f.line
                     and (c.start_line or c.line) == f.start_line), None)
        for c in active:
            if c is keep:
                continue
            if c.id in replied:
                edit.append((c.id, resolved_body(c.body, comment_id, key, head_sha, key in still)))
            else:
                delete.append(c.id)
        if keep is not None and f is not None:
            if not _same(keep.body, f.body):
                edit.append((keep.id, f.body))
            del wanted[key]
    create = [f for f in placed if f.key in wanted]
    return ReviewPlan(tuple(create), tuple(edit), tuple(delete), outside)
