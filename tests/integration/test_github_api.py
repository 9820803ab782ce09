"""bot.github.api against the fake GitHub server (tests/support/fakegithub.py), with the real PyGithub over HTTP."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from bot.github.api import (
    ACTIONS_BOT_LOGIN,
    BAD_RESPONSE_HINT,
    FORK_RECIPE_HINT,
    ChangedFile,
    GitHubBadResponse,
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
    GitHubUnavailable,
    PullRequest,
    marker_for,
)

if TYPE_CHECKING:
    from support.fakegithub import FakeGitHub

REPO = "octo/specs"
TOKEN = "ghs_Sup3rSecretTokenValue0123456789abcdef"
MARKER = marker_for("default")
BOT = "dafny-spec-score-bot"  # the fake's GET /user login: who our comments are posted as
PULL_PATH = rf"/repos/{REPO}/pulls/7"
FILES_PATH = rf"/repos/{REPO}/pulls/7/files"
COMMENTS_PATH = rf"/repos/{REPO}/issues/7/comments"


@pytest.fixture
def server(github_server: FakeGitHub) -> FakeGitHub:
    github_server.token = TOKEN  # the server accepts only this token, so every passing call proves it was sent
    github_server.add_pull(REPO, 7, head_repo="alice/specs", user="alice", head_ref="fix-spec")
    return github_server


def client(server: FakeGitHub, sleeps: list[float] | None = None, **kwargs: Any) -> GitHubClient:
    recorded: list[float] = [] if sleeps is None else sleeps
    return GitHubClient(TOKEN, REPO, base_url=server.url, sleep=recorded.append, **kwargs)


def assert_token_hidden(exc: BaseException) -> None:
    """Neither the error nor anything a traceback would print with it (cause, context) shows the token."""
    texts = [str(exc), repr(exc)]
    if exc.__cause__ is not None:
        texts += [str(exc.__cause__), repr(exc.__cause__)]
    if exc.__context__ is not None and not exc.__suppress_context__:
        texts += [str(exc.__context__), repr(exc.__context__)]
    for text in texts:
        assert TOKEN not in text
        assert TOKEN[4:20] not in text


# -- marker --------------------------------------------------------------------------------------


def test_marker_is_a_hidden_html_comment_per_configuration() -> None:
    assert marker_for("default") == "<!-- dafny-spec-score:default -->"
    assert marker_for(" nightly.v2 ") == "<!-- dafny-spec-score:nightly.v2 -->"
    assert marker_for("a") != marker_for("b")


@pytest.mark.parametrize("bad", ["", "  ", "a-->b", "two words", "<x>"])
def test_marker_rejects_ids_that_could_break_the_comment(bad: str) -> None:
    with pytest.raises(ValueError, match="comment id"):
        marker_for(bad)


# -- reading -------------------------------------------------------------------------------------


def test_pull_request_info(server: FakeGitHub) -> None:
    server.add_pull(REPO, 8, head_sha="1" * 40, base_sha="2" * 40, user="bob", title="Same repo")
    server.add_pull(REPO, 9, head_repo=None)
    with client(server) as gh:
        assert gh.pull_request(7) == PullRequest(
            number=7,
            title="Change the spec",
            base_sha="b" * 40,
            head_sha="h" * 40,
            base_ref="main",
            head_ref="fix-spec",
            head_repo_full_name="alice/specs",
            is_fork=True,
            author_login="alice",
        )
        same = gh.pull_request(8)
        assert (same.is_fork, same.head_repo_full_name, same.head_sha, same.base_sha) == (
            False,
            REPO,
            "1" * 40,
            "2" * 40,
        )
        deleted_fork = gh.pull_request(9)
        assert (deleted_fork.is_fork, deleted_fork.head_repo_full_name) == (True, None)
    # Lazy PyGithub objects: one request per pull request, none for the repository.
    assert [r.path for r in server.requests] == [f"/repos/{REPO}/pulls/{n}" for n in (7, 8, 9)]


def test_changed_files_follow_link_pagination(server: FakeGitHub) -> None:
    pull = server.pulls[(REPO, 7)]
    pull.files = [
        {"filename": f"src/m{i}.dfy", "status": "modified", "additions": i, "deletions": 1} for i in range(6)
    ] + [{"filename": "src/new.dfy", "status": "renamed", "previous_filename": "src/old.dfy", "additions": 2}]
    server.page_size = 2
    with client(server) as gh:
        files = gh.changed_files(7)
    stub = "@@ -1 +1 @@"  # the fake's patch when a test gives none
    assert files[:2] == [
        ChangedFile("src/m0.dfy", "modified", None, 0, 1, stub),
        ChangedFile("src/m1.dfy", "modified", None, 1, 1, stub),
    ]
    assert files[-1] == ChangedFile("src/new.dfy", "renamed", "src/old.dfy", 2, 0, stub)
    assert [f.filename for f in files] == [f["filename"] for f in pull.files]
    pages = [r.query.get("page", "1") for r in server.requests_for("GET", FILES_PATH)]
    assert pages == ["1", "2", "3", "4"]


# -- the sticky comment --------------------------------------------------------------------------


def test_first_run_creates_the_comment(server: FakeGitHub) -> None:
    with client(server) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "## Spec score\n80%", gh.bot_login(), only_if_changed=True)
    assert action == "created"
    [stored] = server.comments_on(REPO, 7)
    assert comment.id == stored.id
    assert comment.author_login == stored.user == "dafny-spec-score-bot"
    assert comment.body == stored.body == f"{MARKER}\n## Spec score\n80%"
    assert comment.html_url == f"{server.url}/{REPO}/pull/7#issuecomment-{stored.id}"
    assert len(server.requests_for("POST", COMMENTS_PATH)) == 1


def test_second_run_updates_the_same_comment(server: FakeGitHub) -> None:
    with client(server) as gh:
        _, first = gh.upsert_comment(7, MARKER, "old score", gh.bot_login(), only_if_changed=True)
        action, second = gh.upsert_comment(7, MARKER, "new score", gh.bot_login(), only_if_changed=True)
    assert action == "updated"
    assert second.id == first.id
    assert second.body == f"{MARKER}\nnew score"
    [stored] = server.comments_on(REPO, 7)
    assert stored.body == f"{MARKER}\nnew score"
    [patch] = server.requests_for("PATCH")
    assert patch.path == f"/repos/{REPO}/issues/comments/{first.id}"
    assert patch.body == {"body": f"{MARKER}\nnew score"}


def test_same_body_is_left_unchanged_when_asked(server: FakeGitHub) -> None:
    with client(server) as gh:
        _, first = gh.upsert_comment(7, MARKER, "same", gh.bot_login(), only_if_changed=True)
        action, again = gh.upsert_comment(7, MARKER, "same", gh.bot_login(), only_if_changed=True)
        assert (action, again) == ("unchanged", first)
        assert server.requests_for("PATCH") == []
        # Without only_if_changed the comment is rewritten (GitHub then bumps updated_at).
        action, _ = gh.upsert_comment(7, MARKER, "same", gh.bot_login(), only_if_changed=False)
    assert action == "updated"
    assert len(server.requests_for("PATCH")) == 1


def test_someone_elses_comment_quoting_the_marker_is_left_alone(server: FakeGitHub) -> None:
    quoted = f"> {MARKER}\n> the bot said 80%, why?"
    other = server.add_comment(REPO, 7, "mallory", quoted)
    with client(server) as gh:
        assert gh.find_comment(7, MARKER, gh.bot_login()) is None
        action, ours = gh.upsert_comment(7, MARKER, "score", gh.bot_login(), only_if_changed=True)
    assert action == "created"
    assert ours.id != other.id
    assert other.body == quoted and other.user == "mallory"
    assert server.requests_for("PATCH") == []
    assert len(server.comments_on(REPO, 7)) == 2


def test_configurations_sharing_a_pull_request_keep_separate_comments(server: FakeGitHub) -> None:
    with client(server) as gh:
        _, a = gh.upsert_comment(7, marker_for("a"), "A", gh.bot_login(), only_if_changed=True)
        _, b = gh.upsert_comment(7, marker_for("b"), "B", gh.bot_login(), only_if_changed=True)
        action, a2 = gh.upsert_comment(7, marker_for("a"), "A2", gh.bot_login(), only_if_changed=True)
    assert (action, a2.id) == ("updated", a.id)
    assert a.id != b.id
    assert [c.body for c in server.comments_on(REPO, 7)] == [f"{marker_for('a')}\nA2", f"{marker_for('b')}\nB"]


def test_comment_on_page_three_is_found_and_the_newest_wins(server: FakeGitHub) -> None:
    bot = "dafny-spec-score-bot"
    for i in range(5):
        server.add_comment(REPO, 7, f"reviewer{i}", f"looks fine {i}")
    older = server.add_comment(REPO, 7, bot, f"{MARKER}\nold")
    newest = server.add_comment(REPO, 7, bot.upper(), f"{MARKER}\nnewer")  # logins are case-insensitive
    server.add_comment(REPO, 7, "reviewer9", "thanks")
    server.page_size = 3  # 8 comments: the bot's are on pages 2 and 3
    with client(server) as gh:
        found = gh.find_comment(7, MARKER, bot)
        assert found is not None and found.id == newest.id != older.id
        action, updated = gh.upsert_comment(7, MARKER, "latest", bot, only_if_changed=True)
    assert (action, updated.id) == ("updated", newest.id)
    assert older.body == f"{MARKER}\nold"
    pages = {r.query.get("page", "1") for r in server.requests_for("GET", COMMENTS_PATH)}
    assert pages == {"1", "2", "3"}


def test_comment_deleted_before_the_edit_is_posted_again(server: FakeGitHub) -> None:
    with client(server) as gh:
        gh.upsert_comment(7, MARKER, "first", gh.bot_login(), only_if_changed=True)
        server.fail("PATCH", rf"/repos/{REPO}/issues/comments/\d+", 404)
        action, comment = gh.upsert_comment(7, MARKER, "second", gh.bot_login(), only_if_changed=True)
    assert action == "created"
    assert comment.body == f"{MARKER}\nsecond"


# -- the bot's login -----------------------------------------------------------------------------


def test_authenticated_login(server: FakeGitHub) -> None:
    server.login = "Some-User"
    with client(server) as gh:
        assert gh.authenticated_login() == "Some-User"
        assert gh.bot_login() == "Some-User"


def test_actions_token_that_cannot_read_user_falls_back_to_the_actions_bot(server: FakeGitHub) -> None:
    server.login = None  # /user answers 403 like a workflow's GITHUB_TOKEN; comments come from github-actions[bot]
    with client(server) as gh:
        assert gh.authenticated_login() is None
        assert gh.bot_login() == ACTIONS_BOT_LOGIN == "github-actions[bot]"
        gh.upsert_comment(7, MARKER, "one", gh.bot_login(), only_if_changed=True)
        action, comment = gh.upsert_comment(7, MARKER, "two", gh.bot_login(), only_if_changed=True)
    assert (action, comment.author_login) == ("updated", "github-actions[bot]")
    assert len(server.requests_for("GET", "/user")) == 2  # authenticated_login(), then bot_login() once: cached


# -- failures ------------------------------------------------------------------------------------


def test_forbidden_post_explains_the_fork_recipe(server: FakeGitHub) -> None:
    server.fail("POST", COMMENTS_PATH, 403)
    sleeps: list[float] = []
    with client(server, sleeps) as gh, pytest.raises(GitHubPermissionError) as caught:
        gh.upsert_comment(7, MARKER, "score", gh.bot_login(), only_if_changed=True)
    message = str(caught.value)
    assert "create a comment on pull request #7 of octo/specs" in message
    assert "Resource not accessible by integration" in message
    assert FORK_RECIPE_HINT in message
    assert "two-workflow recipe in the README" in message and "workflow_run" in message
    assert_token_hidden(caught.value)
    assert sleeps == [] and len(server.requests_for("POST")) == 1  # 4xx is never retried


def test_missing_pull_request_is_named(server: FakeGitHub) -> None:
    with client(server) as gh, pytest.raises(GitHubNotFound) as caught:
        gh.pull_request(99)
    assert "pull request #99 of octo/specs" in str(caught.value)
    assert_token_hidden(caught.value)


def test_missing_repository_is_named(github_server: FakeGitHub) -> None:
    with GitHubClient(TOKEN, "octo/nowhere", base_url=github_server.url) as gh, pytest.raises(GitHubNotFound) as c:
        gh.changed_files(1)
    assert "octo/nowhere" in str(c.value) and "#1" in str(c.value)


def test_server_error_then_success_is_retried_with_backoff(server: FakeGitHub) -> None:
    server.pulls[(REPO, 7)].files = [{"filename": "a.dfy"}]
    server.fail("GET", FILES_PATH, 500, times=2)
    sleeps: list[float] = []
    with client(server, sleeps, backoff=0.5) as gh:
        assert [f.filename for f in gh.changed_files(7)] == ["a.dfy"]
    assert sleeps == [0.5, 1.0]
    assert len(server.requests_for("GET", FILES_PATH)) == 3


def test_server_error_forever_gives_up_after_the_attempts(server: FakeGitHub) -> None:
    server.fail("GET", FILES_PATH, 502, times=None)
    sleeps: list[float] = []
    with client(server, sleeps, retries=4) as gh, pytest.raises(GitHubUnavailable) as caught:
        gh.changed_files(7)
    assert sleeps == [1.0, 2.0, 4.0]
    assert len(server.requests_for("GET", FILES_PATH)) == 4
    assert "HTTP 502 on all 4 attempts" in str(caught.value)
    assert_token_hidden(caught.value)


def test_connection_refused_is_unavailable(server: FakeGitHub) -> None:
    sleeps: list[float] = []
    with client(server, sleeps, retries=2) as gh:
        server.close()
        with pytest.raises(GitHubUnavailable) as caught:
            gh.pull_request(7)
    assert sleeps == [1.0]
    assert "ConnectionError" in str(caught.value)
    assert_token_hidden(caught.value)


def test_rejected_token_is_a_plain_error_without_the_token(server: FakeGitHub) -> None:
    server.token = "another-token"
    with client(server) as gh, pytest.raises(GitHubError) as caught:
        gh.pull_request(7)
    assert type(caught.value) is GitHubError
    assert "401" in str(caught.value)
    assert_token_hidden(caught.value)


def test_rate_limit_is_not_mistaken_for_a_permission_problem(server: FakeGitHub) -> None:
    server.fail("GET", FILES_PATH, 403, message="API rate limit exceeded for installation ID 1.")
    with client(server) as gh, pytest.raises(GitHubError) as caught:
        gh.changed_files(7)
    assert not isinstance(caught.value, GitHubPermissionError)
    assert "rate limit" in str(caught.value)


def test_token_never_shown(server: FakeGitHub) -> None:
    with client(server) as gh:
        assert TOKEN not in repr(gh) and TOKEN not in str(vars(gh))
    with pytest.raises(ValueError) as caught:
        GitHubClient(TOKEN, "not-a-repository")
    assert_token_hidden(caught.value)


@pytest.mark.parametrize("status", [401, 403, 404, 422])
def test_token_echoed_by_the_server_is_not_repeated(server: FakeGitHub, status: int) -> None:
    # Some proxies quote the request's headers in their error message.
    server.fail("GET", FILES_PATH, status, message=f"Bad header 'Authorization: token {TOKEN}'")
    with client(server) as gh, pytest.raises(GitHubError) as caught:
        gh.changed_files(7)
    assert str(status) in str(caught.value) and "Bad header" in str(caught.value)
    assert_token_hidden(caught.value)


def test_token_in_an_unreadable_answer_is_not_repeated(server: FakeGitHub) -> None:
    server.mangle("GET", FILES_PATH, lambda _: f"<html>Authorization: token {TOKEN}</html>".encode())
    with client(server) as gh, pytest.raises(GitHubBadResponse) as caught:
        gh.changed_files(7)
    assert_token_hidden(caught.value)


@pytest.mark.parametrize("timeout", [0, -1])
def test_timeout_must_be_positive(timeout: int) -> None:
    with pytest.raises(ValueError, match="timeout"):
        GitHubClient(TOKEN, REPO, timeout=timeout)


# -- the fake itself -----------------------------------------------------------------------------


def test_fake_requires_authorization(server: FakeGitHub) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"{server.url}/repos/{REPO}/pulls/7", timeout=5)
    with caught.value:
        assert caught.value.code == 401


# -- writes whose answer is lost -----------------------------------------------------------------
# A POST or PATCH that timed out or got a 5xx may still have been done: the client looks for the
# comment before writing again. A slow answer outlasts a one-second client timeout.

LOST_ANSWERS = [
    pytest.param(502, 0.0, id="502 after storing"),
    pytest.param(None, 2.0, id="slower than the timeout"),
]


@pytest.mark.parametrize(("status", "delay"), LOST_ANSWERS)
def test_post_whose_answer_is_lost_is_not_sent_again(server: FakeGitHub, status: int | None, delay: float) -> None:
    server.lose_answer("POST", COMMENTS_PATH, status=status, delay=delay, times=None)
    sleeps: list[float] = []
    started = time.monotonic()
    with client(server, sleeps, timeout=1) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    assert time.monotonic() - started < 2.9  # one timeout, not one per attempt
    assert action == "created"
    [stored] = server.comments_on(REPO, 7)
    assert (comment.id, comment.body, comment.author_login) == (stored.id, f"{MARKER}\nscore", BOT)
    assert [r.method for r in server.requests] == ["GET", "POST", "GET"]  # look, write, look again
    assert sleeps == [1.0]


@pytest.mark.parametrize(("status", "delay"), LOST_ANSWERS)
def test_edit_whose_answer_is_lost_is_not_sent_again(server: FakeGitHub, status: int | None, delay: float) -> None:
    ours = server.add_comment(REPO, 7, BOT, f"{MARKER}\nold")
    server.lose_answer("PATCH", rf"/repos/{REPO}/issues/comments/{ours.id}", status=status, delay=delay, times=None)
    with client(server, timeout=1) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "new", BOT, only_if_changed=True)
    assert (action, comment.id, comment.body) == ("updated", ours.id, f"{MARKER}\nnew")
    assert [c.body for c in server.comments_on(REPO, 7)] == [f"{MARKER}\nnew"]
    assert [r.method for r in server.requests] == ["GET", "PATCH", "GET"]


def test_post_refused_by_a_5xx_is_sent_again_after_looking(server: FakeGitHub) -> None:
    server.fail("POST", COMMENTS_PATH, 502)  # refused: nothing stored
    sleeps: list[float] = []
    with client(server, sleeps, backoff=0.5) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    assert action == "created"
    [stored] = server.comments_on(REPO, 7)
    assert comment.id == stored.id
    assert [r.method for r in server.requests] == ["GET", "POST", "GET", "POST"]
    assert sleeps == [0.5]


def test_edit_refused_by_a_5xx_is_sent_again_after_looking(server: FakeGitHub) -> None:
    ours = server.add_comment(REPO, 7, BOT, f"{MARKER}\nold")
    server.fail("PATCH", rf"/repos/{REPO}/issues/comments/{ours.id}", 503)
    with client(server) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "new", BOT, only_if_changed=True)
    assert (action, comment.id) == ("updated", ours.id)
    assert [c.body for c in server.comments_on(REPO, 7)] == [f"{MARKER}\nnew"]
    assert [r.method for r in server.requests] == ["GET", "PATCH", "GET", "PATCH"]


def test_write_that_never_lands_gives_up_after_the_attempts(server: FakeGitHub) -> None:
    server.fail("POST", COMMENTS_PATH, 503, times=None)
    sleeps: list[float] = []
    with client(server, sleeps, retries=2) as gh, pytest.raises(GitHubUnavailable) as caught:
        gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    assert len(server.requests_for("POST")) == 2
    assert server.comments_on(REPO, 7) == []
    message = str(caught.value)
    assert "create a comment on pull request #7 of octo/specs" in message
    assert "HTTP 503 on all 2 attempts" in message
    assert_token_hidden(caught.value)


def test_write_is_not_repeated_when_the_check_cannot_be_made(server: FakeGitHub) -> None:
    # The answer to the POST never comes and GitHub goes away: without a look, no second POST.
    server.lose_answer("POST", COMMENTS_PATH, status=None, delay=5.0)

    def close_once_posted() -> None:
        while not server.requests_for("POST"):
            time.sleep(0.01)
        server.close()

    closer = threading.Thread(target=close_once_posted, daemon=True)
    closer.start()
    with client(server, timeout=3) as gh, pytest.raises(GitHubUnavailable) as caught:
        gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    closer.join(timeout=5)
    assert len(server.requests_for("POST")) == 1
    message = str(caught.value)
    assert "create a comment on pull request #7 of octo/specs" in message
    assert "may have been posted" in message
    assert_token_hidden(caught.value)


def test_write_answered_with_an_unreadable_body_is_checked_not_repeated(server: FakeGitHub) -> None:
    server.mangle("POST", COMMENTS_PATH, lambda _: b"<html><body>Bad gateway</body></html>")
    with client(server) as gh:
        action, comment = gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    [stored] = server.comments_on(REPO, 7)
    assert (action, comment.id, comment.body) == ("created", stored.id, f"{MARKER}\nscore")
    assert len(server.requests_for("POST")) == 1


# -- answers GitHub does not document ------------------------------------------------------------
# Every public method turns them into GitHubBadResponse naming the request; reads are not retried.

CALLS: dict[str, tuple[str, Callable[[GitHubClient], object], str]] = {
    "pull_request": (PULL_PATH, lambda gh: gh.pull_request(7), "read pull request #7 of octo/specs"),
    "changed_files": (FILES_PATH, lambda gh: gh.changed_files(7), "list the files of pull request #7 of octo/specs"),
    "authenticated_login": ("/user", lambda gh: gh.authenticated_login(), "read the authenticated user"),
    "bot_login": ("/user", lambda gh: gh.bot_login(), "read the authenticated user"),
    "find_comment": (
        COMMENTS_PATH,
        lambda gh: gh.find_comment(7, MARKER, BOT),
        "list the comments on pull request #7 of octo/specs",
    ),
    "upsert_comment": (
        COMMENTS_PATH,
        lambda gh: gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True),
        "list the comments on pull request #7 of octo/specs",
    ),
}
BAD_ANSWERS: dict[str, Callable[[Any], Any]] = {
    "an HTML page": lambda _: b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    "truncated JSON": lambda _: b'[{"id": 1, "body": "<!-- dafny-spec-',
    "an empty body": lambda _: b"",
    "null": lambda _: None,
    "a string": lambda _: "OK",
    "the wrong container": lambda data: {"items": data} if isinstance(data, list) else [data],
}


@pytest.mark.parametrize("answer", list(BAD_ANSWERS))
@pytest.mark.parametrize("call", list(CALLS))
def test_unreadable_answers_are_a_github_error(server: FakeGitHub, call: str, answer: str) -> None:
    path, fn, what = CALLS[call]
    server.pulls[(REPO, 7)].files = [{"filename": "a.dfy"}]
    server.add_comment(REPO, 7, BOT, f"{MARKER}\nscore")
    server.mangle("GET", path, BAD_ANSWERS[answer])
    sleeps: list[float] = []
    with client(server, sleeps) as gh, pytest.raises(GitHubBadResponse) as caught:
        fn(gh)
    message = str(caught.value)
    assert f"Could not {what}" in message
    assert BAD_RESPONSE_HINT in message
    assert_token_hidden(caught.value)
    assert len(server.requests_for("GET", path)) == 1 and sleeps == []  # a bad shape is not retried
    assert server.requests_for("POST") == [] and server.requests_for("PATCH") == []


def _without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda pull: {**pull, "base": None}, id="base is null"),
        pytest.param(lambda pull: _without(pull, "head"), id="no head"),
        pytest.param(lambda pull: {**pull, "head": {**pull["head"], "sha": 7}}, id="sha is a number"),
        pytest.param(lambda pull: {**pull, "head": {**pull["head"], "repo": "alice/specs"}}, id="repo is a string"),
        pytest.param(lambda pull: {**pull, "head": {**pull["head"], "repo": {}}}, id="repo has no name"),
        pytest.param(lambda pull: {**pull, "number": "7"}, id="number is a string"),
        pytest.param(lambda pull: {**pull, "number": True}, id="number is a boolean"),
    ],
)
def test_pull_request_of_the_wrong_shape(server: FakeGitHub, transform: Callable[[Any], Any]) -> None:
    server.mangle("GET", PULL_PATH, transform)
    with client(server) as gh, pytest.raises(GitHubBadResponse) as caught:
        gh.pull_request(7)
    assert "Could not read pull request #7 of octo/specs" in str(caught.value)
    assert_token_hidden(caught.value)


def test_pull_request_without_author_or_title_is_read(server: FakeGitHub) -> None:
    # Nullable in GitHub's schema: a deleted author, an empty title.
    server.mangle("GET", PULL_PATH, lambda pull: {**pull, "user": None, "title": None})
    with client(server) as gh:
        pull = gh.pull_request(7)
    assert (pull.author_login, pull.title, pull.head_sha) == ("", "", "h" * 40)


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda files: [*files, None], id="null item"),
        pytest.param(lambda files: [*files, "b.dfy"], id="string item"),
        pytest.param(lambda files: [{**files[0], "additions": "3"}], id="additions is a string"),
        pytest.param(lambda files: [_without(files[0], "filename")], id="no filename"),
        pytest.param(lambda files: [{**files[0], "previous_filename": 3}], id="previous name is a number"),
    ],
)
def test_changed_files_of_the_wrong_shape(server: FakeGitHub, transform: Callable[[Any], Any]) -> None:
    server.pulls[(REPO, 7)].files = [{"filename": "a.dfy", "additions": 1}]
    server.mangle("GET", FILES_PATH, transform)
    with client(server) as gh, pytest.raises(GitHubBadResponse) as caught:
        gh.changed_files(7)
    assert "Could not list the files of pull request #7 of octo/specs" in str(caught.value)


def test_comments_without_a_readable_author_or_body_are_skipped(server: FakeGitHub) -> None:
    ghost = server.add_comment(REPO, 7, None, f"{MARKER}\nquoted by an account since deleted")
    no_user = server.add_comment(REPO, 7, BOT, f"{MARKER}\nno user")
    no_login = server.add_comment(REPO, 7, BOT, f"{MARKER}\nuser without a login")
    null_body = server.add_comment(REPO, 7, BOT, "body is null")
    ours = server.add_comment(REPO, 7, BOT, f"{MARKER}\nscore")
    after = server.add_comment(REPO, 7, "carol", "thanks")

    def damage(page: list[dict[str, Any]]) -> list[dict[str, Any]]:
        changed = {
            no_user.id: lambda c: _without(c, "user"),
            no_login.id: lambda c: {**c, "user": {"id": 1}},
            null_body.id: lambda c: {**c, "body": None},
        }
        return [changed.get(c["id"], lambda c: c)(c) for c in page]

    server.mangle("GET", COMMENTS_PATH, damage, times=None)
    with client(server) as gh:
        found = gh.find_comment(7, MARKER, BOT)
        assert found is not None and found.id == ours.id
        action, comment = gh.upsert_comment(7, MARKER, "new score", BOT, only_if_changed=True)
    assert (action, comment.id) == ("updated", ours.id)
    assert ghost.body == f"{MARKER}\nquoted by an account since deleted" and ghost.user is None
    assert after.body == "thanks"
    # Read from the listing alone: no request for a single comment or user.
    assert {r.path for r in server.requests_for("GET")} == {f"/repos/{REPO}/issues/7/comments"}


def test_comment_by_a_deleted_account_quoting_the_marker_is_left_alone(server: FakeGitHub) -> None:
    ghost = server.add_comment(REPO, 7, None, f"> {MARKER}\n> why?")
    with client(server) as gh:
        assert gh.find_comment(7, MARKER, BOT) is None
        action, ours = gh.upsert_comment(7, MARKER, "score", BOT, only_if_changed=True)
    assert action == "created" and ours.id != ghost.id
    assert ghost.body == f"> {MARKER}\n> why?"


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda page: [*page, "a comment"], id="string item"),
        pytest.param(lambda page: [*page, None], id="null item"),
        pytest.param(lambda page: [{**c, "id": str(c["id"])} for c in page], id="our comment's id is a string"),
        pytest.param(lambda page: [_without(c, "id") for c in page], id="our comment has no id"),
    ],
)
def test_comment_list_of_the_wrong_shape(server: FakeGitHub, transform: Callable[[Any], Any]) -> None:
    server.add_comment(REPO, 7, BOT, f"{MARKER}\nscore")
    server.mangle("GET", COMMENTS_PATH, transform, times=None)
    with client(server) as gh, pytest.raises(GitHubBadResponse) as caught:
        gh.upsert_comment(7, MARKER, "new", BOT, only_if_changed=True)
    assert "Could not list the comments on pull request #7 of octo/specs" in str(caught.value)
    assert server.requests_for("POST") == [] and server.requests_for("PATCH") == []
    assert_token_hidden(caught.value)


def test_user_of_the_wrong_shape(server: FakeGitHub) -> None:
    server.mangle("GET", "/user", lambda user: {**user, "login": None})
    with client(server) as gh, pytest.raises(GitHubBadResponse) as caught:
        gh.bot_login()
    assert "Could not read the authenticated user" in str(caught.value)
