"""The pull request an Actions event is about. Pure code over the event payload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PullRequestEvent:
    number: int
    base_sha: str
    head_sha: str
    is_fork: bool


class EventError(ValueError):
    """The event payload is not one the pull-request mode can use; the message says why."""


def parse_event(event_name: str, payload: Any) -> PullRequestEvent | None:
    """The PR of a `pull_request`/`pull_request_target` event; None for other events."""
    if not isinstance(payload, dict):
        raise EventError("the event payload is not a JSON object")
    pr = payload.get("pull_request")
    if pr is None:
        return None
    what = event_name or "event"
    if not isinstance(pr, dict):
        raise EventError(f"the {what} payload's pull_request is not an object")
    base, head = pr.get("base"), pr.get("head")
    if not isinstance(base, dict) or not isinstance(head, dict):
        raise EventError(f"the {what} payload lacks pull_request.base or pull_request.head")
    base_sha, head_sha = base.get("sha"), head.get("sha")
    if not isinstance(base_sha, str) or not isinstance(head_sha, str) or not base_sha or not head_sha:
        raise EventError(f"the {what} payload lacks the base or head commit of the pull request")
    number = pr.get("number", payload.get("number"))
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise EventError(f"the {what} payload lacks the pull request's number")
    head_repo = _repo_name(head)  # "" when the fork was deleted
    return PullRequestEvent(number, base_sha, head_sha, bool(head_repo) and head_repo != _repo_name(base))


def _repo_name(side: dict[str, Any]) -> str:
    repo = side.get("repo")
    return str(repo.get("full_name", "")) if isinstance(repo, dict) else ""
