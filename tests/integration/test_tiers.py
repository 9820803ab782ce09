"""The test tiers: the README's command leaves out the slow, hostile and image tiers, .ci/run runs every one of them
after it, and each slow test named in tests/conftest.py exists and says why it is slow."""

from __future__ import annotations

import ast
import re
import tomllib
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from support.paths import ROOT, load_module

LEFT_OUT = ["slow", "hostile", "image"]  # in the order .ci/run runs them


def _conftest() -> ModuleType:
    return load_module("tiers_conftest", ROOT / "tests" / "conftest.py")


def test_every_slow_entry_names_a_test_and_says_why() -> None:
    slow = _conftest().SLOW
    assert slow
    for name, why in slow.items():
        path, _, test = name.partition("::")
        source = ROOT / path
        assert source.is_file(), name
        assert why.strip() and "\n" not in why, name
        if test:
            tree = ast.parse(source.read_text(encoding="utf-8"))
            assert test in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, name


def test_the_longest_tests_are_started_first_and_the_rest_keep_their_order() -> None:
    conftest = _conftest()
    for name in conftest.FIRST:  # each names a test that exists
        path, _, test = name.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert test in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, name
    long = conftest.FIRST[-1]
    items: list[Any] = [_Item("tests/a.py::one"), _Item(long), _Item("tests/a.py::two", "dafny")]
    conftest.pytest_collection_modifyitems(items)
    assert [i.nodeid for i in items] == [long, "tests/a.py::one", "tests/a.py::two"]


def test_the_default_run_leaves_out_the_named_tiers_and_ci_runs_them_all() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-m 'not hostile and not slow and not image'" in options["addopts"]
    assert {m.split(":")[0] for m in options["markers"]} >= {"dafny", *LEFT_OUT}
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    tiers = re.findall(r"^tier (\w+) (.*)$", ci, re.M)
    assert tiers == [("readme", "bash -c 'bash scripts/setup.sh && python3 -m pytest -n auto'"),
                     *[(m, f"python3 -m pytest -m {m}") for m in LEFT_OUT]]
    # pytest's "no test collected" (exit 5) is a failure of the tier, not a pass
    assert '"$code" -eq 5' in ci and "exit 1" in ci


def test_the_readme_says_which_command_runs_which_tier() -> None:
    development = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Development\n", 1)[1].split("\n## ")[0]
    quick = 'python3 -m pytest -n auto -m "not dafny"'
    tiers = [f"python3 -m pytest -m {m}" for m in LEFT_OUT]
    for command in ["python3 -m pytest -n auto ", quick, *tiers, "bash .ci/run"]:
        assert command in development, command


class _Item:
    """What a collection hook reads of a test: its node id and markers."""

    def __init__(self, nodeid: str, *markers: str) -> None:
        self.nodeid, self.markers = nodeid, set(markers)

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.markers else None


class _Config:
    def __init__(self, markexpr: str) -> None:
        self.markexpr, self.deselected = markexpr, []
        self.hook = SimpleNamespace(pytest_deselected=lambda items: self.deselected.extend(items))

    def getoption(self, name: str) -> str:
        assert name == "markexpr"
        return self.markexpr


@pytest.mark.parametrize(("markexpr", "kept"), [
    ("not dafny", ["quick", "verifier"]),  # the quick tier (pytest's -m then leaves out "verifier")
    ("not hostile and not slow and not image", ["quick", "verifier", "image"]),  # addopts': pytest's -m decides
    ("image", ["quick", "verifier", "image"]),
    ("", ["quick", "verifier"]),
])
def test_the_image_tier_runs_only_when_its_marker_is_named(markexpr: str, kept: list[str]) -> None:
    """`-m` on the command line replaces addopts' `-m`: the image tier's tests still run only when asked for."""
    items: list[Any] = [_Item("quick"), _Item("verifier", "dafny"), _Item("image", "image")]
    config = _Config(markexpr)
    load_module("image_conftest", ROOT / "tests" / "image" / "conftest.py").pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == kept
    assert [i.nodeid for i in config.deselected] == ([] if "image" in kept else ["image"])
