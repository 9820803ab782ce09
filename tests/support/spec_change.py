"""Two versions of one spec file compared in process as a pull request compares them (the same path at two
revisions), with the real verifier: what tests of spec changes share."""

from __future__ import annotations

from pathlib import Path

from bot import runner
from bot.runner import TestFiles, build_jobs
from bot.settings import Settings
from bot.symbolic.results import SpecChange
from bot.symbolic.rounds import score_methods
from bot.symbolic.spec_change_run import Pair, spec_changes


def compare_versions(base: Path, head: Path, tmp_path: Path, method: str = "", tests: Path | None = None) -> SpecChange:
    """The SpecChange of the first method of `base` and `head` (spec files), or of the one named `method`
    (qualified: `B.M`), each scored first (with the TOML cases of `tests` beside both versions)."""
    settings = Settings.defaults()
    verifier = runner.open_verifier(settings, cache_dir=tmp_path / "cache")
    roots = {}
    for version, path in (("base", base), ("head", head)):
        root = tmp_path / version
        root.mkdir()
        (root / "abs.dfy").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        if tests is not None:
            (root / "abs.tests.toml").write_text(tests.read_text(encoding="utf-8"), encoding="utf-8")
        roots[version] = root
    b = build_jobs(roots["base"], ["abs.dfy"], TestFiles(), untested=True).jobs
    h = build_jobs(roots["head"], ["abs.dfy"], TestFiles(), untested=True).jobs
    if method:
        b = [j for j in b if j.method.qualified == method]
        h = [j for j in h if j.method.qualified == method]
    scores = score_methods([b[0], h[0]], verifier.engine, verifier.dialect, settings.score_options())
    (found,) = spec_changes([Pair(b[0], h[0], scores[0], scores[1])], verifier.engine, verifier.dialect)
    return found
