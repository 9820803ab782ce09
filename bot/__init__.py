"""Dafny Spec Score: symbolic testing of Dafny specifications against example tests."""

from __future__ import annotations

__version__ = "0.1.0"
