"""The image tier runs only when a run's `-m` names it (`-m image`, .ci/run's `image` tier).

pyproject's `addopts` leaves it out with `-m '... and not image'`, but a `-m` on the command line replaces that one: the
quick tier's `-m "not dafny"` would otherwise run this folder's tests that start no verifier, among them two runs of
pytest in the tier's own setting (test_image_script.py), and stop being a part of the README's command."""

from __future__ import annotations

import re

import pytest

TIER = "image"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if re.search(rf"\b{TIER}\b", str(config.getoption("markexpr") or "")):
        return
    left_out = [item for item in items if item.get_closest_marker(TIER)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker(TIER)]
