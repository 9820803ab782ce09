"""The only reader of environment variables and configuration files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def default_cache_dir(env: Mapping[str, str]) -> str:
    if env.get("DAFNY_SPEC_SCORE_CACHE"):
        return env["DAFNY_SPEC_SCORE_CACHE"]
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "dafny-spec-score")


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def default_z3(env: Mapping[str, str]) -> str | None:
    """A z3 binary for Dafny 2.x to use instead of its own (scripts/setup.sh can provide one)."""
    return env.get("DAFNY_SPEC_SCORE_Z3") or None
