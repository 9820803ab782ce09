"""The Action's glue in process, without Dafny: `bot.github.action.run` for every mode and failure path.

The verifier is a fake backend (`FakeBackend`) put where `bot.runner.open_verifier` finds its backend,
so the real engine factory (`bot.github.action.make_engine`), the engine, the pipeline, the reports and the
GitHub client all run as in the Action; only the verifier's answers are scripted. PATH holds git alone:
any attempt to start `dafny` would fail. GitHub is the local fake (tests/support/fakegithub.py).

The fake decides each harness program by what it asks (its `Program.kind` and `goal`, recorded as the engine is
given the programs) and by a marker comment in the spec file, which reaches every program through the prelude:

- no marker (strong): the expected outputs are accepted, every mutant rejected, the outputs pinned;
- `// fake: weak`: every mutant and every other output accepted (completeness 0, not pinned);
- `// fake: wrong`: the expected outputs are rejected (correctness 0);
- `// fake: unknown`: the mutants and the pin check time out (completeness unknown);
- `// fake: timeout`: the cases time out (nothing decided);
- `// fake: half`: not pinned, the mutants killed or surviving by the parity of their names.

Every input of the Action (`bot.options.OPTIONS` with `Use.ACTION`) has a test here that sets it and
observes its effect (`test_every_action_input_has_a_case` fails for an input without one).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.config import INPUT_DEFAULTS, Config, ConfigError
from bot.github import action
from bot.github.action import COMMENT_ARTIFACT, EXIT_FAILED, EXIT_OK, EXIT_USAGE, NOT_A_PR, NOTHING_CHANGED
from bot.github.api import GitHubClient
from bot.options import AUDIT_TOLERANCE, input_env_name
from bot.signals import EXIT_INTERRUPTED, EXIT_TERMINATED
from bot.symbolic.gate import UNREAD_CASE
from bot.symbolic.rounds import CONJOINED_SECONDS, DESCRIPTIVE_SECONDS
from bot.verifier import VerifierNotFound
from support.inprocess import (
    ACTION_INPUTS,
    AUDIT_FIXTURE,
    MARKER,
    PR,
    REPO,
    STRONG,
    TOKEN,
    WEAK,
    Env,
    Fake,
    PullRequest,
    Ran,
    action_env,
    calls_of,
    comments,
    make_pr,
    methods,
    pr_event,
    pr_run,
    report,
    run_action,
    spec,
    write_files,
)
from support.sarif import assert_valid_sarif


def test_a_pr_weakening_a_spec_posts_one_comment_and_edits_it(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    ran, pr, env = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                          min_completeness="0.9")
    assert ran.code == EXIT_FAILED, ran.log
    assert fake.backend.calls, "the fake backend was not used"
    assert {"ca", "va", "mr", "ma", "pp"} <= fake.backend.kinds()
    (comment,) = comments(github_server)
    assert comment.body.startswith(MARKER)
    assert "Inc" in comment.body and "failed" in comment.body
    assert ran.outputs["passed"] == "false"
    assert ran.outputs["correctness"] == "1.0000" and ran.outputs["completeness"] == "0.0000"
    assert ran.outputs["regressions"] == "1"
    assert ran.outputs["report-json"] == "dafny-spec-score.json"
    assert ran.outputs["sarif-file"] == "dafny-spec-score.sarif"
    sarif = json.loads((pr.repo / "dafny-spec-score.sarif").read_text())
    assert_valid_sarif(sarif)
    (weak,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "spec/accepts-wrong-output"]
    assert weak["locations"][0]["physicalLocation"]["region"]["startLine"] == 3  # on the ensures
    assert "Dafny Spec Score" in ran.summary and MARKER not in ran.summary
    scored = methods(pr.repo)["specs/inc.dfy:Inc"]
    assert scored["completeness"] == 0.0 and scored["not_pinned"] == 2
    assert "::warning file=specs/inc.dfy,line=3" in ran.log  # on the ensures

    # a second run edits the same comment; another comment quoting the marker is left alone
    other = github_server.add_comment(REPO, PR, "someone", f"quoting {MARKER}")
    again = run_action(env, fake)
    assert again.code == EXIT_FAILED and again.outputs["passed"] == "false"
    assert [c.id for c in comments(github_server)] == [comment.id, other.id]
    assert len(github_server.requests_for("POST")) == 1 and len(github_server.requests_for("PATCH")) == 1
    assert comments(github_server)[1].body == f"quoting {MARKER}"


def test_a_strong_pr_passes(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                        {"specs/inc.dfy": STRONG.replace("x + 1", "1 + x", 1)}, min_completeness="0.9")
    assert ran.code == EXIT_OK, ran.log
    assert ran.outputs["passed"] == "true" and ran.outputs["completeness"] == "1.0000"
    assert ran.outputs["regressions"] == "0"
    assert methods(pr.repo)["specs/inc.dfy:Inc"]["pinned"] == 2
    (comment,) = comments(github_server)
    assert "passed" in comment.body


# ---------------------------------------------------------------------------------------------------
# 2. mode pr: failure paths


def test_not_a_pull_request_warns_and_passes(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    env = action_env(tmp_path / "ws", github_server, tmp_path / "runner")
    (tmp_path / "ws").mkdir()
    env.event.write_text(json.dumps({"ref": "refs/heads/main", "after": "a" * 40}))  # a push
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK
    assert f"::warning::{NOT_A_PR}" in ran.log
    assert not fake.verifiers and not fake.backend.calls and github_server.requests == []


def test_an_event_file_gone_after_the_configuration_warns_and_passes(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    (tmp_path / "ws").mkdir()
    env = action_env(tmp_path / "ws", github_server, tmp_path / "runner")
    env.event.write_text("{}")
    config = Config.from_environ(env.vars)
    env.event.unlink()
    out = io.StringIO()
    assert action.run(config, None, fake.engines, out) == EXIT_OK
    assert f"::warning::{NOT_A_PR}" in out.getvalue()
    # before the run, a missing event file is a configuration problem of mode pr
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["GITHUB_EVENT_PATH"]


@pytest.mark.parametrize("payload", ["{", json.dumps({"pull_request": {"number": PR, "base": {}, "head": {}}})])
def test_an_unreadable_event_is_a_usage_error_with_a_summary(
    tmp_path: Path, github_server: Any, fake: Fake, payload: str
) -> None:
    (tmp_path / "ws").mkdir()
    env = action_env(tmp_path / "ws", github_server, tmp_path / "runner")
    env.event.write_text(payload)
    ran = run_action(env, fake)
    assert ran.code == EXIT_USAGE
    assert "::error::cannot read the event file" in ran.log
    assert "not run" in ran.summary and "cannot read the event file" in ran.summary
    assert not fake.backend.calls and github_server.requests == []


def test_a_failing_file_listing_falls_back_to_git_diff(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    github_server.fail("GET", r".*/pulls/7/files", 500, times=None)
    slept: list[float] = []

    def github(config: Config) -> GitHubClient:  # make_github's client, without waiting between retries
        return GitHubClient(config.token, config.repository, base_url=config.api_url, sleep=slept.append)

    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                        changed=[], github_factory=github, min_completeness="0.9")  # the API would say: nothing
    assert "using git diff instead" in ran.log
    assert len(github_server.requests_for("GET", r".*/pulls/7/files")) == 3 and len(slept) == 2  # retried first
    assert ran.code == EXIT_FAILED and ran.outputs["completeness"] == "0.0000"
    assert list(methods(pr.repo)) == ["specs/inc.dfy:Inc"]
    assert len(comments(github_server)) == 1


def test_a_missing_base_commit_scores_without_a_comparison(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    pr = make_pr(tmp_path / "repo", {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    missing = "0123456789" * 4
    github_server.add_pull(REPO, PR, base_sha=missing, head_sha=pr.head,
                           files=[{"filename": "specs/inc.dfy", "status": "modified"}])
    env = action_env(pr.repo, github_server, tmp_path / "runner", min_completeness="0.9")
    pr_event(env.event, PullRequest(pr.repo, missing, pr.head, pr.changed))
    ran = run_action(env, fake)
    assert "::warning::cannot check out the base commit" in ran.log
    assert "scores are shown without a comparison" in ran.log
    assert ran.code == EXIT_FAILED and ran.outputs["completeness"] == "0.0000"
    assert ran.outputs["regressions"] == "0"  # nothing to regress from
    # only the head was scored: every program the fake saw is the weak spec's
    assert all("// fake: weak" in c.prelude for c in fake.backend.calls)
    assert len(comments(github_server)) == 1


def test_a_spec_that_does_not_parse_at_head_fails_the_check(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    broken = STRONG.replace("ensures r == x + 1", "ensures r == (x + 1")
    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": broken})
    assert ran.code == EXIT_FAILED, ran.log
    assert ran.outputs["passed"] == "false"
    # the error names the file and the place (the log's `::error::` escapes the message's newline)
    assert "::error::specs/inc.dfy:2:16: '(' is never closed" in ran.log, ran.log
    (comment,) = comments(github_server)
    assert "specs/inc.dfy" in comment.body and "Inc" in comment.body
    # the method scored at base shows as unscored at head, never as removed
    assert "scored at base, cannot be scored at head" in comment.body
    assert methods(pr.repo)["specs/inc.dfy:Inc"]["note"].startswith("the spec file does not parse")


def test_a_token_that_cannot_comment_saves_the_comment(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    github_server.fail("POST", r".*/issues/7/comments", 403, times=None)
    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK, ran.log  # the thresholds alone decide
    assert "::warning::The token cannot comment on this pull request" in ran.log
    saved = json.loads((pr.repo / COMMENT_ARTIFACT).read_text())
    assert saved["pr"] == PR and saved["head_sha"] == pr.head and "body" not in saved
    assert [m["method"] for m in saved["head"]] == ["Inc"] and [m["method"] for m in saved["base"]] == ["Inc"]
    assert comments(github_server) == []
    assert "Dafny Spec Score" in ran.summary


def test_a_review_github_refuses_warns_and_the_summary_comment_stands(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    github_server.fail("POST", r".*/pulls/7/reviews", 422, message="Unprocessable Entity")
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                       patches=True, min_completeness="0.9")
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false"  # the scores decide, not the review
    assert "::warning::the review comments could not be placed" in ran.log
    assert "the summary comment has every finding" in ran.log
    assert len(comments(github_server)) == 1 and not github_server.review_comments_on(REPO, PR)


def test_a_fork_token_saves_the_review_with_the_comment_and_tries_no_review(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    github_server.fail("POST", r".*/issues/7/comments", 403, times=None)
    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                        patches=True)
    assert ran.code == EXIT_OK, ran.log
    assert "::warning::The token cannot comment on this pull request" in ran.log
    saved = json.loads((pr.repo / COMMENT_ARTIFACT).read_text())
    assert [s["method"] for s in saved["spans"]] == ["Inc"] and saved["spans"][0]["clauses"][0]["first"] == 3
    assert not github_server.requests_for("POST", r".*/reviews") and not github_server.reviews_on(REPO, PR)


def test_comment_off_places_no_review_comments(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                       patches=True, comment="off")
    assert ran.code == EXIT_OK, ran.log
    assert not github_server.requests_for("GET", r".*/pulls/7/comments") and not github_server.reviews_on(REPO, PR)


def test_a_pull_request_that_moved_on_gets_its_review_from_the_next_run(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    ran, pr, env = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                          patches=True)
    assert len(github_server.reviews_on(REPO, PR)) == 1
    github_server.set_head(REPO, PR, "9" * 40, github_server.pulls[(REPO, PR)].files)  # a push meanwhile
    github_server.review_comments.clear()
    again = run_action(env, fake)
    assert again.code == EXIT_OK and "the pull request moved on to 999999999999" in again.log
    assert len(github_server.reviews_on(REPO, PR)) == 1 and not github_server.review_comments_on(REPO, PR)


# ---------------------------------------------------------------------------------------------------
# 3. mode audit


def audit_env(tmp_path: Path, server: Any, **inputs: str) -> Env:
    """A workspace holding a copy of the audit fixture under `dataset/`, mode audit."""
    ws = tmp_path / "ws"
    shutil.copytree(AUDIT_FIXTURE, ws / "dataset")
    values = {"mode": "audit", "audit-root": "dataset", **inputs}
    return action_env(ws, server, tmp_path / "runner", **values)


def audit_results(env: Env, out: str = "audit-out") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((env.workspace / out / "results.json").read_text())
    return data


def tasks(env: Env, out: str = "audit-out") -> dict[str, dict[str, Any]]:
    return {t["task_id"]: t for t in audit_results(env, out)["tasks"]}


def test_audit_writes_its_reports_summary_and_outputs(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    env = audit_env(tmp_path, github_server)
    src = AUDIT_FIXTURE / "DS" / "src"
    write_files(env.workspace / "dataset", {
        "DS/src/task_id_2.dfy": "// fake: weak\n" + (src / "task_id_2.dfy").read_text(),
        "DS/src/task_id_234.dfy": "// fake: wrong\n" + (src / "task_id_234.dfy").read_text(),
    })
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert fake.backend.calls
    for name in ("report.md", "results.json", "results.csv"):
        assert (env.workspace / "audit-out" / name).is_file(), name
    by_id = tasks(env)
    assert list(by_id) == ["2", "105", "234", "432"]
    assert by_id["2"]["verdict"] == "weak" and by_id["2"]["label"] == "strong"
    assert by_id["105"]["verdict"] == "strong"
    assert by_id["234"]["verdict"] == "wrong" and by_id["234"]["failing_cases"]
    assert by_id["432"]["verdict"] == "inconclusive"  # its test passes three arguments to a method of two
    assert audit_results(env)["settings"]["tolerance"] == AUDIT_TOLERANCE
    assert ran.summary.startswith("# Dafny Spec Score: dataset audit")
    assert "Evaluated 3 of 4 tasks" in ran.summary and "relative tolerance for reals 0.001" in ran.summary
    assert ran.outputs["report-json"] == "audit-out/results.json"
    assert ran.outputs["passed"] == "true"  # an audit has no gate
    assert ran.outputs["correctness"] == "0.0000" and ran.outputs["completeness"] == "0.0000"  # the lowest
    assert ran.outputs["regressions"] == "1"  # the tasks scored wrong
    assert github_server.requests == []  # an audit talks to no one


def test_audit_of_a_root_without_tasks_is_a_usage_error(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    ws = tmp_path / "ws"
    (ws / "empty").mkdir(parents=True)
    env = action_env(ws, github_server, tmp_path / "runner", mode="audit", audit_root="empty")
    ran = run_action(env, fake)
    assert ran.code == EXIT_USAGE
    assert "::error::" in ran.log and "no task files found" in ran.log
    assert not fake.backend.calls and not (ws / "audit-out").exists()


# ---------------------------------------------------------------------------------------------------
# 4. mode post-comment


def fork_run(tmp_path: Path, server: Any, fake: Fake) -> tuple[PullRequest, Path]:
    """A fork's pull request whose token cannot comment: the run saves the comment."""
    server.fail("POST", r".*/issues/7/comments", 403, times=1)
    ran, pr, _ = pr_run(tmp_path, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK, ran.log
    artifact = pr.repo / COMMENT_ARTIFACT
    assert artifact.is_file() and comments(server) == []
    return pr, artifact


def post_env(tmp_path: Path, server: Any, artifact: Path, head_sha: str, **inputs: str) -> Env:
    """The second workflow: the artifact downloaded into a fresh workspace, on `workflow_run`."""
    ws = tmp_path / "second"
    ws.mkdir()
    shutil.copy(artifact, ws / "saved.json")
    values = {"mode": "post-comment", "comment-file": "saved.json", **inputs}
    env = action_env(ws, server, tmp_path / "runner2", **values)
    env.vars["GITHUB_EVENT_NAME"] = "workflow_run"
    env.event.write_text(json.dumps({"workflow_run": {"head_sha": head_sha, "pull_requests": [
        {"number": PR, "head": {"sha": head_sha}}]}}))
    return env


def test_post_comment_posts_the_saved_comment(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    pr, artifact = fork_run(tmp_path, github_server, fake)
    calls = len(fake.backend.calls)
    ran = run_action(post_env(tmp_path, github_server, artifact, pr.head), fake)
    assert ran.code == EXIT_OK, ran.log
    (comment,) = comments(github_server)
    assert comment.body.startswith(MARKER) and "Inc" in comment.body
    assert "comment created" in ran.log
    assert len(fake.backend.calls) == calls and len(fake.verifiers) == 1  # nothing scored again


def test_post_comment_refuses_another_head_commit(tmp_path: Path, github_server: Any, fake: Fake) -> None:
    _, artifact = fork_run(tmp_path, github_server, fake)
    ran = run_action(post_env(tmp_path, github_server, artifact, "d" * 40), fake)
    assert ran.code == EXIT_USAGE
    assert "refusing to post" in ran.log and "is not the triggering run's" in ran.log
    assert comments(github_server) == []


# ---------------------------------------------------------------------------------------------------
# 5. every action input: set it, observe its effect

InputCase = Callable[[Path, Any, Fake, pytest.MonkeyPatch], None]
INPUT_CASES: dict[str, InputCase] = {}


def input_case(name: str) -> Callable[[InputCase], InputCase]:
    def register(fn: InputCase) -> InputCase:
        assert name not in INPUT_CASES, name
        INPUT_CASES[name] = fn
        return fn

    return register


def test_every_action_input_has_a_case() -> None:
    assert set(INPUT_CASES) == set(ACTION_INPUTS), "add a case below for each new input (and none for a gone one)"


@pytest.mark.parametrize("name", ACTION_INPUTS)
def test_action_input(name: str, tmp_path: Path, github_server: Any, fake: Fake,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    case = INPUT_CASES.get(name)
    if case is None:
        pytest.fail(f"input `{name}` has no case in INPUT_CASES: add one that sets it and observes its effect")
    case(tmp_path, github_server, fake, monkeypatch)


@input_case("github-token")
def _github_token(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # the token given is the one GitHub sees: a server that accepts only it takes the comment
    server.token = TOKEN
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK and len(comments(server)) == 1
    # none in mode pr: a configuration problem, before anything runs
    env.vars[input_env_name("github-token")] = ""
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["github-token"]
    # and so through main(): exit 2, saying what to pass
    for name in [n for n in os.environ if n.startswith(("INPUT_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    for name, value in env.vars.items():
        monkeypatch.setenv(name, value)
    stdout = io.StringIO()
    monkeypatch.setattr("sys.stdout", stdout)
    assert action.main() == EXIT_USAGE
    assert "::error::" in stdout.getvalue() and "github-token" in stdout.getvalue()
    assert len(fake.verifiers) == 1


@input_case("specs")
def _specs(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    other = spec("weak", ensures="r > x", method="Dec")
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG, "other/dec.dfy": spec(method="Dec")},
                        {"specs/inc.dfy": WEAK, "other/dec.dfy": other}, specs="specs/**/*.dfy")
    assert ran.code == EXIT_OK, ran.log
    assert list(methods(pr.repo)) == ["specs/inc.dfy:Inc"]  # other/dec.dfy is outside the glob
    assert "Dec" not in comments(server)[0].body


TESTED = spec(tests=False)  # a spec without test methods of its own
CHECKS = "checks/inc_checks.dfy"


@input_case("tests")
def _tests(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # a test file outside the conventional places, changed alone by the pull request
    changed = calls_of(name="IncChecks").replace("expect b == 6", "expect b == 6;\n  var c := Inc(9);\n"
                                                    "  expect c == 10")
    # (`specs` keeps the test file from being a spec file of its own: `**/*.dfy` would match it)
    cases = 'method = "Inc"\n[[case]]\nargs = [20]\nexpected = 21\n'
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": TESTED, CHECKS: calls_of(name="IncChecks"),
                                              "cases/more.toml": cases},
                          {CHECKS: changed}, tests="checks/**/*.dfy, cases/*.toml", specs="specs/**/*.dfy")
    assert ran.code == EXIT_OK, ran.log
    scored = methods(pr.repo)["specs/inc.dfy:Inc"]  # re-scored: its cases come from the test files
    assert sorted(c["inputs"] for c in scored["cases"]) == ["x = 1", "x = 20", "x = 5", "x = 9"]
    assert len(comments(server)) == 1
    # without the input the test file is nobody's: nothing to score
    env.vars[input_env_name("tests")] = INPUT_DEFAULTS["tests"]
    (pr.repo / "dafny-spec-score.json").unlink()
    again = run_action(env, fake)
    assert again.code == EXIT_OK and f"::notice::{NOTHING_CHANGED}" in again.log  # a notice, not a warning
    assert not (pr.repo / "dafny-spec-score.json").exists()
    assert again.outputs["sarif-file"] == ""  # nothing for upload-sarif (README's recipe skips it)


@input_case("min-correctness")
def _min_correctness(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = spec("wrong", ensures="r == x + 2")
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": wrong})
    assert ran.code == EXIT_FAILED and ran.outputs["correctness"] == "0.0000"  # the default: 1.0
    env.vars[input_env_name("min-correctness")] = "0"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log


@input_case("min-completeness")
def _min_completeness(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK and ran.outputs["completeness"] == "0.0000"  # the default: 0
    env.vars[input_env_name("min-completeness")] = "0.5"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false"
    assert "- specs/inc.dfy: Inc: completeness 0.00 &lt; 0.50" in comments(server)[0].body


@input_case("fail-on-unknown")
def _fail_on_unknown(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = spec("unknown", ensures="r == 1 + x")
    # (unknown at base too: a completeness the base measured and the head does not fails by itself)
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": spec("unknown")}, {"specs/inc.dfy": unknown})
    assert ran.code == EXIT_OK, ran.log  # the default: unknowns count neither way
    assert methods(pr.repo)["specs/inc.dfy:Inc"]["completeness"] is None
    env.vars[input_env_name("fail-on-unknown")] = "true"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false"
    assert "fail-on-unknown is set" in comments(server)[0].body


@input_case("allow-unscored")
def _allow_unscored(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # a new spec whose every case times out: nothing about it is decided
    ran, _, env = pr_run(tmp, server, fake, {}, {"specs/new.dfy": spec("timeout", method="New")})
    assert ran.code == EXIT_FAILED, ran.log  # the default: a changed method must be scored
    assert "new method cannot be scored" in comments(server)[0].body
    env.vars[input_env_name("allow-unscored")] = "true"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log
    assert "::warning::specs/new.dfy: New: not scored" in ran.log and "allowed by allow-unscored" in ran.log


@input_case("allow-axioms")
def _allow_axioms(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # a strong spec whose helper is trusted, not checked: its verdicts rest on that helper
    helper = "function {:verify false} Succ(x: int): int { x + 1 }\n"
    ran, _, env = pr_run(tmp, server, fake, {}, {"specs/inc.dfy": helper + spec(ensures="r == Succ(x)")})
    assert ran.code == EXIT_FAILED, ran.log  # the default: a verdict relative to an axiom does not pass
    body = comments(server)[0].body
    assert "Inc: relative to 1 trusted axiom \\(Succ at specs/inc.dfy:1: \\{:verify false\\}\\)" in body, body
    env.vars[input_env_name("allow-axioms")] = "true"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log
    assert "::warning::specs/inc.dfy: Inc: relative to 1 trusted axiom" in ran.log
    assert "allowed by allow-axioms" in ran.log


@input_case("mutants")
def _mutants(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, mutants="0")
    assert ran.code == EXIT_OK, ran.log
    assert ran.outputs["completeness"] == ""
    scored = methods(pr.repo)["specs/inc.dfy:Inc"]
    assert scored["completeness"] is None and all(c["mutants"] == [] for c in scored["cases"])
    assert not {"mr", "ma"} & fake.backend.kinds()
    assert report(pr.repo)["settings"]["mutants"] == 0


@input_case("gate-scope")
def _gate_scope(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # a touched file whose one method the pull request did not change, refuted at base and head alike
    wrong = spec("wrong", ensures="r == x + 2")
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": wrong}, {"specs/inc.dfy": wrong + "// a note\n"})
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log  # the default: the changed methods
    body = comments(server)[0].body
    assert "did not change (reported, not gated):\n- specs/inc.dfy: Inc: correctness 0.00" in body, body
    env.vars[input_env_name("gate-scope")] = "files"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED, ran.log
    assert "**The check fails on 1 finding:**\n- specs/inc.dfy: Inc: correctness 0.00" in comments(server)[0].body


@input_case("fail-on-weakening")
def _fail_on_weakening(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # head accepts an output base rejected (the fake proves it; the witness is a mutant head accepts and base
    # rejected), with every threshold met: the weakening alone fails the check
    weaker = spec("weaker", ensures="r > x")
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": weaker})
    assert ran.code == EXIT_FAILED, ran.log
    (change,) = json.loads(ran.outputs["spec-changes"])
    assert change["file"] == "specs/inc.dfy" and change["method"] == "Inc"
    assert (change["relation"], change["accepted_by"]) == ("weaker", "head")
    assert change["inputs"] in ("x = 1", "x = 5") and change["output"]
    body = comments(server)[0].body
    assert "**Beyond the tests**" in body and "<code>Inc</code> got weaker beyond the tests: for " in body, body
    assert "specs/inc.dfy: Inc: got weaker beyond the tests" in body
    assert report(pr.repo)["spec_changes"][0]["relation"] == "weaker"
    sarif = json.loads((pr.repo / "dafny-spec-score.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "spec/weaker-than-base"] == [
        "spec/weaker-than-base"]
    env.vars[input_env_name("fail-on-weakening")] = "false"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log
    assert "allowed by fail-on-weakening: false" in ran.log


@input_case("require-determined")
def _require_determined(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # a new weak spec: every threshold met; the fake cannot prove it determined, and a verified case with a
    # surviving mutant is the witness (two outputs proved accepted on one input)
    ran, pr, env = pr_run(tmp, server, fake, {}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK, ran.log
    body = comments(server)[0].body
    assert "**Beyond the tests**" in body and "<code>Inc</code> is not determined on every input: for " in body, body
    every = methods(pr.repo)["specs/inc.dfy:Inc"]["everywhere"]
    assert every["status"] == "not-determined" and every["reason"].startswith("shown on test case"), every
    env.vars[input_env_name("require-determined")] = "true"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED, ran.log
    assert "- specs/inc.dfy: Inc: not determined on every input: for " in comments(server)[0].body
    assert "require-determined is not met" in comments(server)[0].body
    # a strong spec is proved determined: the same gate passes
    ran, _, _ = pr_run(tmp / "strong", server, fake, {}, {"specs/inc.dfy": STRONG},
                       **{"require_determined": "true"})
    assert ran.code == EXIT_OK, ran.log


@input_case("pin")
def _pin(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, pin="false")
    assert ran.code == EXIT_OK, ran.log
    # no pin check, and no model asked for a case (the spec-change questions, `sa`, and determinacy on every
    # input, `dp`, ask for theirs)
    assert "pp" not in fake.backend.kinds()
    assert not any(fake.backend.asked[n] not in ("sa", "dp") for c in fake.backend.calls for n in c.models)
    scored = methods(pr.repo)["specs/inc.dfy:Inc"]
    assert all(c["determinacy"] is None for c in scored["cases"]) and scored["not_pinned"] == 0
    assert report(pr.repo)["settings"]["pin"] is False


@input_case("suggest")
def _suggest(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, suggest="false")
    assert ran.code == EXIT_OK, ran.log
    assert methods(pr.repo)["specs/inc.dfy:Inc"]["suggestions"] == []
    assert report(pr.repo)["settings"]["suggest"] is False


def mutant_values(repo: Path) -> list[str]:
    return [m["value"] for c in methods(repo)["specs/inc.dfy:Inc"]["cases"] for m in c["mutants"]]


@input_case("seed")
def _seed(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK
    default = mutant_values(pr.repo)
    assert run_action(env, fake).code == EXIT_OK and mutant_values(pr.repo) == default  # reproducible
    env.vars[input_env_name("seed")] = "12345"
    assert run_action(env, fake).code == EXIT_OK
    assert len(mutant_values(pr.repo)) == len(default) and mutant_values(pr.repo) != default
    assert report(pr.repo)["settings"]["seed"] == 12345


@input_case("time-limit")
def _time_limit(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, time_limit="7")
    assert ran.code == EXIT_OK, ran.log
    assert fake.engine.time_limit == 7
    # what the verifier is given: 7 s, the short limit of the programs that only add a detail, and that of
    # the one program rejecting every mutant left (asked one by one when it does not conclude)
    limits = {c.time_limit for c in fake.backend.calls}
    assert 7 in limits and limits <= {7, DESCRIPTIVE_SECONDS, CONJOINED_SECONDS}
    assert report(pr.repo)["settings"]["time_limit"] == 7


@input_case("jobs")
def _jobs(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, jobs="3")
    assert ran.code == EXIT_OK, ran.log
    assert fake.engine.jobs == 3
    env.vars[input_env_name("jobs")] = "1"
    assert run_action(env, fake).code == EXIT_OK
    assert fake.engine.jobs == 1


@input_case("server")
def _server(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # the default keeps a verifier alive per worker; `false` asks for a process per batch (the backend is chosen
    # by bot.verifier.make_backend: tests/verifier/test_server.py); the scores are the same either way
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert ran.code == EXIT_OK, ran.log
    scored = methods(pr.repo)
    env.vars[input_env_name("server")] = "false"
    (pr.repo / "dafny-spec-score.json").unlink()
    assert run_action(env, fake).code == EXIT_OK
    assert fake.servers == [True, False]
    assert methods(pr.repo) == scored
    assert "server" not in report(pr.repo)["settings"]  # it changes no result


@input_case("tolerance")
def _tolerance(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, _ = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    assert report(pr.repo)["settings"]["tolerance"] == 0.0  # the default of pull requests: exact
    ran, pr, _ = pr_run(tmp / "again", server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                        tolerance="0.05")
    assert ran.code == EXIT_OK, ran.log
    assert report(pr.repo)["settings"]["tolerance"] == 0.05
    # and in mode audit, the results record it
    env = audit_env(tmp, server, tolerance="0.05", audit_only="2")
    assert run_action(env, fake).code == EXIT_OK
    assert audit_results(env)["settings"]["tolerance"] == 0.05
    assert tasks(env)["2"]["tolerance"] == 0.05
    assert "relative tolerance for reals 0.05" in env.summary.read_text()


@input_case("comment")
def _comment(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, comment="off")
    assert ran.code == EXIT_OK, ran.log
    assert comments(server) == [] and not server.requests_for("GET", r".*/issues/\d+/comments")
    assert "Dafny Spec Score" in ran.summary  # the summary has the scores all the same
    env.vars[input_env_name("comment")] = "on-change"
    assert run_action(env, fake).code == EXIT_OK
    (first,) = comments(server)
    again = run_action(env, fake)  # the same scores: the comment is left as it is
    assert again.code == EXIT_OK and "comment unchanged" in again.log
    assert not server.requests_for("PATCH") and comments(server)[0].updated_at == first.updated_at
    env.vars[input_env_name("comment")] = "always"  # the default: written again every run
    assert run_action(env, fake).code == EXIT_OK
    assert len(server.requests_for("PATCH")) == 1 and len(comments(server)) == 1


@input_case("comment-id")
def _comment_id(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                         comment_id="job-a")
    assert ran.code == EXIT_OK, ran.log
    (comment,) = comments(server)
    assert comment.body.startswith("<!-- dafny-spec-score:job-a -->") and MARKER not in comment.body
    env.vars[input_env_name("comment-id")] = "job-b"  # another job's comment, beside the first
    assert run_action(env, fake).code == EXIT_OK
    bodies = [c.body for c in comments(server)]
    assert len(bodies) == 2 and bodies[1].startswith("<!-- dafny-spec-score:job-b -->")
    assert not server.requests_for("PATCH")


@input_case("review")
def _review(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK}, patches=True)
    assert ran.code == EXIT_OK, ran.log
    (review,) = server.reviews_on(REPO, PR)
    (inline,) = server.review_comments_on(REPO, PR)
    assert review.event == "COMMENT" and review.commit_id == pr.head
    # on the weak `ensures` (line 3: the fake's marker, then the method), one sentence with a wrong output
    assert (inline.path, inline.line, inline.start_line) == ("specs/inc.dfy", 3, None)
    assert inline.body.startswith("<!-- dafny-spec-score-review:default:")
    assert "accepts a wrong output" in inline.body and "the test expects <code>r = 2</code>" in inline.body
    again = run_action(env, fake)  # the same finding at the same head: nothing new, nothing edited
    assert again.code == EXIT_OK and len(server.reviews_on(REPO, PR)) == 1
    assert [c.id for c in server.review_comments_on(REPO, PR)] == [inline.id]
    assert not server.requests_for("PATCH", r".*/pulls/comments/\d+")
    env.vars[input_env_name("review")] = "false"
    server.review_comments.clear()
    assert run_action(env, fake).code == EXIT_OK
    assert len(server.reviews_on(REPO, PR)) == 1 and not server.review_comments_on(REPO, PR)


@input_case("config")
def _config(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = 'min-completeness = 0.9\nspecs = ["specs/**/*.dfy"]\n'
    ran, pr, env = pr_run(tmp, server, fake, {"specs/inc.dfy": STRONG, "ci/score.toml": toml},
                          {"specs/inc.dfy": WEAK}, config="ci/score.toml")
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false", ran.log  # the file's threshold
    # a pull request changing the file does not judge itself by it: the base's values apply
    changed = make_pr(tmp / "repo2", {"specs/inc.dfy": STRONG, "ci/score.toml": toml},
                      {"specs/inc.dfy": WEAK, "ci/score.toml": "min-completeness = 0\n"})
    env2 = action_env(changed.repo, server, tmp / "runner2", config="ci/score.toml")
    pr_event(env2.event, changed)
    ran = run_action(env2, fake)
    assert ran.code == EXIT_FAILED, ran.log
    assert "::warning::the pull request changes ci/score.toml" in ran.log


@input_case("mode")
def _mode(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="105")
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert list(tasks(env)) == ["105"] and server.requests == []
    assert not (env.workspace / "dafny-spec-score.json").exists()
    # mode pr (the default) with this environment reads the event instead
    env.vars[input_env_name("mode")] = INPUT_DEFAULTS["mode"]
    env.event.write_text("{}")
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and NOT_A_PR in ran.log


@input_case("audit-root")
def _audit_root(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server)
    shutil.copytree(env.workspace / "dataset", env.workspace / "small")
    for task in ("105", "234", "432"):
        for part in ("src", "test"):
            (env.workspace / "small" / "DS" / part / f"task_id_{task}.dfy").unlink()
    env.vars[input_env_name("audit-root")] = "small"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert list(tasks(env)) == ["2"]
    # the default (empty) in mode audit: a configuration problem
    env.vars[input_env_name("audit-root")] = INPUT_DEFAULTS["audit-root"]
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["audit-root"]


@input_case("audit-tests")
def _audit_tests(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="2")
    assert run_action(env, fake).code == EXIT_OK
    dfy_cases = len(tasks(env)["2"]["cases"])
    assert dfy_cases == 3  # the three calls of the test method
    assert audit_results(env)["settings"]["tests"] == "dfy"
    env.vars[input_env_name("audit-tests")] = "json"
    assert run_action(env, fake).code == EXIT_OK
    assert len(tasks(env)["2"]["cases"]) == 1  # the JSON's one case of task 2
    assert audit_results(env)["settings"]["tests"] == "json"
    env.vars[input_env_name("audit-tests")] = "both"
    assert run_action(env, fake).code == EXIT_OK
    assert len(tasks(env)["2"]["cases"]) == dfy_cases + 1


@input_case("audit-label-file")
def _audit_label_file(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="2,432")
    assert run_action(env, fake).code == EXIT_OK
    assert {k: t["label"] for k, t in tasks(env).items()} == {"2": "strong", "432": "wrong"}  # found
    env.vars[input_env_name("audit-label-file")] = "none"
    assert run_action(env, fake).code == EXIT_OK
    assert {k: t["label"] for k, t in tasks(env).items()} == {"2": "unlabeled", "432": "unlabeled"}
    # another file
    labels = [{"id": "2", "isVerified": True, "dafny_code": "", "note": "[WEAK-POST]"}]
    (env.workspace / "mine.json").write_text(json.dumps(labels))
    env.vars[input_env_name("audit-label-file")] = "mine.json"
    assert run_action(env, fake).code == EXIT_OK
    assert tasks(env)["2"]["label"] == "weak"


@input_case("audit-json")
def _audit_json(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="2", audit_tests="json")
    data = json.loads((AUDIT_FIXTURE / "DS" / "tests-all-task-test.json").read_text())
    data["2"]["test_cases"]["test_2"] = ("var a1:= new int[] [1, 2];\nvar a2:= new int[] [2, 3];\n"
                                         "var res2:=similar(a1,a2);\nassert res2==[2];")
    (env.workspace / "more.json").write_text(json.dumps(data))
    assert run_action(env, fake).code == EXIT_OK
    assert len(tasks(env)["2"]["cases"]) == 1  # the dataset's JSON
    env.vars[input_env_name("audit-json")] = "more.json"
    assert run_action(env, fake).code == EXIT_OK
    assert len(tasks(env)["2"]["cases"]) == 2  # the file given


@input_case("audit-out")
def _audit_out(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="105", audit_out="reports/audit")
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    for name in ("report.md", "results.json", "results.csv"):
        assert (env.workspace / "reports" / "audit" / name).is_file()
    assert not (env.workspace / "audit-out").exists()
    assert ran.outputs["report-json"] == "reports/audit/results.json"
    assert list(tasks(env, "reports/audit")) == ["105"]


@input_case("weak-below")
def _weak_below(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # no pin check: a confirmed other output would make the task weak whatever the threshold
    env = audit_env(tmp, server, audit_only="2", pin="false")
    src = env.workspace / "dataset" / "DS" / "src" / "task_id_2.dfy"
    src.write_text("// fake: half\n" + src.read_text())  # some mutants killed, some surviving
    assert run_action(env, fake).code == EXIT_OK
    completeness = tasks(env)["2"]["completeness"]
    assert 0.0 < completeness < 1.0
    assert tasks(env)["2"]["verdict"] == ("weak" if completeness < 0.8 else "strong")
    env.vars[input_env_name("weak-below")] = "0"
    assert run_action(env, fake).code == EXIT_OK
    assert tasks(env)["2"]["verdict"] == "strong" and audit_results(env)["settings"]["weak_below"] == 0.0
    env.vars[input_env_name("weak-below")] = "1"
    assert run_action(env, fake).code == EXIT_OK
    assert tasks(env)["2"]["verdict"] == "weak" and audit_results(env)["settings"]["weak_below"] == 1.0


@input_case("audit-only")
def _audit_only(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_only="2,234")
    assert run_action(env, fake).code == EXIT_OK
    assert list(tasks(env)) == ["2", "234"]
    env.vars[input_env_name("audit-only")] = "2,999"
    ran = run_action(env, fake)
    assert ran.code == EXIT_USAGE and "no such task" in ran.log and "999" in ran.log


@input_case("audit-shard")
def _audit_shard(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env = audit_env(tmp, server, audit_shard="2/2")
    assert run_action(env, fake).code == EXIT_OK
    assert list(tasks(env)) == ["105", "432"]
    env.vars[input_env_name("audit-shard")] = "1/2"
    assert run_action(env, fake).code == EXIT_OK
    assert list(tasks(env)) == ["2", "234"]


def baseline_run(tmp: Path, server: Any, fake: Fake, **inputs: str) -> tuple[Env, Ran]:
    """An audit of tasks 2 and 234 kept as `prev.json`; then task 234's spec made wrong (the fake refutes it)."""
    env = audit_env(tmp, server, audit_only="2,234", **inputs)
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert not (env.workspace / "audit-out" / "changes.json").exists()  # no baseline, no changes
    shutil.copy(env.workspace / "audit-out" / "results.json", env.workspace / "prev.json")
    src = env.workspace / "dataset" / "DS" / "src" / "task_id_234.dfy"
    src.write_text("// fake: wrong\n" + src.read_text())
    return env, ran


@input_case("audit-baseline")
def _audit_baseline(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env, _ = baseline_run(tmp, server, fake)
    env.vars[input_env_name("audit-baseline")] = "prev.json"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log  # audit-fail-on is `never`
    changes = json.loads((env.workspace / "audit-out" / "changes.json").read_text())
    assert changes["baseline"]["file"] == "prev.json" and changes["compared"] == 2
    assert changes["verdict_changes"] == [{"task_id": "234", "label": "strong", "old": "strong", "new": "wrong"}]
    assert changes["new_disagreements"] == [{"task_id": "234", "label": "strong", "verdict": "wrong"}]
    report = (env.workspace / "audit-out" / "report.md").read_text()
    assert report.index("Settings:") < report.index("## Changes since the baseline") < report.index("## Coverage")
    assert report in ran.summary  # the step summary has the changes first too
    assert "since the baseline prev.json: 1 new disagreement, 1 verdict changed" in ran.log
    # a baseline of another seed is refused before anything is verified
    prev = json.loads((env.workspace / "prev.json").read_text())
    prev["settings"]["seed"] = 7
    (env.workspace / "prev.json").write_text(json.dumps(prev))
    engines = len(fake.verifiers)
    ran = run_action(env, fake)
    assert ran.code == EXIT_USAGE and "::error::baseline " in ran.log and "prev.json" in ran.log, ran.log
    assert "seed 7" in ran.log and len(fake.verifiers) == engines
    # and a file that is not results.json
    (env.workspace / "prev.json").write_text("[1, 2")
    ran = run_action(env, fake)
    assert ran.code == EXIT_USAGE and "prev.json: not JSON" in ran.log and len(fake.verifiers) == engines


@input_case("audit-fail-on")
def _audit_fail_on(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    env, ran = baseline_run(tmp, server, fake, audit_fail_on="verdict-change")
    assert "::warning::" in ran.log and "cannot fail on changes" in ran.log  # no baseline yet
    env.vars[input_env_name("audit-baseline")] = "prev.json"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false", ran.log
    assert "::error::audit: failing: 1 verdict changed since the baseline: task 234 (strong → wrong)" in ran.log
    assert (env.workspace / "audit-out" / "changes.json").is_file()  # the reports are written all the same
    env.vars[input_env_name("audit-fail-on")] = "new-disagreement"
    ran = run_action(env, fake)
    assert ran.code == EXIT_FAILED and "1 new disagreement with the labels" in ran.log, ran.log
    env.vars[input_env_name("audit-fail-on")] = INPUT_DEFAULTS["audit-fail-on"]  # never
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and ran.outputs["passed"] == "true", ran.log
    # nothing changed since this baseline: nothing fails
    shutil.copy(env.workspace / "audit-out" / "results.json", env.workspace / "prev.json")
    env.vars[input_env_name("audit-fail-on")] = "verdict-change"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert "No changes since the baseline (2 tasks compared)." in ran.summary


AUDIT_MARKER = "<!-- dafny-spec-score:audit.default -->"


@input_case("audit-issue")
def _audit_issue(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    server.add_repo(REPO)
    theirs = server.add_issue(REPO, "mallory", f"quoting {AUDIT_MARKER}", title="Nightly audit")
    env, ran = baseline_run(tmp, server, fake, audit_issue="Nightly audit")
    (ours,) = [i for i in server.issues_in(REPO) if i.number != theirs.number]  # created, beside theirs
    assert ours.title == "Nightly audit" and ours.body.startswith(AUDIT_MARKER) and ours.labels == []
    assert "No baseline" in ours.body and f"tracking issue created: {server.url}/{REPO}/issues/{ours.number}" in ran.log
    assert f"Tracking issue: [#{ours.number}]" in ran.summary
    # the next run, with a baseline: the same issue, edited, shows the verdict that changed
    env.vars[input_env_name("audit-baseline")] = "prev.json"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK and "tracking issue updated" in ran.log, ran.log
    assert [i.number for i in server.issues_in(REPO)] == [theirs.number, ours.number]
    assert "| 234 | strong | strong | wrong |" in ours.body and theirs.body == f"quoting {AUDIT_MARKER}"
    # a token that cannot write issues: a warning saying what to grant; the reports stand
    server.fail("PATCH", rf"/repos/{REPO}/issues/\d+", 403, times=None)
    (env.workspace / "audit-out" / "results.json").unlink()
    monkeypatch.setattr(action, "_now", lambda: datetime(2031, 1, 2, tzinfo=UTC))  # a later night: an edit
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert "::warning::the tracking issue was not written" in ran.log and "issues: write" in ran.log
    assert (env.workspace / "audit-out" / "results.json").is_file()
    # the default (empty): no issue, and an audit talks to no one
    env.vars[input_env_name("audit-issue")] = INPUT_DEFAULTS["audit-issue"]
    requests = len(server.requests)
    assert run_action(env, fake).code == EXIT_OK and len(server.requests) == requests
    # an issue needs a token: a configuration problem, before anything runs
    env.vars[input_env_name("audit-issue")] = "Nightly audit"
    env.vars[input_env_name("github-token")] = ""
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["github-token"] and "issues: write" in str(info.value)


@input_case("audit-labels")
def _audit_labels(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    server.add_repo(REPO)
    env = audit_env(tmp, server, audit_only="105", audit_issue="Nightly audit", audit_labels="audit, nightly, Audit")
    assert run_action(env, fake).code == EXIT_OK
    (issue,) = server.issues_in(REPO)
    assert issue.labels == ["audit", "nightly"]  # GitHub's label names ignore case: one `audit`
    env.vars[input_env_name("audit-labels")] = "x" * 51
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["audit-labels"]


@input_case("comment-file")
def _comment_file(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    pr, artifact = fork_run(tmp, server, fake)
    env = post_env(tmp, server, artifact, pr.head)
    (env.workspace / "saved.json").rename(env.workspace / "artifact-dir-file.json")
    with pytest.raises(ConfigError) as info:  # the file named is not there
        Config.from_environ(env.vars)
    assert [p.field for p in info.value.problems] == ["comment-file"]
    env.vars[input_env_name("comment-file")] = "artifact-dir-file.json"
    ran = run_action(env, fake)
    assert ran.code == EXIT_OK, ran.log
    assert len(comments(server)) == 1


@input_case("working-directory")
def _working_directory(tmp: Path, server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    # the repository checked out into a folder of the workspace (`actions/checkout` with `path:`), its
    # config file unchanged by the pull request
    ws = tmp / "ws"
    toml = "min-completeness = 0.9\n"
    pr = make_pr(ws / "checkout", {"specs/inc.dfy": STRONG, ".dafny-spec-score.toml": toml},
                 {"specs/inc.dfy": WEAK})
    server.add_pull(REPO, PR, base_sha=pr.base, head_sha=pr.head,
                    files=[{"filename": f, "status": "modified"} for f in pr.changed])
    env = action_env(ws, server, tmp / "runner", working_directory="checkout")
    pr_event(env.event, pr)
    ran = run_action(env, fake)
    assert list(methods(pr.repo)) == ["specs/inc.dfy:Inc"]  # the paths of the pull request, in the checkout
    assert ran.outputs["report-json"] == "checkout/dafny-spec-score.json"
    assert ran.outputs["sarif-file"] == "checkout/dafny-spec-score.sarif"
    # code scanning's paths are the repository's: from the checkout (upload-sarif's `checkout_path`)
    sarif = json.loads((pr.repo / "dafny-spec-score.sarif").read_text())
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]} \
        == {"specs/inc.dfy"}
    assert not (ws / "dafny-spec-score.json").exists()
    # the config file is the checkout's; the pull request does not change it, so it applies
    assert "::warning::the pull request changes" not in ran.log, ran.log
    assert ran.code == EXIT_FAILED and ran.outputs["passed"] == "false", ran.log


def test_without_the_fake_the_engine_needs_dafny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The PATH the tests use has no `dafny`: the real engine factory cannot start one."""
    git_path = shutil.which("git")
    assert git_path is not None
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "git").symlink_to(git_path)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    with pytest.raises(VerifierNotFound):
        action.make_engine(Config(cache_dir=str(tmp_path / "cache")))


def _main_in_this_process(env: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[io.StringIO, Path]:
    """The Action's environment for `action.main()` here: its log and its (empty) step summary."""
    for name in [n for n in os.environ if n.startswith(("INPUT_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    for name, value in env.vars.items():
        monkeypatch.setenv(name, value)
    stdout = io.StringIO()
    monkeypatch.setattr("sys.stdout", stdout)
    summary = Path(env.vars["GITHUB_STEP_SUMMARY"])
    summary.write_text("")
    return stdout, summary


def test_an_unexpected_exception_fails_the_check_with_the_summary_written(
        tmp_path: Path, github_server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, env = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})

    def boom(*args: object) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(action, "run", boom)
    stdout, summary = _main_in_this_process(env, monkeypatch)
    assert action.main() == EXIT_USAGE
    assert "::error::dafny-spec-score failed: RuntimeError: disk on fire" in stdout.getvalue()
    assert "failed" in summary.read_text() and "disk on fire" in summary.read_text()


@pytest.mark.parametrize(("sent", "word", "code"), [(signal.SIGTERM, "terminated", EXIT_TERMINATED),
                                                     (signal.SIGINT, "interrupted", EXIT_INTERRUPTED)])
def test_a_stopped_run_fails_the_check_saying_so(
        sent: signal.Signals, word: str, code: int,
        tmp_path: Path, github_server: Any, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancelled job's SIGINT, or the SIGTERM after it (bot/signals.py), mid-run: the step fails, one line."""
    ran, _, env = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK})
    missed: list[int] = []

    def stopped(*args: object) -> int:
        os.kill(os.getpid(), sent)  # the handler main installs raises here
        time.sleep(5)
        return EXIT_OK

    monkeypatch.setattr(action, "run", stopped)
    stdout, summary = _main_in_this_process(env, monkeypatch)
    # a SIGTERM that main does not handle comes here, not to pytest's default (which would end the worker)
    before = signal.signal(signal.SIGTERM, lambda *a: missed.append(1))
    try:
        assert action.main() == code
    finally:
        signal.signal(signal.SIGTERM, before)
    assert not missed
    line = f"::error::dafny-spec-score was {word} before it finished: the step fails"
    assert stdout.getvalue().count(line) == 1
    assert "failed" in summary.read_text() and f"{word} before it finished" in summary.read_text()


def test_a_failing_file_listing_leaves_the_earlier_review_comments_alone(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    # hostile review: without GitHub's diff nothing is placeable; the earlier comments still apply and must
    # neither be deleted nor (answered) be marked "resolved: no longer finds this"
    ran, pr, env = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                          patches=True)
    assert ran.code == EXIT_OK, ran.log
    (inline,) = github_server.review_comments_on(REPO, PR)
    github_server.add_review_comment(REPO, PR, "alice", "why?", inline.path, inline.line, in_reply_to_id=inline.id)
    github_server.fail("GET", r".*/pulls/7/files", 404, times=None)
    again = run_action(env, fake)
    assert again.code == EXIT_OK, again.log
    assert "using git diff instead" in again.log
    kept = next(c for c in github_server.review_comments_on(REPO, PR) if c.id == inline.id)
    assert kept.body == inline.body and "Resolved" not in kept.body


def test_a_token_that_comments_but_cannot_review_is_not_told_its_comment_was_saved(
    tmp_path: Path, github_server: Any, fake: Fake
) -> None:
    # hostile review: the summary comment was posted, yet the log said the token cannot comment and the
    # comment was saved for the fork recipe
    github_server.fail("POST", r".*/pulls/7/reviews", 403, times=None)
    ran, pr, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG}, {"specs/inc.dfy": WEAK},
                        patches=True)
    assert ran.code == EXIT_OK, ran.log
    assert len(comments(github_server)) == 1
    assert "The token cannot comment on this pull request" not in ran.log
    assert "::warning::the review comments could not be placed" in ran.log and "pull-requests: write" in ran.log


def test_a_broken_test_file_for_a_spec_without_other_tests_fails_the_check(tmp_path: Path, github_server: Any,
                                                                         fake: Fake) -> None:
    """The pull request adds a test file that is not valid TOML for a spec with no other tests: nothing is scored,
    and that is no pass: the method its cases were for cannot be scored, and the line is said at the top."""
    untested = spec(tests=False)
    broken = 'method = "Inc"\n[[case]\nargs = ["1"]\n'
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": untested},
                       {"specs/inc.dfy": untested, "specs/inc.tests.toml": broken})
    assert ran.code == EXIT_FAILED, ran.log
    body = comments(github_server)[0].body
    assert "<code>specs/inc.tests.toml</code> line 2: not valid TOML" in body, body
    assert "**The check fails on 1 finding:**\n- specs/inc.dfy: Inc: method cannot be scored" in body, body
    assert "how its postcondition relates" not in body  # only its tests changed: no spec change to relate


def test_a_test_case_for_a_method_no_spec_declares_fails_the_check(tmp_path: Path, github_server: Any,
                                                                  fake: Fake) -> None:
    """A case naming a method the spec file lacks is carried by no job: said, and the check fails on it."""
    tests = 'method = "Missing"\n[[case]]\nargs = ["1"]\nexpected = "2"\n'
    ran, _, _ = pr_run(tmp_path, github_server, fake, {"specs/inc.dfy": STRONG},
                       {"specs/inc.dfy": STRONG, "specs/inc.tests.toml": tests})
    assert ran.code == EXIT_FAILED, ran.log
    body = comments(github_server)[0].body
    assert UNREAD_CASE in body, body
