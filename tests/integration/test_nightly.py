"""The nightly audit recipe (examples/nightly-audit.yml, shown in the README): the workflow file holds every
piece, and its shard and merge steps, run night after night against the local fake GitHub, keep one
tracking issue up to date.

The steps run as the Action runs them: `bot.github.action.run` in process, with the inputs the workflow file gives
(its `${{ }}` expressions resolved as the runner would), over a copy of the audit fixture
(tests/data/audit). The verifier is the fake backend of tests/integration/test_action_inprocess.py (its `// fake:`
markers decide the verdicts): the real one takes minutes for the four tasks on a busy machine, three
nights over. GitHub's own steps (cache, artifacts, `gh run list`) are done here by copying folders.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.github import action
from bot.github.action import EXIT_OK, tracking_marker
from bot.github.tracking import LAST_RUN_TAG, NO_BASELINE
from support import inprocess
from support.paths import DATA, ROOT

WORKFLOW = ROOT / "examples" / "nightly-audit.yml"
FIXTURE = DATA / "audit"
# the README's and the recipe's `uses:` (tests/integration/test_release.py)
ACTION = "dafny-spec-score/dafny-spec-score@main"
IN_CONTAINER = "/github/workspace"




# -- the workflow file ---------------------------------------------------------------------------


def workflow() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return doc


def triggers(doc: dict[str, Any]) -> dict[str, Any]:
    on: dict[str, Any] = doc["on"] if "on" in doc else doc[True]  # YAML 1.1 reads a bare `on` as true
    return on


def steps_using(job: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(prefix)]


def action_step(job: dict[str, Any]) -> dict[str, Any]:
    (step,) = steps_using(job, ACTION)
    return step


_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def resolve(text: str, values: dict[str, str]) -> str:
    """`${{ name }}` expressions replaced by `values`; one the test does not know fails it."""

    def value(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            pytest.fail(f"the workflow uses `{m.group(0)}`, which this test does not resolve")
        return values[m.group(1)]

    return _EXPRESSION.sub(value, text)


def test_the_workflow_file_has_every_piece_of_the_recipe() -> None:
    doc = workflow()
    on = triggers(doc)
    assert re.fullmatch(r"(\S+\s+){4}\S+", on["schedule"][0]["cron"])  # a cron line of five fields
    assert "workflow_dispatch" in on
    jobs = doc["jobs"]
    shard, merge = jobs["shard"], jobs["merge"]
    # the shards: a matrix, the verifier cache kept between nights, the Action on one shard each
    assert shard["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    (cache,) = steps_using(shard, "actions/cache@")
    assert "hashFiles('dataset/**')" in cache["with"]["key"] and "seed0" in cache["with"]["key"]
    assert cache["with"]["restore-keys"].strip()
    assert cache["with"]["path"] == "spec-score-cache"
    assert shard["env"]["DAFNY_SPEC_SCORE_CACHE"] == f"{IN_CONTAINER}/spec-score-cache"
    inputs = action_step(shard)["with"]
    assert (inputs["mode"], inputs["audit-shard"]) == ("audit", "${{ matrix.shard }}/4")
    (upload,) = steps_using(shard, "actions/upload-artifact@")
    assert upload["with"]["path"] == "spec-score-cache"
    # the merge: every shard's cache, last night's results, the Action with the baseline and the issue
    assert merge["needs"] == "shard"
    assert merge["permissions"] == {"contents": "read", "actions": "read", "issues": "write"}
    caches, previous = steps_using(merge, "actions/download-artifact@")
    assert caches["with"]["pattern"] == "spec-score-cache-*" and caches["with"]["merge-multiple"] is True
    assert previous["with"]["name"] == "audit-results"
    assert previous["with"]["run-id"] == "${{ steps.previous.outputs.run-id }}"
    assert previous["with"]["github-token"] == "${{ github.token }}"
    assert previous.get("continue-on-error") is True  # an expired artifact: a night without a baseline
    find = next(s for s in merge["steps"] if s.get("id") == "previous")
    assert "gh run list" in find["run"] and "--status success" in find["run"] and "nightly-audit.yml" in find["run"]
    inputs = action_step(merge)["with"]
    assert inputs["audit-baseline"] == "${{ steps.baseline.outputs.path }}"
    assert inputs["audit-issue"] and inputs["audit-fail-on"] == "new-disagreement"
    (results,) = steps_using(merge, "actions/upload-artifact@")
    assert results["with"]["name"] == "audit-results" and results["with"]["path"].rstrip("/") == inputs["audit-out"]
    assert results["if"] == "${{ !cancelled() }}"  # a failed night's results are kept too


def test_the_readme_shows_the_recipe() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Nightly audits and larger datasets", 1)[1].split("\n### ", 1)[0]
    assert "examples/nightly-audit.yml" in section
    # the README's copy of the workflow is the file itself
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None and block.group(1) == WORKFLOW.read_text(encoding="utf-8")


# -- the recipe, night after night ---------------------------------------------------------------


@dataclass
class GitHubActions:
    """What GitHub keeps between jobs and nights: shard caches (actions/cache), artifacts, run results."""

    tmp: Path
    server: Any
    fake: Any
    caches: dict[int, Path] = field(default_factory=dict)
    successful_results: Path | None = None  # `audit-results` of the last successful night

    def dataset(self) -> Path:
        return self.tmp / "repo" / "dataset"

    def env(self, job: dict[str, Any], workspace: Path, runner: Path, night: int, values: dict[str, str]) -> Any:
        inputs = {k: resolve(str(v), values) for k, v in action_step(job)["with"].items()}
        env = inprocess.action_env(workspace, self.server, runner, **inputs)
        env.vars.update(GITHUB_EVENT_NAME="schedule", GITHUB_RUN_ID=str(100 + night), GITHUB_SHA=f"{night:040x}")
        for name, value in job.get("env", {}).items():  # the container sees the workspace at /github/workspace
            env.vars[name] = str(value).replace(IN_CONTAINER, str(workspace))
        return env

    def checkout(self, workspace: Path) -> None:
        shutil.copytree(self.dataset(), workspace / "dataset")

    def night(self, n: int) -> Any:
        """The workflow's two jobs, as the runner would run them; returns the merge step's run."""
        doc = workflow()
        shard_job, merge_job = doc["jobs"]["shard"], doc["jobs"]["merge"]
        artifacts = self.tmp / f"night{n}" / "artifacts"
        for k in shard_job["strategy"]["matrix"]["shard"]:
            ws = self.tmp / f"night{n}" / f"shard{k}"
            self.checkout(ws)
            cache = ws / "spec-score-cache"
            if k in self.caches:  # actions/cache: last night's programs, restored
                shutil.copytree(self.caches[k], cache)
            env = self.env(shard_job, ws, self.tmp / f"night{n}" / f"runner{k}", n, {"matrix.shard": str(k)})
            ran = inprocess.run_action(env, self.fake)
            assert ran.code == EXIT_OK, ran.log
            self.caches[k] = self.tmp / "actions-cache" / f"night{n}-shard{k}"  # saved for tomorrow
            shutil.copytree(cache, self.caches[k])
            shutil.copytree(cache, artifacts / f"spec-score-cache-{k}")  # upload-artifact
        ws = self.tmp / f"night{n}" / "merge"
        self.checkout(ws)
        for k in shard_job["strategy"]["matrix"]["shard"]:  # download-artifact: pattern, merge-multiple
            shutil.copytree(artifacts / f"spec-score-cache-{k}", ws / "spec-score-cache", dirs_exist_ok=True)
        if self.successful_results is not None:  # gh run list found a run: download its audit-results
            shutil.copytree(self.successful_results, ws / "baseline")
        baseline = "baseline/results.json" if (ws / "baseline" / "results.json").is_file() else ""
        env = self.env(merge_job, ws, self.tmp / f"night{n}" / "runner-merge", n,
                       {"steps.baseline.outputs.path": baseline})
        calls = len(self.fake.backend.calls)
        ran = inprocess.run_action(env, self.fake)
        assert len(self.fake.backend.calls) == calls, "the merge verified programs the shards had verified"
        upload = self.tmp / f"night{n}" / "audit-results"
        shutil.copytree(ws / "audit-out", upload)
        if ran.code == EXIT_OK:
            self.successful_results = upload
        return ran


def mark(path: Path, marker: str | None) -> None:
    """Put the fake verifier's marker at the top of a spec file (None: take it away)."""
    text = re.sub(r"\A// fake: \w+\n", "", path.read_text(encoding="utf-8"))
    path.write_text((f"// fake: {marker}\n" if marker else "") + text, encoding="utf-8")


def test_three_nights_keep_one_tracking_issue(
    tmp_path: Path, github_server: Any, fake: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = github_server
    server.add_repo(inprocess.REPO)
    marker = tracking_marker("default")
    # someone quotes the bot's issue in an issue of their own: it is never taken for the bot's
    theirs = server.add_issue(inprocess.REPO, "mallory", f"> {marker}\n> why is 234 wrong?", title="Question")
    gh = GitHubActions(tmp_path, server, fake)
    shutil.copytree(FIXTURE, gh.dataset())
    src = gh.dataset() / "DS" / "src"
    mark(src / "task_id_2.dfy", "weak")  # as the real verifier finds: labelled strong, scored weak
    mark(src / "task_id_234.dfy", "wrong")  # its test expects CubeVolume(5) == 25

    def night(n: int) -> Any:
        monkeypatch.setattr(action, "_now", lambda: datetime(2024, 5, n, 3, 17, tzinfo=UTC))
        return gh.night(n)

    # night 1: no baseline; the issue is created
    first = night(1)
    assert first.code == EXIT_OK, first.log
    assert "audit-fail-on new-disagreement compares with a baseline, and audit-baseline is empty" in first.log
    (issue,) = [i for i in server.issues_in(inprocess.REPO) if i.number != theirs.number]
    assert issue.title == "Nightly spec audit" and issue.labels == ["spec-audit"]
    assert issue.user == server.login and issue.body.startswith(marker)
    assert NO_BASELINE in issue.body
    assert "### Task 234: <code>CubeVolume</code> (labelled strong, scored wrong)" in issue.body
    assert "**Coverage:** 3 of 4 tasks evaluated (75%). **Agreement:** 0 of 2 labelled tasks (0%)." in issue.body
    assert "```mermaid" in issue.body
    assert f"tracking issue created: {server.url}/{inprocess.REPO}/issues/{issue.number}" in first.log
    assert f"Tracking issue: [#{issue.number}]" in first.summary

    # night 2: the test's expected value is fixed (CubeVolume(5) is 125); the same issue shows the change
    test_file = gh.dataset() / "DS" / "test" / "task_id_234.dfy"
    test_file.write_text(test_file.read_text().replace("out3==25", "out3==125"))
    mark(src / "task_id_234.dfy", None)  # the fake verifier reads its marker, not the test
    second = night(2)
    assert second.code == EXIT_OK, second.log
    assert [i.number for i in server.issues_in(inprocess.REPO)] == [theirs.number, issue.number]
    assert "| 234 | strong | wrong | strong |" in issue.body  # Verdicts changed: task, label, baseline, now
    assert "**Disagreements fixed**" in issue.body
    assert "Task 234" not in issue.body.split("## Disagreements")[1]
    assert "**Agreement:** 1 of 2 labelled tasks (50%)" in issue.body
    assert "2024-05-02 03:17 UTC" in issue.body and "changes since the baseline below" in issue.body
    assert "since the baseline baseline/results.json: " in second.log and "tracking issue updated" in second.log
    night_2_body = issue.body

    # night 3: nothing changed; only the last-run line is written
    third = night(3)
    assert third.code == EXIT_OK, third.log
    before, after = night_2_body.splitlines(), issue.body.splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].startswith(LAST_RUN_TAG)
    assert "2024-05-03 03:17 UTC" in changed[0][1] and changed[0][1].endswith("no changes since the baseline.")
    assert "## Changes since the baseline (run of 2024-05-02 03:17 UTC)" in issue.body  # night 2's, kept

    # one issue written three times; the other one never touched
    assert len(server.requests_for("POST", rf"/repos/{inprocess.REPO}/issues")) == 1
    assert len(server.requests_for("PATCH", rf"/repos/{inprocess.REPO}/issues/\d+")) == 2
    assert theirs.body == f"> {marker}\n> why is 234 wrong?"
    assert not server.requests_for("PATCH", rf"/repos/{inprocess.REPO}/issues/{theirs.number}")
