"""The hostile battery (battery.py beside this file) as tests: every hostile pull request, crafted file and verifier
fault is handled by the checkout's code (or by `--hostile-tree PATH`'s, to measure an older checkout).

Marked `hostile` and left out of the default run (pyproject's `addopts`): about three minutes of end-to-end runs of
the Action with the real verifier. Run with `python3 -m pytest -m hostile`."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hostile import battery
from support.paths import ROOT

pytestmark = [pytest.mark.dafny, pytest.mark.hostile]


@pytest.fixture(scope="session")
def sandbox_root(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 dafny_command: str) -> tuple[Path, Path, str, Path, ModuleType]:
    """The tree's code copied once (edits made while the battery runs do not mix in), a cache shared by the inputs,
    the real `dafny`, the fake GitHub's module."""
    option: Any = request.config.getoption("--hostile-tree")
    tree = Path(option or ROOT).resolve()
    if not (tree / "entrypoint.py").is_file() or not (tree / "bot").is_dir():
        pytest.fail(f"--hostile-tree {tree}: not a checkout of this project (no entrypoint.py and bot/)")
    root = tmp_path_factory.mktemp("hostile")
    code = battery.snapshot(tree, root / "tree")
    real = shutil.which("dafny")
    assert real is not None
    return code, root, real, root / "cache", battery.load_fakegithub()


@pytest.mark.parametrize("item", battery.BATTERY, ids=[f"{i.category}/{i.name}" for i in battery.BATTERY])
def test_the_hostile_input_is_handled(item: battery.Input, sandbox_root: tuple[Path, Path, str, Path, ModuleType]
                                      ) -> None:
    code, root, real, cache, fakegithub = sandbox_root
    result = battery.run_one(item, code, root, real, cache, fakegithub)
    assert result.handled and not result.battery_error, f"{result.detail}\n{battery.last_lines(result.log, 20)}"
