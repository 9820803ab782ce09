"""The release: main's action.yml builds from source; .github/workflows/release.yml builds, smoke-tests and pushes the
image, then makes the release commit that pulls it by digest and moves the tags. Its shell steps run here as
scripts over copies of the files they read (a bare repository stands in for GitHub's); no Docker daemon is needed:
the smoke step's script runs against the installed package instead of the built image."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from support.paths import ROOT, load_module

RELEASE = ROOT / ".github" / "workflows" / "release.yml"
PINNED = re.compile(r"[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}  # v\d+(?:\.\d+)*")
DIGEST = "sha256:" + "0123456789abcdef" * 4


def _version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert isinstance(version, str)
    return version


def _home() -> str:
    """owner/name of the Action's repository, from pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        url = tomllib.load(f)["project"]["urls"]["Repository"]
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", url)
    assert match, url
    return match.group(1)


def _load(name: str) -> ModuleType:
    return load_module(f"dafny_spec_score_scripts_{name}", ROOT / "scripts" / f"{name}.py")


@pytest.fixture(scope="module")
def release() -> dict[Any, Any]:
    data = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _steps(release: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    steps = release["jobs"][job]["steps"]
    assert isinstance(steps, list)
    return steps


def _uses(release: dict[Any, Any], job: str, action: str) -> list[int]:
    """Indexes of the job's steps using this action (any ref)."""
    return [i for i, s in enumerate(_steps(release, job)) if s.get("uses", "").split("@")[0] == action]


def _run_step(release: dict[Any, Any], job: str, name_part: str) -> str:
    (step,) = [s for s in _steps(release, job) if name_part in s.get("name", "")]
    script = step["run"]
    assert isinstance(script, str)
    return script


# --- main builds from source; no placeholder anywhere ------------------------------------------------------------


def test_mains_action_yml_builds_the_dockerfile() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"] == {**action["runs"], "using": "docker", "image": "Dockerfile"}
    assert (ROOT / "Dockerfile").is_file()


def _tracked_files() -> list[Path]:
    if not (ROOT / ".git").exists():  # an export without its history: every file
        return [p for p in ROOT.rglob("*") if p.is_file()]
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True)
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_owner_placeholder_remains_anywhere() -> None:
    placeholder = re.compile(r"\b" + "OWN" + r"ER\b")  # spelled apart so this file is not a hit itself
    hits = []
    for path in _tracked_files():
        if path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(text.splitlines(), 1)
                 if placeholder.search(line)]
    assert hits == []


def test_every_use_of_the_action_names_its_home_at_main() -> None:
    texts = [(ROOT / "README.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.yml"))]
    refs = [ref for text in texts for ref in re.findall(r"uses: ([^\s`]+/dafny-spec-score@[^\s`]+)", text)]
    assert len(refs) >= 6
    assert set(refs) == {f"{_home()}@main"}


def test_third_party_actions_are_pinned_by_commit_with_their_version() -> None:
    files = [ROOT / "action.yml", ROOT / "README.md", *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
             *sorted((ROOT / "examples").glob("*.yml"))]
    seen = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*(?:- )?uses: (.*)$", line)
            if m is None or m.group(1).startswith(f"{_home()}@"):
                continue
            seen += 1
            assert PINNED.match(m.group(1)), f"{path.name}: {line.strip()}"
    assert seen >= 15


# --- the release workflow ----------------------------------------------------------------------------------------


def test_release_runs_on_version_tags_with_least_privilege(release: dict[Any, Any]) -> None:
    on = release.get("on", release.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on == {"push": {"tags": ["v*.*.*"]}}
    assert release["permissions"] == {}
    image, rel = release["jobs"]["image"], release["jobs"]["release"]
    assert image["permissions"] == {"contents": "read", "packages": "write"}
    assert rel["permissions"] == {"contents": "write"} and rel["needs"] == "image"
    assert image["outputs"]["digest"] == "${{ steps.push.outputs.digest }}"
    assert image["outputs"]["image"] == "${{ steps.version.outputs.image }}"
    # only the job that pushes tags keeps the token in .git/config; both see the history (default branch, tags)
    for job, persist in (("image", False), ("release", True)):
        (checkout,) = _uses(release, job, "actions/checkout")
        assert _steps(release, job)[checkout]["with"] == {"fetch-depth": 0, "persist-credentials": persist}


def test_release_pushes_the_image_it_smoke_tested(release: dict[Any, Any]) -> None:
    steps = _steps(release, "image")
    (build,) = _uses(release, "image", "docker/build-push-action")
    (login,) = _uses(release, "image", "docker/login-action")
    assert steps[build]["with"].get("load") is True and "push" not in steps[build]["with"]
    assert steps[build]["with"]["tags"] == "${{ env.SMOKE_TAG }}"
    smoke = [i for i, s in enumerate(steps) if "scripts/smoke.py" in s.get("run", "")]
    push = [i for i, s in enumerate(steps) if s.get("id") == "push"]
    assert smoke and push and build < smoke[0] < login < push[0]
    assert 'docker run --rm -v "$PWD/smoke:/smoke" --entrypoint python3 "$SMOKE_TAG"' in steps[smoke[0]]["run"]
    assert "/app/examples/shared_elements.dfy" in steps[smoke[0]]["run"]
    assert re.search(r"^COPY examples /app/examples$", (ROOT / "Dockerfile").read_text(), re.M)
    assert steps[login]["with"] == {"registry": "ghcr.io", "username": "${{ github.actor }}",
                                    "password": "${{ secrets.GITHUB_TOKEN }}"}
    # the tested build itself is tagged and pushed (no second build), and its registry digest is the output
    script = steps[push[0]]["run"]
    assert 'docker tag "$SMOKE_TAG" "$IMAGE:$TAG"' in script and 'docker push "$IMAGE:$TAG"' in script
    assert "docker inspect --format '{{index .RepoDigests 0}}'" in script
    assert 'echo "digest=${pushed#*@}" >> "$GITHUB_OUTPUT"' in script


def test_the_image_job_refuses_a_tag_off_the_default_branch(release: dict[Any, Any], tmp_path: Path) -> None:
    repo = _project_copy(tmp_path / "repo")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "main")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    _git(repo, "checkout", "-q", "-b", "side")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "not on main")
    code, log, values = _check(release, repo, f"v{_version()}", "o", sha=_git(repo, "rev-parse", "HEAD"))
    assert code == 1 and "is not on main" in log and values == {}


def _project_copy(tmp: Path) -> Path:
    """The files the release steps read, in a folder of their own."""
    (tmp / "bot").mkdir(parents=True)
    (tmp / "scripts").mkdir()
    for name in ("pyproject.toml", "action.yml", "bot/__init__.py", "scripts/release.py"):
        shutil.copy(ROOT / name, tmp / name)
    return tmp


def _check(release: dict[Any, Any], repo: Path, tag: str, owner: str, sha: str = "") -> tuple[int, str, dict[str, str]]:
    """The image job's check step in `repo` (a git repository whose `origin/main` holds `sha`, made here when not
    given)."""
    if not sha:
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "main")
        _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
        sha = _git(repo, "rev-parse", "HEAD")
    output = repo.parent / "github_output"
    output.write_text("")
    env = {**os.environ, "GITHUB_REF_NAME": tag, "GITHUB_REPOSITORY_OWNER": owner, "GITHUB_OUTPUT": str(output),
           "GITHUB_SHA": sha, "DEFAULT_BRANCH": "main"}
    proc = subprocess.run(["bash", "-c", _run_step(release, "image", "Check the tag")], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    values = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc.returncode, proc.stdout + proc.stderr, values


def test_check_names_the_image_after_the_owner_in_lowercase(release: dict[Any, Any], tmp_path: Path) -> None:
    tag = f"v{_version()}"
    code, log, values = _check(release, _project_copy(tmp_path / "repo"), tag, "Some-Owner")
    assert code == 0, log
    assert values == {"image": "ghcr.io/some-owner/dafny-spec-score", "tag": tag, "major": tag.split(".")[0]}


def test_check_refuses_another_tag(release: dict[Any, Any], tmp_path: Path) -> None:
    code, log, values = _check(release, _project_copy(tmp_path / "a"), "v999.0.0", "some-owner")
    assert code == 1 and "::error::tag v999.0.0 is not v + the package version" in log
    assert values == {}
    code, log, values = _check(release, _project_copy(tmp_path / "b"), f"v{_version()}rc1", "some-owner")
    assert code == 1 and "is not vX.Y.Z" in log and "Traceback" not in log and values == {}


def test_the_major_tag_moves_only_to_the_newest_release_of_its_line() -> None:
    release = _load("release")
    tags = ["v1.0.0", "v1.2.0", "v1.0.5", "v2.0.0", "v1.10.0-rc", "other"]
    assert release.is_latest("v1.2.1", tags) and release.is_latest("v1.10.0", tags)
    assert not release.is_latest("v1.0.6", tags) and release.is_latest("v2.0.0", tags)
    assert release.is_latest("v3.0.0", tags)


def test_check_refuses_a_tag_on_a_release_commit(release: dict[Any, Any], tmp_path: Path) -> None:
    repo = _project_copy(tmp_path / "repo")
    action = repo / "action.yml"
    action.write_text(_load("release").pin(action.read_text(), f"ghcr.io/o/dafny-spec-score@{DIGEST}"))
    code, log, values = _check(release, repo, f"v{_version()}", "o")
    assert code == 1 and "does not build from source" in log and values == {}


def test_pin_changes_only_the_image_line_and_refuses_what_is_not_a_digest() -> None:
    release = _load("release")
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    pinned = release.pin(text, f"ghcr.io/some-owner/dafny-spec-score@{DIGEST}")
    changed = [(a, b) for a, b in zip(text.splitlines(), pinned.splitlines(), strict=True) if a != b]
    assert changed == [("  image: Dockerfile", f"  image: docker://ghcr.io/some-owner/dafny-spec-score@{DIGEST}")]
    assert yaml.safe_load(pinned)["runs"]["image"] == f"docker://ghcr.io/some-owner/dafny-spec-score@{DIGEST}"
    for bad in ("ghcr.io/some-owner/dafny-spec-score:v0.1.0", "ghcr.io/Some-Owner/dafny-spec-score@" + DIGEST,
                "ghcr.io/o/other@" + DIGEST, f"ghcr.io/o/dafny-spec-score@{DIGEST}\n  evil: 1"):
        with pytest.raises(release.ReleaseError):
            release.pin(text, bad)
    with pytest.raises(release.ReleaseError, match="no single"):
        release.pin(pinned, f"ghcr.io/o/dafny-spec-score@{DIGEST}")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def test_the_release_job_commits_the_digest_and_moves_both_tags(release: dict[Any, Any], tmp_path: Path) -> None:
    tag = f"v{_version()}"
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = _project_copy(tmp_path / "work")
    _git(work, "init", "-q", "-b", "main")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "source")
    source = _git(work, "rev-parse", "HEAD")
    _git(work, "tag", tag)
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "-q", "origin", "main", tag)
    # what actions/checkout leaves for a tag push: a detached head at the tag
    runner = tmp_path / "runner"
    _git(tmp_path, "clone", "-q", str(origin), str(runner))
    _git(runner, "checkout", "-q", "--detach", tag)
    bin_dir, gh_log, env_file, summary = tmp_path / "bin", tmp_path / "gh.log", tmp_path / "env", tmp_path / "summary"
    bin_dir.mkdir()
    gh = bin_dir / "gh"  # records the release it is asked to create
    gh.write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > {gh_log}\n')
    gh.chmod(0o755)
    image = "ghcr.io/some-owner/dafny-spec-score"
    env = {**os.environ, "GITHUB_REF_NAME": tag, "GITHUB_REPOSITORY": "Some-Owner/dafny-spec-score",
           "IMAGE": image, "DIGEST": DIGEST, "GITHUB_ENV": str(env_file), "GITHUB_STEP_SUMMARY": str(summary),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    for name in ("Commit action.yml", "Create the release"):
        if name == "Create the release":
            env.update(dict(line.split("=", 1) for line in env_file.read_text().splitlines()))
        proc = subprocess.run(["bash", "-e", "-c", _run_step(release, "release", name)], cwd=runner, env=env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    released = _git(origin, "rev-parse", f"{tag}^{{commit}}")
    assert released != source and _git(origin, "rev-parse", f"{released}^") == source
    assert _git(origin, "rev-parse", f"{tag.split('.')[0]}^{{commit}}") == released
    assert _git(origin, "rev-parse", "main") == source  # the release commit is on no branch
    assert _git(origin, "diff", "--name-only", source, released) == "action.yml"
    action = yaml.safe_load(_git(origin, "show", f"{released}:action.yml"))
    assert action["runs"]["image"] == f"docker://{image}@{DIGEST}"
    args = gh_log.read_text().splitlines()
    assert args[:4] == ["release", "create", tag, "--verify-tag"]
    notes = "\n".join(args)
    assert f"- uses: Some-Owner/dafny-spec-score@{released}  # {tag}" in notes and f"{image}@{DIGEST}" in notes
    assert released in summary.read_text()


# --- the smoke test, against the installed package ----------------------------------------------------------------


@pytest.mark.dafny
def test_the_smoke_script_passes_on_the_installed_package(dafny_command: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "smoke.py"), "--out", str(tmp_path),
                           "--example", str(ROOT / "examples" / "shared_elements.dfy"), "--", sys.executable],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^verifier \S+: cases \['verified', 'verified', 'verified'\], [1-9]\d* mutants killed$",
                     proc.stdout, re.M), proc.stdout


def test_the_smoke_check_fails_when_the_verifier_proved_nothing() -> None:
    smoke = _load("smoke")
    case = {"status": "verified", "mutants": [{"status": "killed"}]}
    good = {"verifier": {"version": "2.3"}, "methods": [{"correctness": 1.0, "cases": [case]}]}
    assert smoke.check_report(good) == "verifier 2.3: cases ['verified'], 1 mutants killed"
    for broken in ({**case, "status": "error"}, {**case, "mutants": [{"status": "unknown"}]}):
        with pytest.raises(AssertionError):
            smoke.check_report({**good, "methods": [{"correctness": 1.0, "cases": [broken]}]})


# --- the image is lean -------------------------------------------------------------------------------------------


def _ignored(path: str, rules: list[str]) -> bool:
    """Whether .dockerignore keeps `path` out of the build context (last matching rule wins; a rule matching a
    parent directory matches the files in it)."""

    def matches(pattern: str, candidate: str) -> bool:
        regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        return re.fullmatch(regex, candidate) is not None

    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for rule in rules:
        negated = rule.startswith("!")
        pattern = rule[1:] if negated else rule
        if any(matches(pattern, p) for p in prefixes):
            ignored = not negated
    return ignored


def test_dockerignore_sends_what_the_dockerfile_copies_and_nothing_else() -> None:
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            copied += line.split()[1:-1]
    assert copied
    for source in copied:
        files = [source] if (ROOT / source).is_file() else [
            p.relative_to(ROOT).as_posix() for p in (ROOT / source).rglob("*") if p.is_file()
            and "__pycache__" not in p.parts
        ]
        assert files, source
        for f in files:
            assert not _ignored(f, rules), f
    for kept_out in [".git/HEAD", "tests/integration/test_release.py", ".hypothesis/x", ".mypy_cache/x",
                     "bench/IMAGE.md", "bot/__pycache__/cli.cpython-311.pyc", "tests/hostile/battery.py",
                     "Dockerfile"]:
        assert _ignored(kept_out, rules), kept_out


def test_dockerfile_installs_no_recommends_and_keeps_no_caches() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    runs = [line[4:] for line in docker.replace("\\\n", " ").splitlines() if line.startswith("RUN ")]
    assert runs
    for run in runs:
        for install in re.findall(r"apt-get install[^&;]*", run):
            assert "--no-install-recommends" in install, install
        if "apt-get update" in run or "setup.sh" in run:
            assert "rm -rf /var/lib/apt/lists/*" in run, run
    assert "PIP_NO_CACHE_DIR=1" in docker
    assert not re.search(r"\b(build-essential|gcc|g\+\+|python3-dev)\b", docker)
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    (dafny,) = re.findall(r"apt-get install[^\n]*\bdafny\b[^\n]*", setup)
    assert "--no-install-recommends" in dafny
