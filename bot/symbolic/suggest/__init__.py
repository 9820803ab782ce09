"""Verified strengthening suggestions for weak specs."""
