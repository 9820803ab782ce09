"""Every workflow the project ships or shows passes zizmor (GitHub Actions' security linter) at its default level:
action.yml, .github/workflows/*.yml, examples/*.yml and each YAML block of the README, extracted here. A finding
that is a false positive is suppressed inline, with the reason, where it occurs (`# zizmor: ignore[...]`).
Offline: no audit that needs the network runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.paths import ROOT

CONFIG = ROOT / ".github" / "zizmor.yml"
CHECKOUT = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683  # v4.2.2"


@pytest.fixture(scope="module")
def zizmor() -> str:
    found = shutil.which("zizmor")
    if found is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI=true but `zizmor` is not installed: run scripts/setup.sh", pytrace=False)
        pytest.skip("zizmor is not installed (scripts/setup.sh installs it)")
    return found


def readme_blocks() -> list[str]:
    """The README's fenced YAML blocks, in order."""
    return re.findall(r"^```yaml\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)


def audit(zizmor: str, files: list[Path]) -> tuple[int, list[dict[str, Any]]]:
    """zizmor's exit code and its findings (ignored ones left out), with the repository's config only; a file it
    cannot read as a workflow or an action fails the run instead of being skipped with a warning."""
    proc = subprocess.run([zizmor, "--offline", "--config", str(CONFIG), "--strict-collection", "--no-progress",
                           "--format", "json", *map(str, files)], capture_output=True, text=True, timeout=120,
                          check=False)
    try:
        findings = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"zizmor printed no JSON (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return proc.returncode, [f for f in findings if not f.get("ignored")]


def shown(findings: list[dict[str, Any]]) -> list[str]:
    """Findings in a line each; whatever zizmor's JSON holds, the finding is shown."""
    out = []
    for f in findings:
        try:
            where = Path(f["locations"][0]["symbolic"]["key"]["Local"]["verbatim_path"]).name
            where += f":{f['locations'][0]['concrete']['location']['start_point']['row'] + 1}"
        except (KeyError, IndexError, TypeError):
            where = "?"
        out.append(f"{where}: {f.get('ident')} ({f.get('desc')})")
    return out


def test_the_readme_fences_every_workflow_as_yaml() -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 5
    assert sum("runs-on:" in b for b in blocks) >= 5
    fenced = re.findall(r"^```(\w*)\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    for lang, body in fenced:  # a workflow under another fence would escape the linter
        assert lang == "yaml" or not re.search(r"^\s*(?:- )?(?:uses|runs-on):", body, re.M), body[:200]


def test_every_shipped_and_shown_workflow_passes_zizmor(zizmor: str, tmp_path: Path) -> None:
    files = [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
             *sorted((ROOT / "examples").glob("*.yml"))]
    for n, block in enumerate(readme_blocks(), 1):
        files.append(tmp_path / f"README-block-{n}.yml")
        files[-1].write_text(block, encoding="utf-8")
    assert len(files) >= 9
    code, findings = audit(zizmor, files)
    assert shown(findings) == [] and code == 0


def test_only_this_actions_own_snippets_are_let_off_the_commit_pin() -> None:
    import yaml

    policies = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["rules"]["unpinned-uses"]["config"]["policies"]
    assert policies == {"dafny-spec-score/dafny-spec-score": "ref-pin", "*": "hash-pin"}


def test_a_file_zizmor_cannot_read_fails_the_lint(zizmor: str, tmp_path: Path) -> None:
    broken = tmp_path / "README-block-1.yml"
    broken.write_text("on: push\njobs:\n  x:\n    stepz:\n      - uses: actions/checkout@v4\n")
    proc = subprocess.run([zizmor, "--offline", "--config", str(CONFIG), "--strict-collection", "--no-progress",
                           "--format", "json", str(broken)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode != 0


@pytest.mark.parametrize("regression, ident", [
    ("- uses: actions/checkout@v4", "unpinned-uses"),  # a tag can be moved to other code
    ("- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "artipacked"),  # token left in .git
])
def test_a_deliberate_regression_fails_the_lint(zizmor: str, tmp_path: Path, regression: str, ident: str) -> None:
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    original = f"- uses: {CHECKOUT}\n        with:\n          persist-credentials: false\n"
    assert original in ci
    broken = tmp_path / "ci.yml"
    broken.write_text(ci.replace(original, regression + "\n"), encoding="utf-8")
    code, findings = audit(zizmor, [broken])
    assert code != 0 and ident in {f["ident"] for f in findings}, shown(findings)
