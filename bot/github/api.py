"""The GitHub REST layer: pull request data, changed files, one sticky comment and one tracking issue.

This is the only module that imports PyGithub. PyGithub carries the requests (authentication, base
URL, connection); this module reads each answer's JSON itself and checks its shape, so an answer
GitHub's API does not document (a proxy's HTML page, truncated JSON, a null, an object where a list
belongs) is a `GitHubBadResponse`, never an AttributeError from deep inside. Everything returned is one
of the frozen dataclasses below, and every failure is one of the `GitHubError` subclasses, so callers
never see PyGithub objects or exceptions. Messages never contain the token.

Reads (GET) are retried on 5xx answers, timeouts and connection errors. Writes are not retried
blindly: a POST or PATCH whose answer was lost (a timeout, a 5xx, an unreadable answer) may still have
been carried out, so before writing again the client looks for its comment (or issue), and one already
there with the intended body counts as written.

The tracking issue of `mode: audit` follows the sticky comment's rules: found by its hidden marker among
the open issues written by the bot's own login (never someone else's, even one quoting the marker), and
edited in place. Only open issues count: closing the tracking issue retires it, and the next run opens a
new one. Labels are given when the issue is created; edits leave the labels alone (a maintainer's stay).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import requests
from github import Auth, Github

T = TypeVar("T")
W = TypeVar("W", "Comment", "Issue", "Review")  # what the write loop writes

UpsertAction = Literal["created", "updated", "unchanged"]

DEFAULT_BASE_URL = "https://api.github.com"
# The GITHUB_TOKEN of a workflow cannot read GET /user, but it comments as this account.
ACTIONS_BOT_LOGIN = "github-actions[bot]"
MARKER_PREFIX = "dafny-spec-score"
# GitHub's maximum page size: fewer round trips on PRs with many files or comments.
PER_PAGE = 100
USER_AGENT = "dafny-spec-score"

FORK_RECIPE_HINT = (
    "The token is read-only here. Pull requests from forks get a read-only GITHUB_TOKEN under "
    "`on: pull_request`, so the comment cannot be posted from that workflow. Use the two-workflow "
    "recipe in the README: score the pull request under `on: pull_request` and upload the report as an "
    "artifact, then post it from a second workflow under `on: workflow_run`. For pull requests from "
    "branches of this repository, grant `permissions: pull-requests: write` to the job."
)
READ_PERMISSION_HINT = (
    "The token cannot read this. Grant the job `permissions: contents: read` and `pull-requests: read`."
)
NOT_FOUND_HINT = "Check the repository name and the pull request number, and that the token can read the repository."
BAD_CREDENTIALS_HINT = "GitHub rejected the token (401): check the token passed to the action; it may have expired."
RATE_LIMIT_HINT = "GitHub's API rate limit was hit; run the job again later."
BAD_RESPONSE_HINT = (
    "GitHub, or a proxy in front of it, answered with something its REST API does not document. This is "
    "usually passing: run the job again. If it persists, check that GITHUB_API_URL points at a GitHub REST API."
)
OUTAGE_HINT = "Try again later; https://www.githubstatus.com shows outages."
# GitHub refuses (422) an issue or comment body longer than this many characters.
ISSUE_BODY_LIMIT = 65_536
ISSUES_PERMISSION_HINT = (
    "The token cannot write issues here. Grant the job `permissions: issues: write` (the tracking issue of "
    "`audit-issue`), or leave `audit-issue` empty."
)
# Stops a `Link` header that never ends; 1000 pages of 100 is far beyond GitHub's own caps.
MAX_PAGES = 1000

_COMMENT_ID = re.compile(r"[A-Za-z0-9._-]+")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class GitHubError(Exception):
    """Any failure talking to GitHub; the message says what failed and what to do."""


class GitHubPermissionError(GitHubError):
    """403: the token may not do this (typically a read-only token on a fork's pull request)."""


class GitHubNotFound(GitHubError):
    """404: the repository, pull request or comment does not exist or the token cannot see it."""


class GitHubUnavailable(GitHubError):
    """5xx answers, timeouts or connection errors on every attempt."""


class GitHubBadResponse(GitHubError):
    """An answer that is not the JSON GitHub documents: not JSON at all, or JSON of the wrong shape."""


@dataclass(frozen=True)
class PullRequest:
    number: int
    title: str
    base_sha: str
    head_sha: str
    base_ref: str
    head_ref: str
    # None when the fork the pull request came from has been deleted.
    head_repo_full_name: str | None
    is_fork: bool
    author_login: str


@dataclass(frozen=True)
class ChangedFile:
    filename: str
    # GitHub's words: added, removed, modified, renamed, copied, changed, unchanged.
    status: str
    previous_filename: str | None
    additions: int
    deletions: int
    # the unified diff GitHub shows; None when it leaves it out (a binary or very large file)
    patch: str | None = None


@dataclass(frozen=True)
class Comment:
    id: int
    author_login: str
    body: str
    html_url: str


@dataclass(frozen=True)
class ReviewComment:
    """A comment on a line of the pull request's diff."""

    id: int
    author_login: str
    body: str
    path: str
    line: int | None  # the line at the pull request's head; None when the diff no longer holds it (outdated)
    start_line: int | None  # first line of a comment over several lines
    in_reply_to_id: int | None  # set on replies
    review_id: int | None
    html_url: str


@dataclass(frozen=True)
class NewReviewComment:
    path: str
    line: int
    start_line: int | None  # None, or a line before `line` in the same hunk
    body: str


@dataclass(frozen=True)
class Review:
    id: int
    html_url: str


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    author_login: str
    body: str
    html_url: str
    state: str
    labels: tuple[str, ...]


def marker_for(comment_id: str) -> str:
    """The hidden HTML comment that identifies our sticky comment; `comment_id` lets configurations share a PR."""
    cleaned = comment_id.strip()
    # A restricted alphabet keeps the marker a valid, unbreakable HTML comment (no `-->` inside).
    if not _COMMENT_ID.fullmatch(cleaned):
        raise ValueError(f"comment id {comment_id!r} must be letters, digits, '.', '_' or '-'")
    return f"<!-- {MARKER_PREFIX}:{cleaned} -->"


def with_marker(body: str, marker: str) -> str:
    """`body` with `marker` on its first line unless it already carries it."""
    return body if marker in body else f"{marker}\n{body}"


def _same_login(a: str, b: str) -> bool:
    # GitHub logins are case-insensitive.
    return a.casefold() == b.casefold()


def _same_body(a: str, b: str) -> bool:
    # GitHub may hand back CRLF line ends or trimmed trailing whitespace for the body we sent.
    return a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


# -- the wire ----------------------------------------------------------------------------------------
# Two private exceptions carry what went wrong from the request to the method that names it.


class _HTTPStatus(Exception):
    """A 4xx or 5xx answer; `message` is GitHub's own (token removed), `rate_limited` from its headers."""

    def __init__(self, status: int, message: str, rate_limited: bool) -> None:
        super().__init__(status)
        self.status = status
        self.message = message
        self.rate_limited = rate_limited


class _Malformed(Exception):
    """A 2xx answer of a shape GitHub does not document. Says which field and what kind, never its content."""


def _error_message(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, str):
        return ""
    # a 422's `errors` say what was invalid ("... line must be part of the diff"); strings or objects
    errors = data.get("errors")
    details = [e if isinstance(e, str) else str(e.get("message", "")) for e in errors if isinstance(e, str | dict)] \
        if isinstance(errors, list) else []
    details = [d for d in details if d]
    return (message + (": " + "; ".join(details) if details else ""))[:400]


def _rate_limited(status: int, message: str, headers: dict[str, Any]) -> bool:
    if status == 429:
        return True
    # A 403 is a rate limit when GitHub says so, in words (primary or secondary limit) or in its headers.
    return status == 403 and ("rate limit" in message.casefold() or str(headers.get("x-ratelimit-remaining")) == "0")


def _next_link(headers: dict[str, Any]) -> str | None:
    link = headers.get("link")
    if not isinstance(link, str):
        return None
    for entry in requests.utils.parse_header_links(link):
        if entry.get("rel") == "next" and entry.get("url"):
            return entry["url"]
    return None


# -- reading JSON --------------------------------------------------------------------------------


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Malformed(f"{where} is {_kind(value)}, not an object")
    return value


def _array(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Malformed(f"{where} is {_kind(value)}, not an array")
    return value


def _wrong(data: dict[str, Any], key: str, where: str, expected: str) -> _Malformed:
    found = _kind(data[key]) if key in data else "missing"
    return _Malformed(f"`{key}` of {where} is {found}, not {expected}")


def _str(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise _wrong(data, key, where, "a string")
    return value


def _optional_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise _wrong(data, key, where, "a string")
    return value


def _int(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _wrong(data, key, where, "an integer")
    return value


def _login_of(data: dict[str, Any], where: str) -> str:
    """The login of `data["user"]`; "" for a deleted account (null)."""
    user = data.get("user")
    return "" if user is None else _str(_object(user, f"the user of {where}"), "login", f"the user of {where}")


def _author(comment: dict[str, Any]) -> str | None:
    """Who wrote a listed comment, or None when the answer does not say (a deleted account's `user: null`)."""
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else None


def _text(comment: dict[str, Any]) -> str:
    body = comment.get("body")
    return body if isinstance(body, str) else ""


def _pull_request(data: object, repository: str) -> PullRequest:
    where = "the pull request"
    pull = _object(data, where)
    base = _object(pull.get("base"), "the pull request's base")
    head = _object(pull.get("head"), "the pull request's head")

    def repo_name(side: dict[str, Any], name: str) -> str | None:
        repo = side.get("repo")
        if repo is None:
            return None  # GitHub sends null for the head of a pull request whose fork was deleted
        where = f"the {name} repository"
        return _str(_object(repo, where), "full_name", where)

    base_repo = repo_name(base, "base") or repository
    head_repo = repo_name(head, "head")
    return PullRequest(
        number=_int(pull, "number", where),
        title=_optional_str(pull, "title", where) or "",
        base_sha=_str(base, "sha", "the pull request's base"),
        head_sha=_str(head, "sha", "the pull request's head"),
        base_ref=_str(base, "ref", "the pull request's base"),
        head_ref=_str(head, "ref", "the pull request's head"),
        head_repo_full_name=head_repo,
        # A deleted fork (head repo None) is still a fork: we cannot push to it or trust it.
        is_fork=head_repo is None or head_repo.casefold() != base_repo.casefold(),
        author_login=_login_of(pull, where),
    )


def _changed_file(data: object) -> ChangedFile:
    where = "a changed file"
    entry = _object(data, where)
    return ChangedFile(
        filename=_str(entry, "filename", where),
        status=_str(entry, "status", where),
        previous_filename=_optional_str(entry, "previous_filename", where) or None,
        additions=_int(entry, "additions", where),
        deletions=_int(entry, "deletions", where),
        patch=_optional_str(entry, "patch", where),
    )


def _comment(data: dict[str, Any], where: str) -> Comment:
    return Comment(
        id=_int(data, "id", where),
        author_login=_author(data) or "",
        body=_text(data),
        html_url=_optional_str(data, "html_url", where) or "",
    )


def _optional_int(data: dict[str, Any], key: str, where: str) -> int | None:
    return None if data.get(key) is None else _int(data, key, where)


def _review_comment(data: object) -> ReviewComment:
    where = "a review comment"
    comment = _object(data, where)
    return ReviewComment(
        id=_int(comment, "id", where),
        author_login=_author(comment) or "",
        body=_text(comment),
        path=_str(comment, "path", where),
        line=_optional_int(comment, "line", where),
        start_line=_optional_int(comment, "start_line", where),
        in_reply_to_id=_optional_int(comment, "in_reply_to_id", where),
        review_id=_optional_int(comment, "pull_request_review_id", where),
        html_url=_optional_str(comment, "html_url", where) or "",
    )


def _written_review(data: object) -> Review:
    where = "the review"
    review = _object(data, where)
    return Review(id=_int(review, "id", where), html_url=_optional_str(review, "html_url", where) or "")


def _issue(data: dict[str, Any], where: str) -> Issue:
    labels = []
    for item in _array(data.get("labels", []), f"the labels of {where}"):
        # GitHub documents a label as an object with a name; older answers give the name alone.
        labels.append(item if isinstance(item, str) else _str(_object(item, "a label"), "name", "a label"))
    return Issue(
        number=_int(data, "number", where),
        title=_optional_str(data, "title", where) or "",
        author_login=_author(data) or "",
        body=_text(data),
        html_url=_optional_str(data, "html_url", where) or "",
        state=_optional_str(data, "state", where) or "open",
        labels=tuple(labels),
    )


def _written_issue(data: object) -> Issue:
    """The answer to our POST or PATCH of an issue: it must say which issue it is."""
    where = "the issue"
    issue = _object(data, where)
    _int(issue, "number", where)
    return _issue(issue, where)


def _written_comment(data: object) -> Comment:
    """The answer to our POST or PATCH: it must at least say which comment it is and what it holds."""
    where = "the comment"
    comment = _object(data, where)
    _str(comment, "body", where)
    return _comment(comment, where)


def _redactor(secret: str) -> Callable[[str], str]:
    # A closure, so the token is in no attribute: `vars(client)` and tracebacks' locals do not show it.
    def redact(text: str) -> str:
        return text.replace(secret, "***")

    return redact


class GitHubClient:
    """A small client for one repository. Use it as a context manager, or call `close()`.

    `retries` is the number of attempts per read, and per write counting the looks in between;
    `timeout` the seconds to wait for each answer."""

    def __init__(
        self,
        token: str,
        repository: str,
        base_url: str = DEFAULT_BASE_URL,
        retries: int = 3,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        timeout: int = 30,
    ) -> None:
        if not token:
            raise ValueError("the GitHub token is empty")
        if not _REPOSITORY.fullmatch(repository):
            raise ValueError(f"repository must look like 'owner/name', got {repository!r}")
        if retries < 1:
            raise ValueError(f"retries must be at least 1, got {retries}")
        if backoff < 0:
            raise ValueError(f"backoff must not be negative, got {backoff}")
        # PyGithub takes whole seconds only.
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1:
            raise ValueError(f"timeout must be a whole number of seconds, at least 1, got {timeout!r}")
        self.repository = repository
        self.base_url = base_url.rstrip("/")
        self._retries = retries
        self._backoff = backoff
        self._sleep = sleep
        self._login: str | None = None
        # Besides this closure, the token lives only inside PyGithub's requester; this object never shows it.
        self._redact = _redactor(token)
        self._github = Github(
            auth=Auth.Token(token),
            base_url=self.base_url,
            timeout=timeout,
            user_agent=USER_AGENT,
            per_page=PER_PAGE,
            # We retry ourselves, so tests control attempts and sleeps; PyGithub's own throttling would only slow us.
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )

    def __repr__(self) -> str:
        return f"GitHubClient(repository={self.repository!r}, base_url={self.base_url!r})"

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._github.close()

    # -- reading -------------------------------------------------------------------------------

    def pull_request(self, number: int) -> PullRequest:
        return self._read(
            f"read pull request #{number} of {self.repository}",
            lambda: _pull_request(self._get(f"/repos/{self.repository}/pulls/{number}"), self.repository),
        )

    def changed_files(self, number: int) -> list[ChangedFile]:
        """Every file the pull request changes, all pages (GitHub lists at most 3000)."""
        return self._read(
            f"list the files of pull request #{number} of {self.repository}",
            lambda: [_changed_file(f) for f in self._list(f"/repos/{self.repository}/pulls/{number}/files", "files")],
        )

    def authenticated_login(self) -> str | None:
        """The token's login, or None when GitHub refuses GET /user (as it does for a workflow's GITHUB_TOKEN)."""
        try:
            return self._read(
                "read the authenticated user",
                lambda: _str(_object(self._get("/user"), "the user"), "login", "the user"),
            )
        except GitHubPermissionError:
            return None

    def bot_login(self) -> str:
        """The login our comments are posted as; `github-actions[bot]` when the token cannot say."""
        if self._login is None:
            self._login = self.authenticated_login() or ACTIONS_BOT_LOGIN
        return self._login

    def find_comment(self, number: int, marker: str, author: str) -> Comment | None:
        """The most recent comment by `author` whose body holds `marker`; comments by others are ignored.

        Comments whose author the answer does not give (a deleted account's `user: null`) are never ours."""
        return self._find(number, marker, author)

    def find_issue(self, marker: str, author: str) -> Issue | None:
        """The most recent open issue by `author` whose body holds `marker`; issues by others are ignored.

        Pull requests (which GitHub lists among issues) and issues whose author the answer does not give
        are never ours. `creator` narrows the listing; as GitHub does not document that filter for an app's
        `name[bot]` login, an empty narrowed listing is checked against the full one before it counts."""
        found = self._find_issue(marker, author, creator=True)
        return found if found is not None else self._find_issue(marker, author, creator=False)

    # -- writing -------------------------------------------------------------------------------

    def upsert_comment(
        self, number: int, marker: str, body: str, author: str, only_if_changed: bool = True
    ) -> tuple[UpsertAction, Comment]:
        """Create our sticky comment, or edit it in place; never touches anyone else's comment."""
        body = with_marker(body, marker)
        existing = self._find(number, marker, author)
        if existing is not None and only_if_changed and _same_body(existing.body, body):
            return "unchanged", existing
        return self._write(number, marker, body, author, existing)

    def upsert_issue(
        self,
        title: str,
        marker: str,
        body: str,
        author: str,
        labels: tuple[str, ...] = (),
        edit: Callable[[str], str] | None = None,
    ) -> tuple[UpsertAction, Issue]:
        """Create our tracking issue, or edit it in place (title and body); never touches anyone else's issue.

        `edit`, when given and our issue exists, makes the new body from the existing one instead of `body`
        (the nightly audit's "only the last-run line changed"). `labels` are set when the issue is created."""
        if not title.strip():
            raise ValueError("the issue title is empty")
        body = with_marker(body, marker)
        existing = self.find_issue(marker, author)
        if existing is not None and edit is not None:
            body = with_marker(edit(existing.body), marker)
        if len(body) > ISSUE_BODY_LIMIT:
            raise ValueError(f"the issue body has {len(body)} characters; GitHub takes at most {ISSUE_BODY_LIMIT}")
        if existing is not None and existing.title == title and _same_body(existing.body, body):
            return "unchanged", existing
        return self._write_issue(title, marker, body, author, labels, existing)

    # -- review comments -----------------------------------------------------------------------

    def review_comments(self, number: int) -> list[ReviewComment]:
        """Every review comment on the pull request's diff (all pages), replies included."""
        return self._read(
            f"list the review comments of pull request #{number} of {self.repository}",
            lambda: [_review_comment(c) for c in self._list(f"/repos/{self.repository}/pulls/{number}/comments",
                                                             "review comments")],
        )

    def create_review(self, number: int, commit_id: str, body: str, comments: list[NewReviewComment],
                      author: str) -> Review:
        """One review (`event: COMMENT`) holding every comment, at `commit_id`. A 422 (a line outside the
        diff, say) is a GitHubError naming GitHub's reason; the review is then not created at all.

        Not sent blindly twice: after a lost answer the review comments are looked through, and ours with
        every intended body means the review was created."""
        payload = {"commit_id": commit_id, "body": body, "event": "COMMENT", "comments": [
            {"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body,
             **({"start_line": c.start_line, "start_side": "RIGHT"} if c.start_line is not None else {})}
            for c in comments]}
        what = f"create a review on pull request #{number} of {self.repository}"

        def request(_: Review | None) -> tuple[str, str, str, dict[str, Any]]:
            return what, "POST", f"/repos/{self.repository}/pulls/{number}/reviews", payload

        def find() -> Review | None:
            ours = [c for c in self.review_comments(number) if _same_login(c.author_login, author)]
            found = [next((o for o in ours if _same_body(o.body, c.body)), None) for c in comments]
            if not found or any(f is None for f in found):
                return None
            first = found[0]
            assert first is not None
            return Review(first.review_id or 0, first.html_url)

        return self._write_checked(None, request, _written_review, find, lambda _: True, (), None,
                                   "The review may have been created all the same", "the review is not there")[1]

    def edit_review_comment(self, comment_id: int, body: str) -> bool:
        """Set the body of one review comment; False when it is gone (deleted meanwhile)."""
        url = f"/repos/{self.repository}/pulls/comments/{comment_id}"
        try:
            self._read(f"edit review comment {comment_id} of {self.repository}",
                       lambda: self._request("PATCH", url, body={"body": body}), write=True)
        except GitHubNotFound:
            return False
        return True

    def delete_review_comment(self, comment_id: int) -> bool:
        """Delete one review comment; False when it was already gone. Sent again after a lost answer: a
        deletion carried out twice is one deletion."""
        url = f"/repos/{self.repository}/pulls/comments/{comment_id}"
        try:
            self._read(f"delete review comment {comment_id} of {self.repository}",
                       lambda: self._request("DELETE", url), write=True)
        except GitHubNotFound:
            return False
        return True

    # -- internals -----------------------------------------------------------------------------

    def _request(
        self, verb: str, url: str, parameters: dict[str, Any] | None = None, body: Any = None
    ) -> tuple[Any, dict[str, Any]]:
        """One request -> (JSON, headers). Raises _HTTPStatus, _Malformed or requests' exceptions only."""
        try:
            status, headers, text = self._github.requester.requestJson(verb, url, parameters=parameters, input=body)
        except requests.RequestException:
            raise
        except (RuntimeError, ValueError, TypeError, AttributeError, KeyError) as exc:
            # PyGithub gave up on the answer itself (a redirect to another host, say).
            raise _Malformed(f"PyGithub could not handle the answer: {type(exc).__name__}") from None
        headers = headers if isinstance(headers, dict) else {}
        if status >= 400:
            message = self._redact(_error_message(text))
            raise _HTTPStatus(status, message, _rate_limited(status, message, headers))
        if not text:
            if status == 204:  # No Content: what GitHub answers a DELETE
                return None, headers
            raise _Malformed(f"the answer (HTTP {status}) is empty")
        try:
            return json.loads(text), headers
        except ValueError:
            raise _Malformed(f"the answer (HTTP {status}) is not JSON") from None

    def _get(self, url: str) -> Any:
        return self._request("GET", url)[0]

    def _list(self, url: str, what: str, query: dict[str, str] | None = None) -> Iterator[Any]:
        """The items of every page of a list endpoint, following GitHub's `Link: rel="next"`; `query`
        filters the first page (the next links carry it on)."""
        parameters: dict[str, Any] | None = {**(query or {}), "per_page": PER_PAGE}
        next_url: str | None = url
        for page in range(1, MAX_PAGES + 1):
            if next_url is None:
                return
            data, headers = self._request("GET", next_url, parameters)
            yield from _array(data, f"page {page} of the {what}")
            # The next link carries its own query (page, per_page).
            next_url, parameters = _next_link(headers), None
        raise _Malformed(f"the {what} go on for more than {MAX_PAGES} pages")

    def _find(self, number: int, marker: str, author: str) -> Comment | None:
        def scan() -> Comment | None:
            # Every page: a busy pull request can have hundreds of comments.
            ours: list[Comment] = []
            for item in self._list(f"/repos/{self.repository}/issues/{number}/comments", "comments"):
                comment = _object(item, "a comment")
                login = _author(comment)
                if login is not None and _same_login(login, author) and marker in _text(comment):
                    ours.append(_comment(comment, "a comment"))
            # GitHub lists comments by ascending id; max() picks the most recent without relying on it.
            return max(ours, key=lambda c: c.id, default=None)

        return self._read(f"list the comments on pull request #{number} of {self.repository}", scan)

    def _find_issue(self, marker: str, author: str, creator: bool) -> Issue | None:
        def scan() -> Issue | None:
            ours: list[Issue] = []
            query = {"state": "open", **({"creator": author} if creator else {})}
            for item in self._list(f"/repos/{self.repository}/issues", "issues", query):
                issue = _object(item, "an issue")
                if "pull_request" in issue:
                    continue  # GitHub lists pull requests among the issues
                login = _author(issue)
                if login is not None and _same_login(login, author) and marker in _text(issue):
                    ours.append(_issue(issue, "an issue"))
            return max(ours, key=lambda i: i.number, default=None)

        return self._read(f"list the open issues of {self.repository}", scan)

    def _read(self, what: str, fn: Callable[[], T], write: bool = False) -> T:
        """Run `fn`'s GET requests, retrying 5xx answers, timeouts and connection errors; fail as a GitHubError.

        `write`: `fn` is a write that may be sent again as it is (an edit or a deletion of one comment)."""
        last = ""
        for attempt in range(1, self._retries + 1):
            try:
                return fn()
            except _HTTPStatus as exc:
                if exc.status < 500:
                    raise self._client_error(what, exc, write=write) from None
                last = f"HTTP {exc.status}"
            except requests.RequestException as exc:
                # Only the class name: the text of a connection error is noisy and says nothing more.
                last = type(exc).__name__
            except _Malformed as exc:
                # Not retried: a proxy's page or a wrong shape is rarely gone a second later.
                raise GitHubBadResponse(f"Could not {what}: {exc} ({self.base_url}). {BAD_RESPONSE_HINT}") from None
            if attempt < self._retries:
                self._sleep(self._backoff * 2 ** (attempt - 1))
        raise GitHubUnavailable(
            f"GitHub did not answer properly when trying to {what}: {last} on all {self._retries} attempts "
            f"({self.base_url}). {OUTAGE_HINT}"
        )

    def _write(
        self, number: int, marker: str, body: str, author: str, target: Comment | None
    ) -> tuple[UpsertAction, Comment]:
        """Post our comment (`target` None) or edit `target`, never blindly twice.

        A write whose answer is lost (a timeout, a 5xx, an unreadable answer) may have been carried out
        all the same, so the comments are looked through before the next attempt: our comment with
        `body` is the write done; our comment with another body is edited; none is posted."""

        def request(t: Comment | None) -> tuple[str, str, str, dict[str, Any]]:
            if t is None:
                return (f"create a comment on pull request #{number} of {self.repository}", "POST",
                        f"/repos/{self.repository}/issues/{number}/comments", {"body": body})
            return (f"update comment {t.id} on pull request #{number} of {self.repository}", "PATCH",
                    f"/repos/{self.repository}/issues/comments/{t.id}", {"body": body})

        return self._write_checked(
            target, request, _written_comment, lambda: self._find(number, marker, author),
            lambda found: _same_body(found.body, body), (404,), None,
            "The comment may have been posted all the same", "the comment is not on the pull request",
        )

    def _write_issue(
        self, title: str, marker: str, body: str, author: str, labels: tuple[str, ...], target: Issue | None
    ) -> tuple[UpsertAction, Issue]:
        """Open our issue (`target` None) or edit `target`, never blindly twice: as `_write` for comments, a
        write whose answer is lost is followed by a look for the issue before the next attempt."""

        def request(t: Issue | None) -> tuple[str, str, str, dict[str, Any]]:
            payload: dict[str, Any] = {"title": title, "body": body}
            if t is None:
                if labels:
                    payload["labels"] = list(labels)
                return f"open an issue in {self.repository}", "POST", f"/repos/{self.repository}/issues", payload
            return (f"edit issue #{t.number} of {self.repository}", "PATCH",
                    f"/repos/{self.repository}/issues/{t.number}", payload)

        return self._write_checked(
            target, request, _written_issue, lambda: self.find_issue(marker, author),
            lambda found: found.title == title and _same_body(found.body, body), (404, 410),
            ISSUES_PERMISSION_HINT, "The issue may have been written all the same", "the issue is not as intended",
        )

    def _write_checked(
        self,
        target: W | None,
        request: Callable[[W | None], tuple[str, str, str, dict[str, Any]]],
        parse: Callable[[object], W],
        find: Callable[[], W | None],
        done: Callable[[W], bool],
        gone: tuple[int, ...],
        permission_hint: str | None,
        maybe_written: str,
        not_there: str,
    ) -> tuple[UpsertAction, W]:
        """The one write loop of comments and issues: create (`target` None) or edit `target`; after a lost
        answer, `find` ours before the next attempt: when `done(found)` the write was carried out, else
        `found` (or nothing) is the next target. A target `gone` (deleted between listing and edit) is created."""
        failures = 0
        unreadable = False
        while True:
            action: UpsertAction = "created" if target is None else "updated"
            what, verb, url, payload = request(target)
            try:
                return action, parse(self._request(verb, url, body=payload)[0])
            except _HTTPStatus as exc:
                if exc.status in gone and target is not None:
                    target = None
                    continue
                if exc.status < 500:
                    error = self._client_error(what, exc, write=True)
                    if permission_hint is not None and isinstance(error, GitHubPermissionError):
                        detail = f"{exc.status}: {exc.message}" if exc.message else str(exc.status)
                        error = GitHubPermissionError(f"Could not {what} ({detail}). {permission_hint}")
                    raise error from None
                last, unreadable = f"HTTP {exc.status}", False
            except requests.RequestException as exc:
                last, unreadable = type(exc).__name__, False
            except _Malformed as exc:
                last, unreadable = f"an unreadable answer ({exc})", True
            failures += 1
            self._sleep(self._backoff * 2 ** (failures - 1))
            try:
                found = find()
            except GitHubError as exc:
                raise type(exc)(
                    f"Could not {what}: {last}. {maybe_written}, but looking for "
                    f"it failed too, so it was not sent again. {exc}"
                ) from None
            if found is not None and done(found):
                return action, found
            if failures >= self._retries:
                error_type = GitHubBadResponse if unreadable else GitHubUnavailable
                hint = BAD_RESPONSE_HINT if unreadable else OUTAGE_HINT
                raise error_type(
                    f"GitHub did not answer properly when trying to {what}: {last} on all {self._retries} attempts, "
                    f"and {not_there} ({self.base_url}). {hint}"
                )
            target = found

    def _client_error(self, what: str, exc: _HTTPStatus, write: bool) -> GitHubError:
        status = exc.status
        detail = f"{status}: {exc.message}" if exc.message else str(status)
        if status == 401:
            return GitHubError(f"Could not {what} ({detail}). {BAD_CREDENTIALS_HINT}")
        if exc.rate_limited:
            return GitHubError(f"Could not {what} ({detail}). {RATE_LIMIT_HINT}")
        if status == 403:
            hint = FORK_RECIPE_HINT if write else READ_PERMISSION_HINT
            return GitHubPermissionError(f"Could not {what} ({detail}). {hint}")
        if status == 404:
            return GitHubNotFound(f"Could not {what} ({detail}): not found. {NOT_FOUND_HINT}")
        return GitHubError(f"Could not {what} ({detail}).")
