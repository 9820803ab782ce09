"""The image tier: the Action's Docker image built from this checkout as the release builds it, then run.

`python3 -m pytest -m image` (left out of the default run: it builds an image, a few minutes; bench/IMAGE.md). The
build is `scripts/image.py build` (it starts an engine when none runs and builds a stand-in base where the public one
cannot be pulled); without an engine the tier fails in CI (`CI=true`) and skips elsewhere, with the reason. In the
built image: the release's own smoke step (.github/workflows/release.yml, run as written there), and the image's
entrypoint in `pr` mode on a pull request that weakens a spec, against the local fake GitHub, the container started
as the Actions runner starts a Docker action (workspace, event file and file commands mounted; action.yml's `env`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.e2e import MARKER, REPO
from support.outputs import outputs
from support.paths import ROOT

# the verifier runs (in the container): `-m "not dafny"` leaves the tier out as well
pytestmark = [pytest.mark.image, pytest.mark.dafny]

TAG = "dafny-spec-score:image-tier"
NO_ENGINE = 3  # scripts/image.py's exit code when no engine answers or can be started
TOKEN = "ghs_secret_token_value"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module")
def image() -> str:
    """The image built from this checkout (scripts/image.py build): its tag."""
    # the first build on a machine also debootstraps the stand-in base: minutes, not a hang
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "image.py"), "build", "--tag", TAG],
                          capture_output=True, text=True, timeout=3600, check=False)
    sys.stderr.write(done.stderr[-4000:])
    if done.returncode == NO_ENGINE:
        reason = done.stderr.strip().splitlines()[-1]
        if _in_ci():
            pytest.fail(f"CI=true but the image tier has no container engine: {reason}", pytrace=False)
        pytest.skip(f"no container engine: {reason}")
    if done.returncode != 0:
        pytest.fail(f"building the image failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}", pytrace=False)
    return TAG


def docker(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)


def test_the_image_keeps_no_build_tools_apt_lists_or_caches(image: str) -> None:
    listed = docker("run", "--rm", "--entrypoint", "sh", image, "-c",
                    "ls -A /var/lib/apt/lists /root/.cache 2>/dev/null; "
                    "for t in gcc cc make curl unzip wget; do command -v $t; done; echo end")
    assert listed.returncode == 0, listed.stderr
    # `lists/` keeps only apt's lock and empty partial/; nothing else is printed before `end`
    assert [line for line in listed.stdout.split() if line not in ("/var/lib/apt/lists:", "lock", "partial")] == \
        ["end"], listed.stdout
    info = docker("run", "--rm", "--entrypoint", "sh", image, "-c", "dafny /version; git --version")
    assert "Dafny 2.3" in info.stdout + info.stderr and "git version" in info.stdout, info


def test_the_release_smoke_step_passes_in_the_image(image: str, tmp_path: Path) -> None:
    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    (step,) = [s for s in release["jobs"]["image"]["steps"] if "scripts/smoke.py" in s.get("run", "")]
    script = step["run"]
    assert script.count("python3 scripts/smoke.py") == 1
    # the step as the release runs it, in a folder of its own: only the script's path is made absolute
    script = script.replace("python3 scripts/smoke.py", f"{sys.executable} {ROOT / 'scripts' / 'smoke.py'}")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "SMOKE_TAG": image}, timeout=1800, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # scripts/smoke.py's last line: every case verified, some mutant rejected, by Dafny 2.3 in the image
    assert done.stdout.strip().splitlines()[-1].startswith("verifier 2.3"), done.stdout
    assert json.loads((tmp_path / "smoke" / "report.json").read_text())["methods"][0]["correctness"] == 1.0


def _action_env(inputs: dict[str, str]) -> dict[str, str]:
    """What action.yml's `runs.env` sets: every input, its default unless the workflow gives it."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    env = {}
    for var, expression in action["runs"]["env"].items():
        name = expression.removeprefix("${{ inputs.").removesuffix(" }}")
        default = str(action["inputs"][name].get("default", ""))
        value = inputs.get(name, default)
        env[var] = TOKEN if value == "${{ github.token }}" else value
    return env


def test_the_image_gates_a_weakening_pull_request_against_the_local_github(
    image: str, github_server: Any, pr_repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, base, head = pr_repo
    github_server.add_pull(REPO, 7, base_sha=base, head_sha=head, files=[
        {"filename": "specs/shared.dfy", "status": "modified", "additions": 1, "deletions": 1}])
    workflow, files = tmp_path / "workflow", tmp_path / "file_commands"
    workflow.mkdir()
    files.mkdir()
    (workflow / "event.json").write_text(json.dumps({"number": 7, "pull_request": {
        "number": 7, "base": {"sha": base, "repo": {"full_name": REPO}},
        "head": {"sha": head, "repo": {"full_name": REPO}}}}))
    (files / "output").write_text("")
    (files / "summary").write_text("")
    env = {
        "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/output", "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "GITHUB_API_URL": github_server.url, "GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "42",
        **_action_env({"mode": "pr", "min-completeness": "0.9"}),
    }
    # as the runner starts a Docker action: the image's own entrypoint, the values passed by name (`-e NAME`, as the
    # runner does); the host's network, where the fake GitHub listens on 127.0.0.1
    run = subprocess.run(
        ["docker", "run", "--rm", "--network", "host", "--workdir", "/github/workspace",
         "-v", f"{repo}:/github/workspace", "-v", f"{workflow}:/github/workflow",
         "-v", f"{files}:/github/file_commands",
         *[a for name in env for a in ("-e", name)], image],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=1800, check=False)
    log = run.stdout + run.stderr
    assert TOKEN not in log
    assert run.returncode == 1, log  # the gate: completeness 0.60 < 0.90
    comments = github_server.comments_on(REPO, 7)
    assert len(comments) == 1, log
    body = comments[0].body
    assert body.startswith(MARKER) and f"/owner/specs/blob/{head}/specs/shared.dfy#L" in body
    # what tests/e2e/test_action_e2e.py finds in the comment of the same pull request run on this machine
    assert "failed" in body and "| 0.60 ▼0.40 |" in body and "got weaker (completeness 1.00 → 0.60)" in body, body
    assert "<code>[4]</code>" in body or "<code>[5]</code>" in body  # a surviving mutant: a dropped element
    # the verified fix: the converse clause, with what was proved of it
    assert "<code>ensures forall x :: InArray(a, x) &amp;&amp; InArray(b, x) ==&gt; x in result</code>" in body
    assert "pinned up to order" in body
    outs = outputs(files / "output")
    assert outs["passed"] == "false" and outs["regressions"] == "1"
    assert outs["correctness"] == "1.0000" and outs["completeness"] == "0.6000"
    assert "Dafny Spec Score" in (files / "summary").read_text()
    assert "::warning file=specs/shared.dfy,line=" in log
