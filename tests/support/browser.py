"""Headless Chromium for the tests that look at a page the way a reader does (scripts/setup.sh installs it)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--mute-audio"]


def on_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if on_ci():
        pytest.fail("CI=true but chromium is not installed: run scripts/setup.sh", pytrace=False)
    pytest.skip("chromium is not installed (scripts/setup.sh installs it for development)")


def measured(page: Path, profile: Path, width: int = 1000, height: int = 2000) -> Any:
    """The JSON a page's own script wrote into its <title> once laid out (read from Chromium's dumped DOM)."""
    run = subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    found = re.search(r"<title>(.*?)</title>", run.stdout, re.S)
    assert found is not None, run.stdout[:2000]
    return json.loads(html.unescape(found.group(1)))
