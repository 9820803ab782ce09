"""The nightly audit's tracking issue: its body (bot.github.tracking, pure) and the GitHub client's issue
methods against the fake GitHub server (tests/support/fakegithub.py), with the real PyGithub over HTTP."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from bot.audit.changes import changes_md, compare
from bot.audit.model import Label, TaskResult, Verdict
from bot.audit.report import results_json
from bot.github.api import (
    ISSUES_PERMISSION_HINT,
    GitHubClient,
    GitHubPermissionError,
    marker_for,
)
from bot.github.tracking import (
    DISAGREEMENTS_HEADING,
    HISTOGRAM_HEADING,
    ISSUE_BODY_LIMIT,
    LAST_RUN_TAG,
    NO_BASELINE,
    NO_DISAGREEMENT,
    LastRun,
    TrackingInput,
    blocks,
    edited_body,
    issue_body,
    last_run_line,
    size,
    update_last_run,
)
from bot.symbolic.results import CaseResult, CaseStatus, MutantResult, MutantStatus, method_score

if TYPE_CHECKING:
    from support.fakegithub import FakeGitHub

MARKER = marker_for("audit.default")
RUN = LastRun("2024-05-02 03:17 UTC", "https://github.example/o/r/actions/runs/42", "42", "abc123def4567890")
REPO = "octo/specs"
TOKEN = "ghs_TrackingIssueTokenValue0123456789"
BOT = "dafny-spec-score-bot"  # the fake's GET /user login
TITLE = "Nightly spec audit"


# -- results -------------------------------------------------------------------------------------


def case(status: CaseStatus, *mutants: MutantStatus, text: str = "var r := F(1);\nexpect r == 2;",
         name: str = "c1") -> CaseResult:
    return CaseResult(name, 3, "x = 1", "r = 2", text, "test/t.dfy", status, "postcondition might not hold",
                      tuple(MutantResult(f"{i + 3}", "off by one", m) for i, m in enumerate(mutants)))


def task(task_id: str, label: Label, verdict: Verdict, method: str = "F", text: str = "") -> TaskResult:
    """A task scored to `verdict`: refuted cases for wrong, a survivor for weak, all killed for strong."""
    if verdict is Verdict.WRONG:
        cases = (case(CaseStatus.REFUTED, text=text or "var r := F(1);\nexpect r == 2;"),)
    elif verdict is Verdict.WEAK:
        cases = (case(CaseStatus.VERIFIED, MutantStatus.SURVIVED, MutantStatus.KILLED),)
    elif verdict is Verdict.STRONG:
        cases = (case(CaseStatus.VERIFIED, MutantStatus.KILLED),)
    else:
        return TaskResult(task_id, f"src/task_id_{task_id}.dfy", method, label, (), verdict, "spec does not parse",
                          None, 0.0, False)
    score = method_score(f"src/task_id_{task_id}.dfy", method, 1, cases)
    return TaskResult(task_id, f"src/task_id_{task_id}.dfy", method, label, (), verdict, "", score, 0.0, False)


NIGHT_1 = [
    task("2", Label.STRONG, Verdict.WEAK),
    task("105", Label.STRONG, Verdict.STRONG),
    task("234", Label.STRONG, Verdict.WRONG),
    task("432", Label.WRONG, Verdict.INCONCLUSIVE),
]
NIGHT_2 = [NIGHT_1[0], NIGHT_1[1], task("234", Label.STRONG, Verdict.STRONG), NIGHT_1[3]]
SETTINGS: dict[str, object] = {"seed": 0, "mutants": 5}


def changes_lines(before: list[TaskResult], after: list[TaskResult]) -> list[str]:
    old = json.loads(results_json(before, SETTINGS))
    new = json.loads(results_json(after, SETTINGS))
    return changes_md(compare(old, new, "baseline/results.json"), heading=False)


def body_of(results: list[TaskResult], changes: list[str] | None, changed: bool = True, **kw: Any) -> str:
    return issue_body(TrackingInput(MARKER, kw.pop("dataset", "dataset"), results, kw.pop("run", RUN), changes,
                                    changed), **kw)


def fences_balanced(text: str) -> bool:
    """Every code fence is closed (CommonMark: by a run of the same character at least as long, alone)."""
    opened = ""
    for line in text.splitlines():
        run = re.match(r" {0,3}(`{3,}|~{3,})(.*)$", line)
        if run is None:
            continue
        if not opened:
            opened = run.group(1)
        elif run.group(1)[0] == opened[0] and len(run.group(1)) >= len(opened) and not run.group(2).strip():
            opened = ""
    return not opened


# -- the body ------------------------------------------------------------------------------------


def test_the_body_has_its_sections_in_order() -> None:
    body = body_of(NIGHT_2, changes_lines(NIGHT_1, NIGHT_2))
    lines = body.splitlines()
    assert lines[0] == MARKER
    order = [
        "**Dafny Spec Score**: nightly audit of <code>dataset</code>.",
        "**Coverage:** 3 of 4 tasks evaluated (75%). **Agreement:** 2 of 3 labelled tasks (67%). "
        "**Verdicts:** 2 strong, 1 weak, 0 wrong, 1 inconclusive.",
        f"{LAST_RUN_TAG}**Last run:** 2024-05-02 03:17 UTC, [run 42](https://github.example/o/r/actions/runs/42), "
        "commit <code>abc123def456</code>: changes since the baseline below.",
        "## Changes since the baseline (run of 2024-05-02 03:17 UTC)",
        "| 234 | strong | wrong | strong |",  # the verdict changed
        HISTOGRAM_HEADING,
        "```mermaid",
        DISAGREEMENTS_HEADING,
        "### Task 2: <code>F</code> (labelled strong, scored weak)",
        "---",
    ]
    at = [lines.index(line) for line in order]
    assert at == sorted(at), at
    assert "Task 234" not in body  # agrees now
    assert "full report" in lines[-1] and "[run 42]" in lines[-1]
    assert "Trimmed" not in body and fences_balanced(body)


def test_without_a_baseline_and_without_changes() -> None:
    first = body_of(NIGHT_1, None)
    assert NO_BASELINE in first and "no baseline to compare with." in first
    assert "### Task 234: <code>F</code> (labelled strong, scored wrong)" in first
    quiet = body_of(NIGHT_1, changes_lines(NIGHT_1, NIGHT_1), changed=False)
    assert "No changes since the baseline (4 tasks compared)." in quiet
    assert ": no changes since the baseline." in quiet
    agreeing = body_of([NIGHT_1[1]], None)
    assert NO_DISAGREEMENT in agreeing and "1 of 1 labelled tasks (100%)" in agreeing


def test_dataset_text_is_escaped() -> None:
    hostile = "x <img src=y onerror=alert(1)> @mallory ```"
    text = f"var r := F(1);\n```\n{LAST_RUN_TAG} {MARKER}\n<script>alert(1)</script>"
    results = [task("9<b>", Label.STRONG, Verdict.WRONG, method="M@eve|x", text=text)]
    body = body_of(results, None, dataset=hostile,
                   run=LastRun("<b>today</b>", "https://x.example/a (b)", "1)", "`sha`"))
    outside = re.sub(r"^(`{3,})dafny\n.*?^\1$", "", body, flags=re.MULTILINE | re.DOTALL)  # drop the fences
    assert "<img" not in outside and "<b>" not in outside and "<script>" not in outside
    assert "@mallory" not in body and "@eve" not in body  # no pings
    assert "(https://x.example/a%20%28b%29)" in body  # the link cannot be closed early
    assert fences_balanced(body)
    # the case text quoting the tags sits in a fence after the real last-run line, which alone is replaced
    updated = update_last_run(body, f"{LAST_RUN_TAG}new line")
    assert updated is not None
    assert updated.count(f"{LAST_RUN_TAG}new line") == 1 and f"{LAST_RUN_TAG} {MARKER}" in updated
    assert updated.index(f"{LAST_RUN_TAG}new line") < updated.index("## Changes")


def test_a_huge_report_is_trimmed_whole_blocks_at_a_time() -> None:
    long_text = "var r := F(1);\n" + "expect r == 2; // " + "x" * 300 + "\n"
    results = [task(str(i), Label.STRONG, Verdict.WRONG, text=long_text * 3) for i in range(1, 3001)]
    changes = ["Since the baseline: a lot.", "", "**Verdicts changed**", "", "| Task | Label | Baseline | Now |",
               "|---|---|---|---|", *[f"| {i} | strong | weak | wrong |" for i in range(1, 6001)], "",
               "```text", *["inside a fence"] * 5, "```", ""]
    body = body_of(results, changes)
    assert size(body) <= ISSUE_BODY_LIMIT and len(body) <= ISSUE_BODY_LIMIT
    assert fences_balanced(body)
    shown = re.findall(r"^### Task (\d+):", body, re.MULTILINE)
    note = re.search(r"_Trimmed to fit GitHub's limit of 65,536 characters for an issue: (.*) not shown here\.",
                     body)
    assert note is not None, body[-2000:]
    assert f"{3000 - len(shown)} of 3000 disagreements" in note.group(1)
    assert "part of the changes" in note.group(1)
    assert shown == [str(i) for i in range(1, len(shown) + 1)]  # the first ones, in order
    # the changes come first and are cut between rows, never in a row
    rows = re.findall(r"^\| (\d+) \| strong \| weak \| wrong \|$", body, re.MULTILINE)
    assert rows and rows == [str(i) for i in range(1, len(rows) + 1)]
    assert body.index("| Task | Label | Baseline | Now |") < body.index("| 1 | strong |")
    assert "step summary" in body.splitlines()[-1]
    # a tiny limit keeps the head, the last-run line and the note
    small = body_of(results, changes, limit=6000)
    assert size(small) <= 6000 and LAST_RUN_TAG in small and "Trimmed" in small and fences_balanced(small)


def test_update_last_run_rewrites_that_line_only() -> None:
    body = body_of(NIGHT_2, changes_lines(NIGHT_1, NIGHT_2))
    new = last_run_line(TrackingInput(MARKER, "dataset", NIGHT_2, LastRun("2024-05-03 03:17 UTC", "", "", "f00"),
                                      [], False))
    updated = update_last_run(body, new)
    assert updated is not None
    old_lines, new_lines = body.splitlines(), updated.splitlines()
    differ = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert len(differ) == 1 and new_lines[differ[0]] == new
    assert new.endswith("2024-05-03 03:17 UTC, commit <code>f00</code>: no changes since the baseline.")
    assert update_last_run(body.replace("\n", "\r\n"), new) == updated  # GitHub may hand back CRLF
    assert update_last_run("someone rewrote the issue", new) is None


def test_edited_body_keeps_the_old_body_only_on_a_night_without_changes() -> None:
    night_3 = LastRun("2024-05-03 03:17 UTC", "", "", "f00")
    same = changes_lines(NIGHT_2, NIGHT_2)
    quiet = TrackingInput(MARKER, "dataset", NIGHT_2, night_3, same, False)
    with_baseline = body_of(NIGHT_2, changes_lines(NIGHT_1, NIGHT_2))
    assert edited_body(quiet, with_baseline) == update_last_run(with_baseline, last_run_line(quiet))
    # the old body was written without a baseline: it would still say so, so it is written anew
    without = body_of(NIGHT_2, None)
    assert edited_body(quiet, without) == issue_body(quiet)
    # a night with changes, or without a baseline, writes the full body
    loud = TrackingInput(MARKER, "dataset", NIGHT_2, night_3, changes_lines(NIGHT_1, NIGHT_2), True)
    assert edited_body(loud, with_baseline) == issue_body(loud)
    first = TrackingInput(MARKER, "dataset", NIGHT_2, night_3, None, False)
    assert edited_body(first, with_baseline) == issue_body(first)
    assert edited_body(quiet, "edited by hand") == issue_body(quiet)


def test_blocks_never_split_a_fence_a_table_head_or_a_heading() -> None:
    lines = ["#### Head", "", "para", "", "```dafny", "a", "", "b", "```", "", "**Title**", "",
             "| A | B |", "|---|---|", "| 1 | 2 |", "| 3 | 4 |", "", "<details><summary>s</summary>", "", "x",
             "</details>", "tail"]
    assert blocks(lines) == [
        ["#### Head", "", "para", ""],
        ["```dafny", "a", "", "b", "```", ""],
        ["**Title**", "", "| A | B |", "|---|---|", "| 1 | 2 |"],
        ["| 3 | 4 |", ""],
        ["<details><summary>s</summary>", "", "x", "</details>"],
        ["tail"],
    ]


# -- the issue on GitHub -------------------------------------------------------------------------


@pytest.fixture
def server(github_server: FakeGitHub) -> FakeGitHub:
    github_server.token = TOKEN
    github_server.add_repo(REPO)
    return github_server


def client(server: FakeGitHub, **kwargs: Any) -> GitHubClient:
    slept: list[float] = []
    return GitHubClient(TOKEN, REPO, base_url=server.url, sleep=slept.append, **kwargs)


def test_the_issue_is_created_once_then_edited_in_place(server: FakeGitHub) -> None:
    with client(server) as gh:
        action, first = gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login(), ("audit", "nightly"))
        assert action == "created"
        action, second = gh.upsert_issue(TITLE, MARKER, "night 2", gh.bot_login(), ("audit", "nightly"))
        assert (action, second.number) == ("updated", first.number)
        action, third = gh.upsert_issue(TITLE, MARKER, "night 2", gh.bot_login())
        assert (action, third) == ("unchanged", second)
        # a new title is written too
        action, renamed = gh.upsert_issue("Audit of v2", MARKER, "night 2", gh.bot_login())
        assert (action, renamed.title) == ("updated", "Audit of v2")
    [stored] = server.issues_in(REPO)
    assert (stored.user, stored.body, stored.labels) == (BOT, f"{MARKER}\nnight 2", ["audit", "nightly"])
    assert first.html_url == f"{server.url}/{REPO}/issues/{stored.number}"
    assert len(server.requests_for("POST")) == 1 and len(server.requests_for("PATCH")) == 2
    # labels are set at creation only: an edit leaves a maintainer's labels alone
    assert all("labels" not in r.body for r in server.requests_for("PATCH"))


def test_someone_elses_issue_quoting_the_marker_is_untouched(server: FakeGitHub) -> None:
    quoted = f"The bot's issue says:\n> {MARKER}\n> 3 of 4 evaluated. Why?"
    theirs = server.add_issue(REPO, "mallory", quoted, title=TITLE)
    gone = server.add_issue(REPO, None, f"{MARKER}\nby a deleted account", title=TITLE)
    with client(server) as gh:
        assert gh.find_issue(MARKER, gh.bot_login()) is None
        action, ours = gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login())
        assert action == "created" and ours.number not in (theirs.number, gone.number)
        action, again = gh.upsert_issue(TITLE, MARKER, "night 2", gh.bot_login())
        assert (action, again.number) == ("updated", ours.number)
    assert theirs.body == quoted and theirs.user == "mallory"
    assert gone.body == f"{MARKER}\nby a deleted account"
    assert [r.path for r in server.requests_for("PATCH")] == [f"/repos/{REPO}/issues/{ours.number}"]


def test_pull_requests_in_the_issue_list_are_not_issues(server: FakeGitHub) -> None:
    server.add_pull(REPO, 1, user=BOT)

    def with_marker(items: Any) -> Any:  # the bot's pull request, its body quoting the marker
        for item in items:
            if "pull_request" in item:
                item["body"] = f"{MARKER}\nnot an issue"
        return items

    server.mangle("GET", rf"/repos/{REPO}/issues", with_marker, times=None)
    with client(server) as gh:
        assert gh.find_issue(MARKER, gh.bot_login()) is None
        action, issue = gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login())
    assert action == "created" and issue.number == 2
    assert server.requests_for("PATCH") == []


def test_the_issue_is_found_on_a_later_page(server: FakeGitHub) -> None:
    ours = server.add_issue(REPO, BOT, f"{MARKER}\nnight 1", title=TITLE)
    for i in range(6):
        server.add_issue(REPO, BOT, f"another report {i}")  # newer: listed first
    server.page_size = 2
    with client(server) as gh:
        found = gh.find_issue(MARKER, gh.bot_login())
        assert found is not None and found.number == ours.number
    lists = server.requests_for("GET", rf"/repos/{REPO}/issues")
    assert [r.query.get("page", "1") for r in lists] == ["1", "2", "3", "4"]
    assert all(r.query["state"] == "open" and r.query["creator"] == BOT for r in lists)  # kept on every page


def test_a_closed_issue_is_retired_not_reopened(server: FakeGitHub) -> None:
    closed = server.add_issue(REPO, BOT, f"{MARKER}\nlast month", title=TITLE, state="closed")
    with client(server) as gh:
        action, issue = gh.upsert_issue(TITLE, MARKER, "tonight", gh.bot_login())
    assert action == "created" and issue.number != closed.number
    assert closed.state == "closed" and closed.body == f"{MARKER}\nlast month"


def test_an_empty_creator_listing_is_checked_against_the_full_one(server: FakeGitHub) -> None:
    ours = server.add_issue(REPO, BOT, f"{MARKER}\nnight 1", title=TITLE)
    # GitHub does not document `creator` for an app's `[bot]` login: say it found nothing
    server.mangle("GET", rf"/repos/{REPO}/issues", lambda items: [], times=1)
    with client(server) as gh:
        action, issue = gh.upsert_issue(TITLE, MARKER, "night 2", gh.bot_login())
    assert (action, issue.number) == ("updated", ours.number)
    assert ["creator" in r.query for r in server.requests_for("GET", rf"/repos/{REPO}/issues")] == [True, False]


def test_a_lost_answer_does_not_open_a_second_issue(server: FakeGitHub) -> None:
    server.lose_answer("POST", rf"/repos/{REPO}/issues", status=502)
    with client(server) as gh:
        action, issue = gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login(), ("audit",))
    assert action == "created"
    [stored] = server.issues_in(REPO)
    assert issue.number == stored.number and len(server.requests_for("POST")) == 1
    # and a lost edit is looked for, not repeated blindly
    server.lose_answer("PATCH", rf"/repos/{REPO}/issues/\d+", status=504)
    with client(server) as gh:
        action, edited = gh.upsert_issue(TITLE, MARKER, "night 2", gh.bot_login())
    assert (action, edited.number, edited.body) == ("updated", stored.number, f"{MARKER}\nnight 2")
    assert len(server.requests_for("PATCH")) == 1


def test_a_read_only_token_is_told_to_grant_issues_write(server: FakeGitHub) -> None:
    server.fail("POST", rf"/repos/{REPO}/issues", 403, times=None)
    with client(server) as gh, pytest.raises(GitHubPermissionError) as info:
        gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login())
    assert ISSUES_PERMISSION_HINT in str(info.value) and "issues: write" in str(info.value)
    assert TOKEN not in str(info.value)
    assert server.issues_in(REPO) == []


def test_edit_makes_the_body_from_the_existing_one(server: FakeGitHub) -> None:
    def edit(old: str) -> str:
        return old.replace("night 1", "night 1 (seen again)")

    with client(server) as gh:
        assert gh.upsert_issue(TITLE, MARKER, "night 1", gh.bot_login(), edit=edit)[0] == "created"  # no issue yet
        action, issue = gh.upsert_issue(TITLE, MARKER, "ignored", gh.bot_login(), edit=edit)
    assert (action, issue.body) == ("updated", f"{MARKER}\nnight 1 (seen again)")


def test_bodies_over_githubs_limit_and_empty_titles_are_refused(server: FakeGitHub) -> None:
    with client(server) as gh:
        with pytest.raises(ValueError, match="65536"):
            gh.upsert_issue(TITLE, MARKER, "x" * ISSUE_BODY_LIMIT, gh.bot_login())
        with pytest.raises(ValueError, match="title"):
            gh.upsert_issue("  ", MARKER, "x", gh.bot_login())
    assert server.requests_for("POST") == []
