"""Where the tests find the repository and their data."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
DATA = TESTS / "data"
GOLDEN = TESTS / "golden"
FAKE_DAFNY = TESTS / "fake_dafny"


def load_module(name: str, path: Path) -> ModuleType:
    """The Python file at `path` loaded as a module of its own, `name` (a script or conftest that is no package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
