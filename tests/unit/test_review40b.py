"""Hostile review of the unread-case gate (a test case no scored method carries fails the check): a shared test file
the Action's `tests` globs name holds cases for methods of several spec files; each case is read, and carried, by
the spec file that declares its method, so none of them is unread."""

from __future__ import annotations

from pathlib import Path

from bot.runner import TestFiles, build_jobs

SHARED = """method = "A"
[[case]]
args = ["1"]
expected = "1"
[[case]]
method = "B"
args = ["1"]
expected = "2"
"""


def _tree(tmp_path: Path, shared: str = SHARED) -> None:
    (tmp_path / "a.dfy").write_text("method A(x: int) returns (r: int)\n  ensures r == x\n")
    (tmp_path / "b.dfy").write_text("method B(x: int) returns (r: int)\n  ensures r == x + 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "shared.tests.toml").write_text(shared)


def test_a_case_of_another_spec_files_method_is_not_unread(tmp_path: Path) -> None:
    _tree(tmp_path)
    built = build_jobs(tmp_path, ["a.dfy", "b.dfy"], TestFiles(extra=("tests/shared.tests.toml",)), untested=True)
    assert [(j.display_path, j.method.qualified, len(j.cases)) for j in built.jobs] == [("a.dfy", "A", 1),
                                                                                        ("b.dfy", "B", 1)]
    # each case is carried by its own spec file's method: neither fails the other file as unread
    assert (built.problems, built.unread) == ([], []), built.problems


def test_a_case_naming_a_method_no_spec_file_declares_is_still_unread(tmp_path: Path) -> None:
    _tree(tmp_path, SHARED.replace('method = "B"', 'method = "Gone"'))
    built = build_jobs(tmp_path, ["a.dfy", "b.dfy"], TestFiles(extra=("tests/shared.tests.toml",)), untested=True)
    # the case for A is carried by a.dfy's method; the one naming a method no spec file declares stays said
    assert {p.method for p in built.problems} == {"Gone"} and built.unread == ["a.dfy"], built.problems


def test_only_the_spec_file_being_scored_carries_nothing(tmp_path: Path) -> None:
    """Scoring a.dfy alone: the case for B (declared by b.dfy, which this run does not score) is carried by no
    scored method, and stays said."""
    _tree(tmp_path)
    built = build_jobs(tmp_path, ["a.dfy"], TestFiles(extra=("tests/shared.tests.toml",)), untested=True)
    assert [p.method for p in built.problems] == ["B"] and built.unread == ["a.dfy"]
