"""The release: action.yml pulls the image that .github/workflows/release.yml builds and pushes for the package's
version, and the image is built lean. Fast: no docker; the workflow's version check runs as a shell script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

import bot

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
IMAGE = re.compile(r"docker://ghcr\.io/(?P<owner>[^/:\s]+)/(?P<name>[a-z0-9._-]+):(?P<tag>v[0-9][^\s]*)")
PLACEHOLDER = "OWNER"  # the README's `uses: OWNER/dafny-spec-score@...`; not a valid image name, so never pulled


def _version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert isinstance(version, str)
    return version


def _image() -> re.Match[str]:
    image = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["image"]
    match = IMAGE.fullmatch(image)
    assert match, f"action.yml runs.image is not a ghcr.io image: {image!r}"
    return match


@pytest.fixture(scope="module")
def release() -> dict[Any, Any]:
    data = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _steps(release: dict[Any, Any]) -> list[dict[str, Any]]:
    (job,) = release["jobs"].values()
    steps = job["steps"]
    assert isinstance(steps, list)
    return steps


def _step(release: dict[Any, Any], action: str) -> list[int]:
    """Indexes of the steps using this action (any version)."""
    return [i for i, s in enumerate(_steps(release)) if s.get("uses", "").split("@")[0] == action]


def test_the_image_tag_is_the_package_version() -> None:
    assert _image()["tag"] == f"v{_version()}" == f"v{bot.__version__}"


def test_the_image_owner_is_the_readmes() -> None:
    owner = _image()["owner"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    uses = set(re.findall(r"uses: ([^/\s]+)/dafny-spec-score@", readme))
    assert uses == {owner} or {u.lower() for u in uses} == {owner}, (uses, owner)
    # ghcr.io names are lowercase: a real owner is written in lowercase, the placeholder stays visible
    assert owner == PLACEHOLDER or re.fullmatch(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?", owner), owner


def test_release_runs_on_version_tags_with_package_write(release: dict[Any, Any]) -> None:
    on = release.get("on", release.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on == {"push": {"tags": ["v*.*.*"]}}
    assert release["permissions"] == {"contents": "read", "packages": "write"}


def test_release_uses_the_pinned_docker_actions(release: dict[Any, Any]) -> None:
    used = {s["uses"] for s in _steps(release) if "uses" in s}
    assert used == {
        "actions/checkout@v4",
        "docker/setup-buildx-action@v3",
        "docker/login-action@v3",
        "docker/build-push-action@v6",
    }
    (login,) = _step(release, "docker/login-action")
    assert _steps(release)[login]["with"] == {
        "registry": "ghcr.io",
        "username": "${{ github.actor }}",
        "password": "${{ secrets.GITHUB_TOKEN }}",
    }


def test_release_smoke_tests_before_it_pushes(release: dict[Any, Any]) -> None:
    steps = _steps(release)
    build, push = _step(release, "docker/build-push-action")
    (login,) = _step(release, "docker/login-action")
    assert steps[build]["with"].get("load") is True and "push" not in steps[build]["with"]
    assert steps[push]["with"]["push"] is True
    assert steps[build]["with"]["labels"] == steps[push]["with"]["labels"]  # the image tested is the one pushed
    smoke = [i for i, s in enumerate(steps) if "/app/examples/shared_elements.dfy" in s.get("run", "")]
    assert smoke and build < smoke[0] < login < push
    assert "--entrypoint python3" in steps[smoke[0]]["run"] and "-m bot score" in steps[smoke[0]]["run"]
    assert re.search(r"^COPY examples /app/examples$", (ROOT / "Dockerfile").read_text(), re.M)
    assert (ROOT / "examples" / "shared_elements.dfy").is_file()


def test_release_pushes_the_image_action_yml_pulls(release: dict[Any, Any]) -> None:
    steps = _steps(release)
    (_, push) = _step(release, "docker/build-push-action")
    tags = steps[push]["with"]["tags"].splitlines()
    assert tags == [
        "${{ steps.version.outputs.image }}:${{ steps.version.outputs.tag }}",
        "${{ steps.version.outputs.image }}:${{ steps.version.outputs.major }}",
    ]
    check = next(s for s in steps if s.get("id") == "version")["run"]
    assert f'image="ghcr.io/$owner/{_image()["name"]}"' in check


def _run_version_check(release: dict[Any, Any], tmp_path: Path, tag: str, owner: str,
                       image_owner: str) -> tuple[int, str, dict[str, str]]:
    """The workflow's version step, run by bash over a copy of the files it reads."""
    (tmp_path / "bot").mkdir()
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copy(ROOT / "bot" / "__init__.py", tmp_path / "bot")
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    (tmp_path / "action.yml").write_text(action.replace(f"ghcr.io/{_image()['owner']}/", f"ghcr.io/{image_owner}/"))
    output = tmp_path / "github_output"
    output.write_text("")
    script = next(s for s in _steps(release) if s.get("id") == "version")["run"]
    env = {**os.environ, "GITHUB_REF_NAME": tag, "GITHUB_REPOSITORY_OWNER": owner, "GITHUB_OUTPUT": str(output)}
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    values = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc.returncode, proc.stdout + proc.stderr, values


def test_version_check_passes_for_the_package_version(release: dict[Any, Any], tmp_path: Path) -> None:
    tag = f"v{_version()}"
    code, log, values = _run_version_check(release, tmp_path, tag, "Some-Owner", "some-owner")
    assert code == 0, log
    assert values == {"image": "ghcr.io/some-owner/dafny-spec-score", "tag": tag, "major": tag.split(".")[0]}


def test_version_check_refuses_another_tag(release: dict[Any, Any], tmp_path: Path) -> None:
    code, log, values = _run_version_check(release, tmp_path, "v999.0.0", "some-owner", "some-owner")
    assert code == 1 and "::error::tag v999.0.0 is not v + the package version" in log
    assert values == {}


def test_version_check_refuses_an_image_of_another_owner(release: dict[Any, Any], tmp_path: Path) -> None:
    # e.g. a release from a repository whose action.yml still says OWNER
    code, log, _ = _run_version_check(release, tmp_path, f"v{_version()}", "some-owner", PLACEHOLDER)
    assert code == 1 and "::error file=action.yml::" in log
    assert f"docker://ghcr.io/some-owner/dafny-spec-score:v{_version()}" in log


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
    for kept_out in [".git/HEAD", "tests/test_release.py", ".hypothesis/x", ".mypy_cache/x", "bench/IMAGE.md",
                     "bot/__pycache__/cli.cpython-311.pyc", "scripts/hostile_battery.py", "Dockerfile"]:
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


def test_the_readme_and_recipes_use_the_released_tag() -> None:
    from bot import __version__

    root = Path(__file__).resolve().parent.parent
    for path in (root / "README.md", root / "examples" / "nightly-audit.yml"):
        refs = set(re.findall(r"dafny-spec-score@(\S+)", path.read_text(encoding="utf-8")))
        assert refs == {f"v{__version__}"}, path
