"""The one path from files to jobs: extra test files from the `tests` globs, change detection through them,
and the same jobs whichever front end asks. No verifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import runner
from bot.github.pr.affected import affected_specs
from bot.runner import TestFiles, TooManyFiles, build_jobs, files_matching, specs_tested_by

SPEC = """method Double(x: int) returns (r: int)
  ensures r == 2 * x
{ r := 2 * x; }

method Half(x: int) returns (r: int)
  ensures r * 2 <= x
{ r := x / 2; }
"""
OTHER = """method Triple(x: int) returns (r: int)
  ensures r == 3 * x
{ r := 3 * x; }
"""
DFY_TESTS = """include "../specs/arith.dfy"
method TestDouble() {
  var r := Double(3);
  expect r == 6;
}
"""
TOML_TESTS = """method = "Half"
[[case]]
args = [9]
expected = 4
"""


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "specs").mkdir()
    (tmp_path / "checks").mkdir()
    (tmp_path / "specs" / "arith.dfy").write_text(SPEC)
    (tmp_path / "specs" / "other.dfy").write_text(OTHER)
    (tmp_path / "checks" / "arith_test.dfy").write_text(DFY_TESTS)
    (tmp_path / "checks" / "half.toml").write_text(TOML_TESTS)
    return tmp_path


def test_without_tests_globs_the_spec_has_no_cases(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert build_jobs(root, ["specs/arith.dfy"]).jobs == []


def test_files_matching_the_tests_globs_feed_the_cases(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    extra = tuple(files_matching(root, ["checks/**"]))
    assert extra == ("checks/arith_test.dfy", "checks/half.toml")
    built = build_jobs(root, ["specs/arith.dfy", "specs/other.dfy"], TestFiles(extra=extra))
    assert [(j.display_path, j.method.name, len(j.cases)) for j in built.jobs] == [
        ("specs/arith.dfy", "Double", 1), ("specs/arith.dfy", "Half", 1)]
    assert built.errors == [] and built.problems == []  # other.dfy is tested by neither file: no complaint


def test_a_changed_test_file_matching_the_globs_rescores_the_specs_it_tests(tmp_path: Path) -> None:
    root = _repo(tmp_path)

    def exists(p: str) -> bool:
        return (root / p).is_file()

    for changed in ("checks/arith_test.dfy", "checks/half.toml"):
        found = affected_specs([changed], ["specs/**"], ["checks/**"], exists, lambda _: False,
                               lambda p: specs_tested_by([root], p, ["specs/**"]))
        assert found == ["specs/arith.dfy"], changed
    # outside the globs: not a test file, nothing re-scored
    assert affected_specs(["checks/half.toml"], ["specs/**"], [], exists, lambda _: False,
                          lambda p: specs_tested_by([root], p, ["specs/**"])) == []


def test_a_broken_extra_test_file_is_reported_not_ignored(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "checks" / "half.toml").write_text("method = \n")
    built = build_jobs(root, ["specs/arith.dfy"], TestFiles(extra=("checks/half.toml",)))
    assert built.jobs == []
    assert [p.source for p in built.problems] == ["checks/half.toml"]


def test_a_symlink_is_never_a_test_file(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.toml"
    outside.write_text(TOML_TESTS)
    (root / "checks" / "link.toml").symlink_to(outside)
    assert "checks/link.toml" not in files_matching(root, ["checks/**"])


def test_a_checkout_too_large_to_walk_fails_rather_than_scores_a_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    monkeypatch.setattr(runner, "MAX_LISTED_FILES", 3)
    with pytest.raises(TooManyFiles, match="more than 3 files"):
        files_matching(root, ["checks/**"])
