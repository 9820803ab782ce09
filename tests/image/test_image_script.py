"""scripts/image.py without an engine: the Dockerfile's base stays the official image, only a package index a container
can reach is passed to the build, and where no engine can be started the tier fails in CI and skips elsewhere, with
the reason (the image tier itself: tests/image/test_image.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from support.paths import ROOT, load_module


def _image_script() -> ModuleType:
    return load_module("image_script", ROOT / "scripts" / "image.py")


def test_the_dockerfile_builds_on_the_official_base_unless_told_otherwise() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    assert re.findall(r"^ARG BASE_IMAGE=(.*)$", docker, re.M) == ["python:3.11-slim-bookworm"]
    assert re.findall(r"^FROM (.*)$", docker, re.M) == ["${BASE_IMAGE}"]
    assert _image_script().OFFICIAL_BASE == "python:3.11-slim-bookworm"
    # the package index is a build argument with no value in the file: no machine's index is written in it
    assert re.findall(r"^ARG (PIP_\w+)(.*)$", docker, re.M) == [("PIP_INDEX_URL", ""), ("PIP_EXTRA_INDEX_URL", "")]


def test_only_indexes_a_container_can_reach_become_build_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "https://index.example/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "file:///opt/local/simple https://mirror.example/simple")
    assert _image_script().pip_index_args() == [
        "--build-arg", "PIP_INDEX_URL=https://index.example/simple",
        "--build-arg", "PIP_EXTRA_INDEX_URL=https://mirror.example/simple"]
    monkeypatch.setenv("PIP_INDEX_URL", "file:///opt/local/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "file:///opt/other/simple")
    assert _image_script().pip_index_args() == []


def _without_docker(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds Python and nothing else: no `docker`, `dockerd` or `apt-get` to start one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "DOCKER_HOST")}
    return {**env, "PATH": str(bin_dir)}


def test_no_engine_is_exit_3_with_the_reason(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "image.py"), "engine"], env=_without_docker(tmp_path),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 3, done
    assert "no engine: no Docker engine answers and `dockerd` is not installed" in done.stderr


@pytest.mark.image  # two runs of pytest: in the image tier, not in the quick one
@pytest.mark.parametrize("ci", [True, False])
def test_without_an_engine_the_tier_fails_in_ci_and_skips_elsewhere(tmp_path: Path, ci: bool) -> None:
    env = _without_docker(tmp_path) | ({"CI": "true"} if ci else {})
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "image", "-rfs",
                           "tests/image/test_image.py::test_the_image_keeps_no_build_tools_apt_lists_or_caches"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    reason = "no Docker engine answers and `dockerd` is not installed"
    if ci:
        assert done.returncode == 1 and "1 error" in done.stdout, done.stdout
        assert f"CI=true but the image tier has no container engine: image: no engine: {reason}" in done.stdout
    else:
        assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout
        assert f"no container engine: image: no engine: {reason}" in done.stdout
