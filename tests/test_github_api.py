"""bot.github_api against the fake GitHub server (tests/fakegithub.py), with the real PyGithub over HTTP."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from bot.github_api import (
    ACTIONS_BOT_LOGIN,
    FORK_RECIPE_HINT,
    ChangedFile,
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
    GitHubUnavailable,
    PullRequest,
    marker_for,
)

if TYPE_CHECKING:
    from fakegithub import FakeGitHub  # loaded by path in conftest.py; only for the annotations

REPO = "octo/specs"
TOKEN = "ghs_Sup3rSecretTokenValue0123456789abcdef"
MARKER = marker_for("default")
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
    texts = [str(exc), repr(exc)]
    if exc.__cause__ is not None:
        texts += [str(exc.__cause__), repr(exc.__cause__)]
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
    assert files[:2] == [
        ChangedFile("src/m0.dfy", "modified", None, 0, 1),
        ChangedFile("src/m1.dfy", "modified", None, 1, 1),
    ]
    assert files[-1] == ChangedFile("src/new.dfy", "renamed", "src/old.dfy", 2, 0)
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


# -- the fake itself -----------------------------------------------------------------------------


def test_fake_requires_authorization(server: FakeGitHub) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"{server.url}/repos/{REPO}/pulls/7", timeout=5)
    with caught.value:
        assert caught.value.code == 401
