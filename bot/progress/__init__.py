"""Progress on standard error, for a person to follow: `lines` says what a line holds (pure), `stream` writes it."""

from __future__ import annotations

from bot.progress.lines import MethodTally, Snapshot, Tally, audit_line, score_line
from bot.progress.stream import Live, Ticker, audit_progress, score_progress

__all__ = ["Live", "MethodTally", "Snapshot", "Tally", "Ticker", "audit_line", "audit_progress", "score_line",
           "score_progress"]
