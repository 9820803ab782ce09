"""A small stateful fake of GitHub's REST API for tests, served over real HTTP on 127.0.0.1.

It answers the endpoints the action uses (pull requests, their files and comments; reviews and review
comments: create, list, edit, delete, reply, with GitHub's 422 for a line outside the diff; issues: list,
create, read, edit) with GitHub's documented JSON shapes, paginates with
`Link` headers, requires an `Authorization` header, records every request and can be told to fail:
refuse a request (`fail`), carry it out and lose the answer (`lose_answer`: a 502 or a slow answer), or
carry it out and answer something GitHub does not document (`mangle`: not JSON, wrong shapes, nulls).
Every `url`, `html_url` and `Link` it returns points at the server itself: PyGithub refuses to
follow URLs on other hosts. Loaded by tests/conftest.py (fixture `github_server`).
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

ACTIONS_BOT = "github-actions[bot]"
DOCS_URL = "https://docs.github.com/rest"
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
ISSUE_BODY_LIMIT = 65_536  # GitHub answers 422 to a longer issue body
# Fixed clock: deterministic timestamps, later objects are newer.
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any


@dataclass
class Fault:
    method: str
    path_regex: str
    times: int | None  # None: forever
    # The status to answer with an error body; None keeps the real answer's status and body.
    status: int | None
    message: str = ""
    # Carry out the request first: the write happens, whatever the client is told.
    perform: bool = False
    # Seconds to wait before answering (without holding the lock, so other requests go on meanwhile).
    delay: float = 0.0
    # Rewrites the real answer's JSON; a `bytes` result is sent as it is (as text/html).
    transform: Callable[[Any], Any] | None = None


@dataclass
class FakePull:
    repo: str
    number: int
    title: str
    base_sha: str
    head_sha: str
    base_ref: str
    head_ref: str
    head_repo: str | None
    user: str
    files: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeComment:
    id: int
    repo: str
    issue_number: int
    # None: a deleted account; GitHub then answers `"user": null`.
    user: str | None
    body: str
    created_at: datetime
    updated_at: datetime


@dataclass
class FakeReviewComment:
    id: int
    repo: str
    number: int
    user: str | None
    body: str
    path: str
    line: int | None  # None: outdated (GitHub's `line: null`)
    start_line: int | None
    in_reply_to_id: int | None
    review_id: int
    commit_id: str
    created_at: datetime
    updated_at: datetime


@dataclass
class FakeReview:
    id: int
    repo: str
    number: int
    user: str
    body: str
    event: str
    commit_id: str


@dataclass
class FakeIssue:
    repo: str
    number: int
    title: str
    body: str
    # None: a deleted account; GitHub then answers `"user": null`.
    user: str | None
    state: str  # open | closed
    labels: list[str]
    created_at: datetime
    updated_at: datetime


def _timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeGitHub:
    """The server and its state. Tests set state directly and read it back; access is locked."""

    def __init__(self, token: str | None = None) -> None:
        # When set, only this token is accepted (401 otherwise); when None, any token is.
        self.token = token
        # The login of GET /user; None makes /user answer 403 like a workflow's GITHUB_TOKEN.
        self.login: str | None = "dafny-spec-score-bot"
        # When set, pages hold at most this many items whatever `per_page` asks.
        self.page_size: int | None = None
        self.repos: set[str] = set()
        self.pulls: dict[tuple[str, int], FakePull] = {}
        self.comments: list[FakeComment] = []
        self.issues: list[FakeIssue] = []
        self.reviews: list[FakeReview] = []
        self.review_comments: list[FakeReviewComment] = []
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self.lock = threading.Lock()
        self._next_id = 1000
        self._clock = 0
        # Set on close: wakes the handlers still waiting out a slow answer.
        self.closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        # A short poll interval: shutdown() waits for the loop to notice, and that wait is every test's teardown.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="fakegithub", daemon=True
        )
        self._thread.start()
        self._closed = False

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- state ---------------------------------------------------------------------------------

    @property
    def comment_author(self) -> str:
        """Who new comments are posted as: the authenticated user, or the Actions bot."""
        return self.login or ACTIONS_BOT

    def add_repo(self, full_name: str) -> None:
        with self.lock:
            self.repos.add(full_name)

    def add_pull(
        self,
        repo: str,
        number: int,
        *,
        title: str = "Change the spec",
        base_sha: str = "b" * 40,
        head_sha: str = "h" * 40,
        base_ref: str = "main",
        head_ref: str = "feature",
        head_repo: str | None = "",
        user: str = "octocat",
        files: list[dict[str, Any]] | None = None,
    ) -> FakePull:
        """Add a pull request (and its repository). `head_repo` "" means the same repository; None a deleted fork."""
        pull = FakePull(
            repo=repo,
            number=number,
            title=title,
            base_sha=base_sha,
            head_sha=head_sha,
            base_ref=base_ref,
            head_ref=head_ref,
            head_repo=repo if head_repo == "" else head_repo,
            user=user,
            files=list(files or []),
        )
        with self.lock:
            self.repos.add(repo)
            self.pulls[(repo, number)] = pull
        return pull

    def add_comment(self, repo: str, number: int, user: str | None, body: str) -> FakeComment:
        """A comment by `user`; None stands for a deleted account (GitHub answers `"user": null`)."""
        with self.lock:
            return self._new_comment(repo, number, user, body)

    def add_issue(
        self,
        repo: str,
        user: str | None,
        body: str,
        *,
        title: str = "An issue",
        state: str = "open",
        labels: list[str] | None = None,
    ) -> FakeIssue:
        """An issue by `user` (None: a deleted account), numbered after every issue and pull request."""
        with self.lock:
            self.repos.add(repo)
            return self._new_issue(repo, user, title, body, labels or [], state)

    def issues_in(self, repo: str) -> list[FakeIssue]:
        with self.lock:
            return [i for i in self.issues if i.repo == repo]

    def comments_on(self, repo: str, number: int) -> list[FakeComment]:
        with self.lock:
            return [c for c in self.comments if c.repo == repo and c.issue_number == number]

    def reviews_on(self, repo: str, number: int) -> list[FakeReview]:
        with self.lock:
            return [r for r in self.reviews if r.repo == repo and r.number == number]

    def review_comments_on(self, repo: str, number: int) -> list[FakeReviewComment]:
        with self.lock:
            return [c for c in self.review_comments if c.repo == repo and c.number == number]

    def add_review_comment(self, repo: str, number: int, user: str | None, body: str, path: str, line: int | None,
                           in_reply_to_id: int | None = None) -> FakeReviewComment:
        """A review comment by `user` (a reply when `in_reply_to_id` is set: it takes the thread's place)."""
        with self.lock:
            parent = next((c for c in self.review_comments if c.id == in_reply_to_id), None)
            if parent is not None:
                path, line = parent.path, parent.line
            return self._new_review_comment(repo, number, user, body, path, line, None, in_reply_to_id, 0, "")

    def set_head(self, repo: str, number: int, head_sha: str, files: list[dict[str, Any]]) -> None:
        """A push to the pull request: a new head and diff. Review comments whose line leaves the diff
        become outdated (`line: null`), as GitHub shows them."""
        with self.lock:
            pull = self.pulls[(repo, number)]
            pull.head_sha, pull.files = head_sha, list(files)
            for c in self.review_comments:
                stays = c.line is not None and _in_one_hunk(pull, c.path, c.start_line or c.line, c.line)
                if c.repo == repo and c.number == number and not stays:
                    c.line = c.start_line = None

    def fail(self, method: str, path_regex: str, status: int, times: int | None = 1, message: str = "") -> None:
        """Answer `status` to `method` on paths fully matching `path_regex`, `times` times (None: forever).

        The request is not carried out: nothing is stored or changed."""
        default = {
            403: "Resource not accessible by integration",
            404: "Not Found",
            500: "Internal Server Error",
            502: "Server Error",
            503: "Service Unavailable",
        }.get(status, "Error")
        self._add_fault(Fault(method.upper(), path_regex, times, status, message or default))

    def lose_answer(
        self, method: str, path_regex: str, status: int | None = 502, delay: float = 0.0, times: int | None = 1
    ) -> None:
        """Carry out the request, then answer `status` (None: the real answer) after `delay` seconds.

        A proxy's 502 after GitHub stored the comment, or an answer slower than the client's timeout: the
        write happened, but the client cannot know it."""
        message = "Server Error" if status is not None else ""
        self._add_fault(Fault(method.upper(), path_regex, times, status, message, perform=True, delay=delay))

    def mangle(self, method: str, path_regex: str, transform: Callable[[Any], Any], times: int | None = 1) -> None:
        """Carry out the request and send `transform(real JSON)` with the real status instead of the real answer.

        A `bytes` result is sent as it is: an HTML error page, truncated JSON, an empty body."""
        self._add_fault(Fault(method.upper(), path_regex, times, None, perform=True, transform=transform))

    def _add_fault(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    def requests_for(self, method: str, path_regex: str = ".*") -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.method == method.upper() and re.fullmatch(path_regex, r.path)]

    # -- JSON shapes (GitHub REST, trimmed to the documented fields that matter) -----------------

    def _tick(self) -> datetime:
        self._clock += 1
        return EPOCH + timedelta(seconds=self._clock)

    def _new_comment(self, repo: str, number: int, user: str | None, body: str) -> FakeComment:
        self._next_id += 1
        now = self._tick()
        comment = FakeComment(self._next_id, repo, number, user, body, now, now)
        self.comments.append(comment)
        return comment

    def _new_review_comment(self, repo: str, number: int, user: str | None, body: str, path: str,
                            line: int | None, start_line: int | None, in_reply_to_id: int | None, review_id: int,
                            commit_id: str) -> FakeReviewComment:
        self._next_id += 1
        now = self._tick()
        comment = FakeReviewComment(self._next_id, repo, number, user, body, path, line, start_line, in_reply_to_id,
                                    review_id, commit_id, now, now)
        self.review_comments.append(comment)
        return comment

    def _new_issue(
        self, repo: str, user: str | None, title: str, body: str, labels: list[str], state: str = "open"
    ) -> FakeIssue:
        # Issues and pull requests share one sequence of numbers per repository.
        taken = [n for (r, n) in self.pulls if r == repo] + [i.number for i in self.issues if i.repo == repo]
        now = self._tick()
        issue = FakeIssue(repo, max(taken, default=0) + 1, title, body, user, state, list(labels), now, now)
        self.issues.append(issue)
        return issue

    def user_json(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": zlib.crc32(login.encode()) % 10_000_000,
            "node_id": f"U_{login}",
            "avatar_url": f"{self.url}/avatars/{login}",
            "url": f"{self.url}/users/{login}",
            "html_url": f"{self.url}/{login}",
            "type": "Bot" if login.endswith("[bot]") else "User",
            "site_admin": False,
        }

    def repo_json(self, full_name: str) -> dict[str, Any]:
        owner, _, name = full_name.partition("/")
        return {
            "id": zlib.crc32(full_name.encode()) % 10_000_000,
            "node_id": f"R_{full_name}",
            "name": name,
            "full_name": full_name,
            "owner": self.user_json(owner),
            "private": False,
            "html_url": f"{self.url}/{full_name}",
            "url": f"{self.url}/repos/{full_name}",
            "fork": False,
            "default_branch": "main",
        }

    def pull_json(self, pull: FakePull) -> dict[str, Any]:
        api = f"{self.url}/repos/{pull.repo}"
        html = f"{self.url}/{pull.repo}/pull/{pull.number}"
        base_owner = pull.repo.partition("/")[0]
        head_owner = (pull.head_repo or pull.user).partition("/")[0]
        return {
            "url": f"{api}/pulls/{pull.number}",
            "id": 500_000 + pull.number,
            "node_id": f"PR_{pull.number}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{pull.number}",
            "comments_url": f"{api}/issues/{pull.number}/comments",
            "number": pull.number,
            "state": "open",
            "locked": False,
            "title": pull.title,
            "user": self.user_json(pull.user),
            "body": None,
            "created_at": _timestamp(EPOCH),
            "updated_at": _timestamp(EPOCH),
            "head": {
                "label": f"{head_owner}:{pull.head_ref}",
                "ref": pull.head_ref,
                "sha": pull.head_sha,
                "user": self.user_json(head_owner),
                # GitHub sends null when the fork was deleted.
                "repo": None if pull.head_repo is None else self.repo_json(pull.head_repo),
            },
            "base": {
                "label": f"{base_owner}:{pull.base_ref}",
                "ref": pull.base_ref,
                "sha": pull.base_sha,
                "user": self.user_json(base_owner),
                "repo": self.repo_json(pull.repo),
            },
            "draft": False,
            "merged": False,
            "mergeable": None,
            "author_association": "CONTRIBUTOR",
            "changed_files": len(pull.files),
        }

    def file_json(self, pull: FakePull, given: dict[str, Any]) -> dict[str, Any]:
        filename = str(given["filename"])
        additions = int(given.get("additions", 0))
        deletions = int(given.get("deletions", 0))
        blob = f"{self.url}/{pull.repo}/blob/{pull.head_sha}/{filename}"
        data: dict[str, Any] = {
            "sha": given.get("sha", "f" * 40),
            "filename": filename,
            "status": given.get("status", "modified"),
            "additions": additions,
            "deletions": deletions,
            "changes": additions + deletions,
            "blob_url": blob,
            "raw_url": blob.replace("/blob/", "/raw/"),
            "contents_url": f"{self.url}/repos/{pull.repo}/contents/{filename}?ref={pull.head_sha}",
            "patch": given.get("patch", "@@ -1 +1 @@"),
        }
        # GitHub includes previous_filename only for renames.
        if given.get("previous_filename"):
            data["previous_filename"] = given["previous_filename"]
        return data

    def comment_json(self, comment: FakeComment) -> dict[str, Any]:
        api = f"{self.url}/repos/{comment.repo}"
        return {
            "id": comment.id,
            "node_id": f"IC_{comment.id}",
            "url": f"{api}/issues/comments/{comment.id}",
            "html_url": f"{self.url}/{comment.repo}/pull/{comment.issue_number}#issuecomment-{comment.id}",
            "body": comment.body,
            "user": None if comment.user is None else self.user_json(comment.user),
            "created_at": _timestamp(comment.created_at),
            "updated_at": _timestamp(comment.updated_at),
            "issue_url": f"{api}/issues/{comment.issue_number}",
            "author_association": "NONE",
        }

    def review_comment_json(self, c: FakeReviewComment) -> dict[str, Any]:
        api = f"{self.url}/repos/{c.repo}"
        data: dict[str, Any] = {
            "id": c.id,
            "node_id": f"PRRC_{c.id}",
            "url": f"{api}/pulls/comments/{c.id}",
            "pull_request_review_id": c.review_id,
            "diff_hunk": "@@",
            "path": c.path,
            "commit_id": c.commit_id,
            "original_commit_id": c.commit_id,
            "user": None if c.user is None else self.user_json(c.user),
            "body": c.body,
            "created_at": _timestamp(c.created_at),
            "updated_at": _timestamp(c.updated_at),
            "html_url": f"{self.url}/{c.repo}/pull/{c.number}#discussion_r{c.id}",
            "pull_request_url": f"{api}/pulls/{c.number}",
            "author_association": "NONE",
            "line": c.line,
            "original_line": c.line,
            "start_line": c.start_line,
            "original_start_line": c.start_line,
            "side": "RIGHT",
            "start_side": "RIGHT" if c.start_line is not None else None,
            "subject_type": "line",
        }
        if c.in_reply_to_id is not None:
            data["in_reply_to_id"] = c.in_reply_to_id
        return data

    def review_json(self, r: FakeReview) -> dict[str, Any]:
        return {
            "id": r.id,
            "node_id": f"PRR_{r.id}",
            "user": self.user_json(r.user),
            "body": r.body,
            "state": "COMMENTED",
            "html_url": f"{self.url}/{r.repo}/pull/{r.number}#pullrequestreview-{r.id}",
            "pull_request_url": f"{self.url}/repos/{r.repo}/pulls/{r.number}",
            "commit_id": r.commit_id,
            "author_association": "NONE",
        }

    def _create_review(self, repo: str, pull: FakePull, body: Any) -> tuple[int, Any, dict[str, str]]:
        """POST /pulls/N/reviews: all or nothing, like GitHub; a comment off the diff fails the whole review."""
        if not isinstance(body, dict) or body.get("event", "COMMENT") not in ("COMMENT", "APPROVE", "REQUEST_CHANGES"):
            return 422, self._error(422, "Unprocessable Entity"), {}
        comments = body.get("comments") or []
        if not isinstance(comments, list):
            return 422, self._error(422, "Unprocessable Entity"), {}
        errors = []
        for c in comments:
            if not isinstance(c, dict) or not isinstance(c.get("body"), str) or not isinstance(c.get("path"), str):
                errors.append("Pull request review thread path is invalid")
                continue
            line, start = c.get("line"), c.get("start_line")
            if not isinstance(line, int) or (start is not None and (not isinstance(start, int) or start >= line)):
                errors.append("Pull request review thread start line must precede the end line.")
            elif not _in_one_hunk(pull, c["path"], start if start is not None else line, line):
                errors.append("Pull request review thread line must be part of the diff")
        if errors:
            data = self._error(422, "Unprocessable Entity")
            data["errors"] = errors
            return 422, data, {}
        self._next_id += 1
        review = FakeReview(self._next_id, repo, pull.number, self.comment_author, str(body.get("body") or ""),
                            str(body.get("event", "COMMENT")), str(body.get("commit_id") or pull.head_sha))
        self.reviews.append(review)
        for c in comments:
            self._new_review_comment(repo, pull.number, self.comment_author, c["body"], c["path"], c["line"],
                                     c.get("start_line"), None, review.id, review.commit_id)
        return 200, self.review_json(review), {}

    def label_json(self, repo: str, name: str) -> dict[str, Any]:
        return {
            "id": zlib.crc32(f"{repo}:{name}".encode()) % 10_000_000,
            "node_id": f"LA_{name}",
            "url": f"{self.url}/repos/{repo}/labels/{name}",
            "name": name,
            "color": "ededed",
            "default": False,
            "description": None,
        }

    def issue_json(self, issue: FakeIssue) -> dict[str, Any]:
        api = f"{self.url}/repos/{issue.repo}/issues/{issue.number}"
        return {
            "id": 900_000 + issue.number,
            "node_id": f"I_{issue.number}",
            "url": api,
            "repository_url": f"{self.url}/repos/{issue.repo}",
            "labels_url": f"{api}/labels{{/name}}",
            "comments_url": f"{api}/comments",
            "events_url": f"{api}/events",
            "html_url": f"{self.url}/{issue.repo}/issues/{issue.number}",
            "number": issue.number,
            "state": issue.state,
            "state_reason": "completed" if issue.state == "closed" else None,
            "title": issue.title,
            # GitHub sends null for an empty body.
            "body": issue.body or None,
            "user": None if issue.user is None else self.user_json(issue.user),
            "labels": [self.label_json(issue.repo, name) for name in issue.labels],
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "locked": False,
            "comments": 0,
            "created_at": _timestamp(issue.created_at),
            "updated_at": _timestamp(issue.updated_at),
            "closed_at": _timestamp(issue.updated_at) if issue.state == "closed" else None,
            "author_association": "NONE",
        }

    def pull_as_issue_json(self, pull: FakePull) -> dict[str, Any]:
        """A pull request as GET /issues lists it: an issue with a `pull_request` object."""
        html = f"{self.url}/{pull.repo}/pull/{pull.number}"
        api = f"{self.url}/repos/{pull.repo}/issues/{pull.number}"
        return {
            "id": 500_000 + pull.number,
            "node_id": f"PR_{pull.number}",
            "url": api,
            "repository_url": f"{self.url}/repos/{pull.repo}",
            "comments_url": f"{api}/comments",
            "html_url": html,
            "number": pull.number,
            "state": "open",
            "title": pull.title,
            "body": None,
            "user": self.user_json(pull.user),
            "labels": [],
            "locked": False,
            "comments": 0,
            "created_at": _timestamp(EPOCH),
            "updated_at": _timestamp(EPOCH),
            "closed_at": None,
            "author_association": "CONTRIBUTOR",
            "pull_request": {
                "url": f"{self.url}/repos/{pull.repo}/pulls/{pull.number}",
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": None,
            },
        }

    def _issues(self, repo: str, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """GET /repos/{repo}/issues: issues and pull requests, filtered by `state` and `creator`, newest first."""
        state = query.get("state", "open")
        if state not in ("open", "closed", "all"):
            return 422, self._error(422, "Validation Failed"), {}
        creator = query.get("creator")

        def wanted(item_repo: str, item_state: str, user: str | None) -> bool:
            by = creator is None or (user or "").casefold() == creator.casefold()
            return item_repo == repo and state in ("all", item_state) and by

        items: list[tuple[datetime, int, dict[str, Any]]] = []
        items += [(i.created_at, i.number, self.issue_json(i)) for i in self.issues if wanted(i.repo, i.state, i.user)]
        items += [
            (EPOCH, p.number, self.pull_as_issue_json(p)) for p in self.pulls.values() if wanted(p.repo, "open", p.user)
        ]
        # GitHub's default order: sort=created, direction=desc.
        items.sort(key=lambda item: (item[0], item[1]), reverse=True)
        extra = {k: v for k, v in query.items() if k in ("state", "creator")}
        return self._page(path, query, [data for _, _, data in items], extra)

    def _issue_fields(self, body: Any, creating: bool) -> tuple[dict[str, Any], bool]:
        """The fields of a POST or PATCH of an issue, and whether they are valid."""
        if not isinstance(body, dict):
            return {}, False
        fields = {k: body[k] for k in ("title", "body", "labels", "state") if k in body}
        valid = (
            (not creating or "title" in fields)
            and ("title" not in fields or (isinstance(fields["title"], str) and fields["title"].strip() != ""))
            and ("body" not in fields or fields["body"] is None or isinstance(fields["body"], str))
            and ("body" not in fields or len(fields["body"] or "") <= ISSUE_BODY_LIMIT)
            and (
                "labels" not in fields
                or (isinstance(fields["labels"], list) and all(isinstance(x, str) for x in fields["labels"]))
            )
            and ("state" not in fields or fields["state"] in ("open", "closed"))
        )
        return fields, valid

    # -- routing -------------------------------------------------------------------------------

    def respond(
        self, method: str, path: str, query: dict[str, str], body: Any
    ) -> tuple[int, Any, dict[str, str], float]:
        """One request -> (status, JSON body or raw bytes, extra headers, delay), faults applied. Lock held."""
        fault = next(
            (f for f in self.faults if f.method == method and re.fullmatch(f.path_regex, path) and f.times != 0),
            None,
        )
        if fault is None:
            return (*self.handle(method, path, query, body), 0.0)
        if fault.times is not None:
            fault.times -= 1
        status, data, headers = self.handle(method, path, query, body) if fault.perform else (0, None, {})
        if fault.transform is not None:
            data = fault.transform(data)
        if fault.status is not None:
            status, data, headers = fault.status, self._error(fault.status, fault.message), {}
        return status, data, headers, fault.delay

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        """One request -> (status, JSON body, extra headers), without faults. Called with the lock held."""
        if method == "GET" and path == "/user":
            if self.login is None:
                return 403, self._error(403, "Resource not accessible by integration"), {}
            return 200, self.user_json(self.login), {}

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", path)
        if m is None or m.group(1) not in self.repos:
            return 404, self._error(404, "Not Found"), {}
        repo, rest = m.group(1), m.group(2) or ""

        if method == "GET" and rest == "":
            return 200, self.repo_json(repo), {}
        if m := re.fullmatch(r"/pulls/(\d+)", rest):
            pull = self.pulls.get((repo, int(m.group(1))))
            if method != "GET" or pull is None:
                return 404, self._error(404, "Not Found"), {}
            return 200, self.pull_json(pull), {}
        if m := re.fullmatch(r"/pulls/(\d+)/files", rest):
            pull = self.pulls.get((repo, int(m.group(1))))
            if method != "GET" or pull is None:
                return 404, self._error(404, "Not Found"), {}
            return self._page(path, query, [self.file_json(pull, f) for f in pull.files])
        if m := re.fullmatch(r"/pulls/(\d+)/comments", rest):
            pull = self.pulls.get((repo, int(m.group(1))))
            if method != "GET" or pull is None:
                return 404, self._error(404, "Not Found"), {}
            threads = sorted((c for c in self.review_comments if c.repo == repo and c.number == pull.number),
                             key=lambda c: c.id)
            return self._page(path, query, [self.review_comment_json(c) for c in threads])
        if m := re.fullmatch(r"/pulls/(\d+)/reviews", rest):
            pull = self.pulls.get((repo, int(m.group(1))))
            if pull is None:
                return 404, self._error(404, "Not Found"), {}
            if method == "POST":
                return self._create_review(repo, pull, body)
            if method == "GET":
                return self._page(path, query, [self.review_json(r) for r in self.reviews
                                                 if r.repo == repo and r.number == pull.number])
        if m := re.fullmatch(r"/pulls/comments/(\d+)", rest):
            found_rc = next((c for c in self.review_comments if c.repo == repo and c.id == int(m.group(1))), None)
            if found_rc is None:
                return 404, self._error(404, "Not Found"), {}
            if method == "GET":
                return 200, self.review_comment_json(found_rc), {}
            if method == "PATCH":
                text = body.get("body") if isinstance(body, dict) else None
                if not isinstance(text, str) or not text:
                    return 422, self._error(422, "Validation Failed"), {}
                found_rc.body = text
                found_rc.updated_at = self._tick()
                return 200, self.review_comment_json(found_rc), {}
            if method == "DELETE":
                self.review_comments.remove(found_rc)
                return 204, None, {}
        if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
            number = int(m.group(1))
            # Every pull request is an issue; the fake only knows pull requests.
            if (repo, number) not in self.pulls:
                return 404, self._error(404, "Not Found"), {}
            if method == "GET":
                listed = sorted((c for c in self.comments if c.repo == repo and c.issue_number == number), key=_id)
                return self._page(path, query, [self.comment_json(c) for c in listed])
            if method == "POST":
                text = body.get("body") if isinstance(body, dict) else None
                if not isinstance(text, str) or not text:
                    return 422, self._error(422, "Validation Failed"), {}
                created = self._new_comment(repo, number, self.comment_author, text)
                return 201, self.comment_json(created), {"Location": self.comment_json(created)["url"]}
        if m := re.fullmatch(r"/issues/comments/(\d+)", rest):
            found = next((c for c in self.comments if c.repo == repo and c.id == int(m.group(1))), None)
            if found is None:
                return 404, self._error(404, "Not Found"), {}
            if method == "GET":
                return 200, self.comment_json(found), {}
            if method == "PATCH":
                text = body.get("body") if isinstance(body, dict) else None
                if not isinstance(text, str) or not text:
                    return 422, self._error(422, "Validation Failed"), {}
                found.body = text
                found.updated_at = self._tick()
                return 200, self.comment_json(found), {}
        if rest == "/issues":
            if method == "GET":
                return self._issues(repo, path, query)
            if method == "POST":
                fields, valid = self._issue_fields(body, creating=True)
                if not valid:
                    return 422, self._error(422, "Validation Failed"), {}
                created = self._new_issue(
                    repo, self.comment_author, fields["title"], fields.get("body") or "", fields.get("labels") or []
                )
                data = self.issue_json(created)
                return 201, data, {"Location": data["url"]}
        if m := re.fullmatch(r"/issues/(\d+)", rest):
            number = int(m.group(1))
            issue = next((i for i in self.issues if i.repo == repo and i.number == number), None)
            if issue is None:
                pull = self.pulls.get((repo, number))
                if method == "GET" and pull is not None:
                    return 200, self.pull_as_issue_json(pull), {}
                return 404, self._error(404, "Not Found"), {}
            if method == "GET":
                return 200, self.issue_json(issue), {}
            if method == "PATCH":
                fields, valid = self._issue_fields(body, creating=False)
                if not valid:
                    return 422, self._error(422, "Validation Failed"), {}
                issue.title = fields.get("title", issue.title)
                issue.body = fields.get("body", issue.body) or ""
                issue.labels = list(fields.get("labels", issue.labels))
                issue.state = fields.get("state", issue.state)
                issue.updated_at = self._tick()
                return 200, self.issue_json(issue), {}
        return 404, self._error(404, "Not Found"), {}

    def _page(
        self, path: str, query: dict[str, str], items: list[Any], extra: dict[str, str] | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = min(max(int(query.get("per_page", DEFAULT_PER_PAGE)), 1), MAX_PER_PAGE)
        size = min(per_page, self.page_size) if self.page_size else per_page
        page = max(int(query.get("page", 1)), 1)
        last = max((len(items) + size - 1) // size, 1)
        chunk = items[(page - 1) * size : page * size]
        # The links keep the listing's filters (state, creator), as GitHub's do.
        kept = "".join(f"&{k}={quote(v)}" for k, v in sorted((extra or {}).items()))
        links = []
        if page < last:
            links += [f'<{self.url}{path}?page={page + 1}&per_page={per_page}{kept}>; rel="next"']
            links += [f'<{self.url}{path}?page={last}&per_page={per_page}{kept}>; rel="last"']
        if page > 1:
            links += [f'<{self.url}{path}?page={page - 1}&per_page={per_page}{kept}>; rel="prev"']
            links += [f'<{self.url}{path}?page=1&per_page={per_page}{kept}>; rel="first"']
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})

    @staticmethod
    def _error(status: int, message: str) -> dict[str, Any]:
        return {"message": message, "documentation_url": DOCS_URL, "status": str(status)}


def _in_one_hunk(pull: FakePull, path: str, start: int, end: int) -> bool:
    """Whether new-side lines start..end of `path` lie in one hunk of the pull request's patch for it."""
    for f in pull.files:
        if f.get("filename") != path:
            continue
        for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", str(f.get("patch", "")), re.MULTILINE):
            first = int(m.group(1))
            last = first + (int(m.group(2)) if m.group(2) is not None else 1) - 1
            if first <= start <= end <= last:
                return True
    return False


def _id(comment: FakeComment) -> int:
    return comment.id


def _make_handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0: one request per connection, so no keep-alive socket outlives a test.
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            with fake.lock:
                fake.requests.append(RecordedRequest(self.command, parts.path, query, body))
                auth = self.headers.get("Authorization", "")
                scheme, _, given = auth.partition(" ")
                headers: dict[str, str]
                if scheme.lower() not in ("token", "bearer") or not given or (fake.token and given != fake.token):
                    status, data, headers, delay = 401, fake._error(401, "Bad credentials"), {}, 0.0
                else:
                    status, data, headers, delay = fake.respond(self.command, parts.path, query, body)
            if delay and fake.closing.wait(delay):
                return  # the server is closing: nobody is waiting for this answer any more
            # Bytes are sent as they are: a proxy's HTML page, truncated JSON, nothing at all.
            payload = data if isinstance(data, bytes) else b"" if status == 204 else json.dumps(data).encode()
            content_type = "text/html" if isinstance(data, bytes) else "application/json; charset=utf-8"
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up waiting (its timeout) and closed the connection

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    return Handler
