"""GitHub Action glue (filled in by the pull-request mode)."""

from __future__ import annotations

import sys


def main() -> int:
    print("dafny-spec-score: the pull-request mode is not available yet; use `python -m bot score`.",
          file=sys.stderr)
    return 2
