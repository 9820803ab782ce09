"""Small formatting helpers shared by the renderers. Pure code."""

from __future__ import annotations


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"
