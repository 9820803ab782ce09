"""Review comments through the client against the local GitHub: one review per run, edits, deletions, and
GitHub's 422 for a line outside the diff."""

from __future__ import annotations

import pytest

from bot.github.api import GitHubClient, GitHubError, GitHubPermissionError, NewReviewComment
from support.fakegithub import FakeGitHub

REPO = "owner/specs"
TOKEN = "ghs_review_token"
PATCH = "@@ -8,3 +8,4 @@ method M()\n   ensures a\n-  ensures b\n+  ensures c\n+  ensures d\n   {"


@pytest.fixture
def server(github_server: FakeGitHub) -> FakeGitHub:
    github_server.add_pull(REPO, 7, files=[{"filename": "s.dfy", "patch": PATCH}])
    return github_server


def client(server: FakeGitHub) -> GitHubClient:
    return GitHubClient(TOKEN, REPO, base_url=server.url, sleep=lambda _: None)


def test_one_review_holds_every_comment_and_they_are_listed_back(server: FakeGitHub) -> None:
    with client(server) as gh:
        review = gh.create_review(7, "h" * 40, "two findings", [
            NewReviewComment("s.dfy", 10, 9, "over two lines"), NewReviewComment("s.dfy", 8, None, "one line")],
            gh.bot_login())
        listed = gh.review_comments(7)
    assert review.id and len(server.reviews_on(REPO, 7)) == 1
    assert [(c.path, c.start_line, c.line, c.body) for c in listed] == [
        ("s.dfy", 9, 10, "over two lines"), ("s.dfy", None, 8, "one line")]
    assert {c.review_id for c in listed} == {review.id}
    sent = server.requests_for("POST", r".*/pulls/7/reviews")[0].body
    assert sent["event"] == "COMMENT" and sent["comments"][0]["side"] == "RIGHT"
    assert "start_line" not in sent["comments"][1]  # GitHub wants start_line before line, never equal


def test_a_line_outside_the_diff_is_refused_with_githubs_reason_and_nothing_is_created(server: FakeGitHub) -> None:
    with client(server) as gh, pytest.raises(GitHubError) as info:
        gh.create_review(7, "h" * 40, "x", [NewReviewComment("s.dfy", 10, None, "fine"),
                                            NewReviewComment("s.dfy", 30, None, "outside")], gh.bot_login())
    assert "422" in str(info.value) and "must be part of the diff" in str(info.value)
    assert server.reviews_on(REPO, 7) == [] and server.review_comments_on(REPO, 7) == []


def test_a_review_whose_answer_is_lost_is_not_created_twice(server: FakeGitHub) -> None:
    server.lose_answer("POST", r".*/pulls/7/reviews")
    with client(server) as gh:
        gh.create_review(7, "h" * 40, "x", [NewReviewComment("s.dfy", 10, None, "once")], gh.bot_login())
    assert len(server.reviews_on(REPO, 7)) == 1 and len(server.requests_for("POST", r".*/reviews")) == 1


def test_edit_and_delete_one_comment_and_a_gone_one_is_no_error(server: FakeGitHub) -> None:
    with client(server) as gh:
        gh.create_review(7, "h" * 40, "x", [NewReviewComment("s.dfy", 10, None, "first")], gh.bot_login())
        (c,) = gh.review_comments(7)
        assert gh.edit_review_comment(c.id, "second")
        assert [x.body for x in gh.review_comments(7)] == ["second"]
        server.lose_answer("DELETE", r".*/pulls/comments/\d+")  # carried out, answer lost: sent again
        assert gh.delete_review_comment(c.id) is False  # the second attempt finds it gone
        assert gh.review_comments(7) == []
        assert gh.edit_review_comment(c.id, "third") is False


def test_a_read_only_token_cannot_create_a_review(server: FakeGitHub) -> None:
    server.fail("POST", r".*/pulls/7/reviews", 403)
    with client(server) as gh, pytest.raises(GitHubPermissionError):
        gh.create_review(7, "h" * 40, "x", [NewReviewComment("s.dfy", 10, None, "first")], gh.bot_login())
