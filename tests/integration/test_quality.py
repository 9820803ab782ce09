"""Static checks run with the suite, so CI enforces them: mypy --strict on bot/ and bench/, ruff on everything,
the layer contract (import-linter) on bot/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_mypy_strict() -> None:
    r = run(sys.executable, "-m", "mypy")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff() -> None:
    if shutil.which("ruff") is None:
        pytest.fail("ruff is not installed: run scripts/setup.sh")
    r = run("ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("lint-imports") is None:
        pytest.fail("import-linter is not installed: run scripts/setup.sh")
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(["lint-imports", "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False, env=env)


def test_the_layer_contract_holds() -> None:
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout


def test_an_import_the_wrong_way_breaks_the_contract(tmp_path: Path) -> None:
    """The contract is no formality: the language layer importing the core fails it, naming the contract."""
    shutil.copytree(ROOT / "bot", tmp_path / "bot")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    lexer = tmp_path / "bot" / "dafny" / "lexer.py"
    lexer.write_text(lexer.read_text(encoding="utf-8") + "\nimport bot.symbolic.rounds  # noqa\n", encoding="utf-8")
    r = lint_imports(tmp_path)
    assert r.returncode != 0 and "BROKEN" in r.stdout, r.stdout + r.stderr
    assert "bot.dafny.lexer -> bot.symbolic.rounds" in r.stdout
