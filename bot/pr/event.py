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
    try:
        base_repo = pr["base"]["repo"]["full_name"]
        head_repo = (pr["head"].get("repo") or {}).get("full_name", "")
        return PullRequestEvent(
            number=int(pr.get("number", payload.get("number"))),
            base_sha=str(pr["base"]["sha"]),
            head_sha=str(pr["head"]["sha"]),
            is_fork=bool(head_repo) and head_repo != base_repo,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise EventError(f"the {event_name or 'event'} payload lacks pull_request.{e}") from e
