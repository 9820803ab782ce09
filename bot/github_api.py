"""The GitHub REST layer: pull request data, changed files and one sticky comment.

This is the only module that imports PyGithub. Everything it returns is one of the
frozen dataclasses below, and every failure is one of the `GitHubError` subclasses,
so callers never see PyGithub objects or exceptions. Messages never contain the token.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

import requests
from github import Auth, Github, GithubException, RateLimitExceededException
from github.Issue import Issue
from github.IssueComment import IssueComment

T = TypeVar("T")

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

_COMMENT_ID = re.compile(r"[A-Za-z0-9._-]+")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class GitHubError(Exception):
    """Any failure talking to GitHub; the message says what failed and what to do."""


class GitHubPermissionError(GitHubError):
    """403: the token may not do this (typically a read-only token on a fork's pull request)."""


class GitHubNotFound(GitHubError):
    """404: the repository, pull request or comment does not exist or the token cannot see it."""


class GitHubUnavailable(GitHubError):
    """5xx answers or connection errors on every attempt."""


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


@dataclass(frozen=True)
class Comment:
    id: int
    author_login: str
    body: str
    html_url: str


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


def _github_message(exc: GithubException) -> str:
    data = exc.data
    if isinstance(data, dict):
        message = data.get("message")
        if isinstance(message, str) and message:
            return message[:200]
    return ""


class GitHubClient:
    """A small client for one repository. Use it as a context manager, or call `close()`."""

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
        self.repository = repository
        self.base_url = base_url.rstrip("/")
        self._retries = retries
        self._backoff = backoff
        self._sleep = sleep
        self._login: str | None = None
        # The token lives only inside PyGithub's requester; this object never stores or shows it.
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
            # Lazy objects: no request until an attribute is read, so each call below is one retried unit.
            lazy=True,
        )
        self._repo = self._github.get_repo(repository)

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
        def fetch() -> PullRequest:
            pull = self._repo.get_pull(number).complete()
            base_repo = pull.base.repo.full_name if pull.base.repo is not None else self.repository
            head_repo = pull.head.repo.full_name if pull.head.repo is not None else None
            return PullRequest(
                number=pull.number,
                title=pull.title or "",
                base_sha=pull.base.sha,
                head_sha=pull.head.sha,
                base_ref=pull.base.ref,
                head_ref=pull.head.ref,
                head_repo_full_name=head_repo,
                # A deleted fork (head repo None) is still a fork: we cannot push to it or trust it.
                is_fork=head_repo is None or head_repo.casefold() != base_repo.casefold(),
                author_login=pull.user.login if pull.user is not None else "",
            )

        return self._call(f"read pull request #{number} of {self.repository}", fetch)

    def changed_files(self, number: int) -> list[ChangedFile]:
        """Every file the pull request changes, all pages (GitHub lists at most 3000)."""

        def fetch() -> list[ChangedFile]:
            return [
                ChangedFile(
                    filename=f.filename,
                    status=f.status,
                    previous_filename=f.previous_filename or None,
                    additions=f.additions,
                    deletions=f.deletions,
                )
                for f in self._repo.get_pull(number).get_files()
            ]

        return self._call(f"list the files of pull request #{number} of {self.repository}", fetch)

    def authenticated_login(self) -> str | None:
        """The token's login, or None when GitHub refuses GET /user (as it does for a workflow's GITHUB_TOKEN)."""
        try:
            return self._call("read the authenticated user", lambda: str(self._github.get_user().login))
        except GitHubPermissionError:
            return None

    def bot_login(self) -> str:
        """The login our comments are posted as; `github-actions[bot]` when the token cannot say."""
        if self._login is None:
            self._login = self.authenticated_login() or ACTIONS_BOT_LOGIN
        return self._login

    def find_comment(self, number: int, marker: str, author: str) -> Comment | None:
        """The most recent comment by `author` whose body holds `marker`; comments by others are ignored."""
        found = self._find(number, marker, author)
        return None if found is None else _to_comment(found)

    # -- writing -------------------------------------------------------------------------------

    def upsert_comment(
        self, number: int, marker: str, body: str, author: str, only_if_changed: bool = True
    ) -> tuple[UpsertAction, Comment]:
        """Create our sticky comment, or edit it in place; never touches anyone else's comment."""
        body = with_marker(body, marker)
        existing = self._find(number, marker, author)
        if existing is None:
            # A 5xx on POST may still have created the comment; a retry then makes a second one,
            # which is harmless: the next run edits the most recent.
            created = self._call(
                f"create a comment on pull request #{number} of {self.repository}",
                lambda: self._issue(number).create_comment(body),
                write=True,
            )
            return "created", _to_comment(created)
        if only_if_changed and _same_body(existing.body or "", body):
            return "unchanged", _to_comment(existing)
        try:
            self._call(
                f"update comment {existing.id} on pull request #{number} of {self.repository}",
                lambda: existing.edit(body),
                write=True,
            )
        except GitHubNotFound:
            # Deleted between our listing and the edit: post a fresh one instead.
            created = self._call(
                f"create a comment on pull request #{number} of {self.repository}",
                lambda: self._issue(number).create_comment(body),
                write=True,
            )
            return "created", _to_comment(created)
        return "updated", _to_comment(existing)

    # -- internals -----------------------------------------------------------------------------

    def _issue(self, number: int) -> Issue:
        # Comments on a pull request live on its issue; the lazy Issue costs no request.
        return self._repo.get_issue(number)

    def _find(self, number: int, marker: str, author: str) -> IssueComment | None:
        def scan() -> IssueComment | None:
            # Every page: a busy pull request can have hundreds of comments.
            ours = [
                comment
                for comment in self._issue(number).get_comments()
                if marker in (comment.body or "")
                and _same_login(comment.user.login if comment.user is not None else "", author)
            ]
            # GitHub lists comments by ascending id; max() picks the most recent without relying on it.
            return max(ours, key=lambda comment: comment.id, default=None)

        return self._call(f"list the comments on pull request #{number} of {self.repository}", scan)

    def _call(self, what: str, fn: Callable[[], T], *, write: bool = False) -> T:
        """Run `fn`, retrying 5xx answers and connection errors; map every failure to a GitHubError."""
        last = ""
        for attempt in range(1, self._retries + 1):
            try:
                return fn()
            except GithubException as exc:
                if exc.status < 500:
                    raise self._client_error(what, exc, write) from exc
                last = f"HTTP {exc.status}"
            except requests.RequestException as exc:
                # Only the class name: the text of a connection error is noisy and says nothing more.
                last = type(exc).__name__
            if attempt < self._retries:
                self._sleep(self._backoff * 2 ** (attempt - 1))
        raise GitHubUnavailable(
            f"GitHub did not answer properly when trying to {what}: {last} on all {self._retries} attempts "
            f"({self.base_url}). Try again later; https://www.githubstatus.com shows outages."
        )

    def _client_error(self, what: str, exc: GithubException, write: bool) -> GitHubError:
        status = exc.status
        said = _github_message(exc)
        detail = f"{status}: {said}" if said else str(status)
        if status == 401:
            return GitHubError(f"Could not {what} ({detail}). {BAD_CREDENTIALS_HINT}")
        if status == 429 or isinstance(exc, RateLimitExceededException):
            return GitHubError(f"Could not {what} ({detail}). {RATE_LIMIT_HINT}")
        if status == 403:
            hint = FORK_RECIPE_HINT if write else READ_PERMISSION_HINT
            return GitHubPermissionError(f"Could not {what} ({detail}). {hint}")
        if status == 404:
            return GitHubNotFound(f"Could not {what} ({detail}): not found. {NOT_FOUND_HINT}")
        return GitHubError(f"Could not {what} ({detail}).")


def _to_comment(comment: IssueComment) -> Comment:
    return Comment(
        id=comment.id,
        author_login=comment.user.login if comment.user is not None else "",
        body=comment.body or "",
        html_url=comment.html_url or "",
    )
