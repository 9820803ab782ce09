"""Workflow commands as GitHub documents them; outputs, step summary, annotation capping, groups."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from actions_toolkit import command as toolkit_command

from bot.github.commands import (
    ANNOTATIONS_CAPPED,
    ANNOTATIONS_CAPPED_TITLE,
    OUTPUT_NAMES,
    SUMMARY_LIMIT_BYTES,
    SUMMARY_TRUNCATED,
    Annotation,
    Level,
    annotation,
    append_summary,
    cap_annotations,
    emit,
    emit_annotations,
    escape_data,
    escape_property,
    format_outputs,
    group,
    group_end,
    group_start,
    set_outputs,
)
from support.outputs import parse_outputs

# ---- escaping


def test_escape_data() -> None:
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_data("%0A") == "%250A"  # `%` first: existing escapes are not decoded by the runner


def test_escape_property() -> None:
    assert escape_property("a:b,c%\r\n") == "a%3Ab%2Cc%25%0D%0A"


def test_escaping_is_the_toolkits() -> None:
    text = "x%y\rz\n:,"
    assert escape_data(text) == toolkit_command.escape_data(text)
    assert escape_property(text) == toolkit_command.escape_property(text)


# ---- annotations


def test_annotation_as_documented() -> None:
    # ::error file={name},line={line},endLine={endLine},title={title}::{message}
    assert annotation(Level.ERROR, "Missing semicolon", file="app.js", line=1) == (
        "::error file=app.js,line=1::Missing semicolon"
    )
    assert annotation("warning", "m", file="a.dfy", line=3, end_line=5, title="T") == (
        "::warning file=a.dfy,line=3,endLine=5,title=T::m"
    )
    assert annotation(Level.NOTICE, "just a note") == "::notice::just a note"


def test_annotation_escapes_properties_and_message() -> None:
    line = annotation(Level.ERROR, "50% wrong\nsee: below", file="dir,x/a:b.dfy", line=2, title="Spec: weak, 0%")
    assert line == "::error file=dir%2Cx/a%3Ab.dfy,line=2,title=Spec%3A weak%2C 0%25::50%25 wrong%0Asee: below"
    assert "\n" not in line


def test_annotation_rejects_bad_positions_and_levels() -> None:
    with pytest.raises(ValueError):
        annotation(Level.ERROR, "m", line=0)
    with pytest.raises(ValueError):
        annotation(Level.ERROR, "m", line=5, end_line=4)
    with pytest.raises(ValueError):
        annotation(Level.ERROR, "m", end_line=4)
    with pytest.raises(ValueError):
        annotation("fatal", "m")


def test_annotation_render() -> None:
    a = Annotation(Level.WARNING, "weak", file="a.dfy", line=4, title="Surviving mutant")
    assert a.render() == "::warning file=a.dfy,line=4,title=Surviving mutant::weak"


# ---- capping


def _many(level: Level, n: int, start: int = 0) -> list[Annotation]:
    return [Annotation(level, f"{level.value} {i}") for i in range(start, start + n)]


def test_capping_keeps_the_first_n_per_level() -> None:
    items = _many(Level.ERROR, 13) + _many(Level.WARNING, 11) + _many(Level.NOTICE, 2)
    kept, note = cap_annotations(items, per_level=10)
    assert [a.message for a in kept if a.level is Level.ERROR] == [f"error {i}" for i in range(10)]
    assert [a.message for a in kept if a.level is Level.WARNING] == [f"warning {i}" for i in range(10)]
    assert [a.message for a in kept if a.level is Level.NOTICE] == ["notice 0", "notice 1"]
    message = ANNOTATIONS_CAPPED.format(count=4, noun="annotations are", detail="3 errors, 1 warning", limit=10)
    assert note == f"::notice title={escape_property(ANNOTATIONS_CAPPED_TITLE)}::{escape_data(message)}"
    assert "step summary" in message


def test_capping_keeps_the_worst_by_severity() -> None:
    items = [Annotation(Level.ERROR, f"e{i}", severity=i) for i in range(5)]
    kept, note = cap_annotations(items, per_level=2)
    assert [a.message for a in kept] == ["e4", "e3"]
    assert note is not None and "3 more annotations are not shown (3 errors)" in note


def test_capping_leaves_a_notice_slot_for_its_own_notice() -> None:
    kept, note = cap_annotations(_many(Level.NOTICE, 3), per_level=3)
    assert note is None and len(kept) == 3
    kept, note = cap_annotations(_many(Level.NOTICE, 4), per_level=3)
    assert len(kept) == 2 and note is not None
    assert "2 more annotations are not shown (2 notices)" in note


def test_nothing_dropped_no_note() -> None:
    kept, note = cap_annotations(_many(Level.ERROR, 10))
    assert len(kept) == 10 and note is None
    assert cap_annotations([]) == ((), None)
    with pytest.raises(ValueError):
        cap_annotations([], per_level=0)


def test_emit_annotations() -> None:
    stream = io.StringIO()
    dropped = emit_annotations(stream, _many(Level.WARNING, 3), per_level=2)
    lines = stream.getvalue().splitlines()
    assert dropped == 1
    assert lines[:2] == ["::warning::warning 0", "::warning::warning 1"]
    assert lines[2].startswith("::notice title=")
    assert len(lines) == 3


# ---- groups and lines


def test_group_commands() -> None:
    assert group_start("Scoring a.dfy: 3 methods") == "::group::Scoring a.dfy: 3 methods"
    assert group_start("two\nlines") == "::group::two%0Alines"
    assert group_end() == "::endgroup::"


def test_group_context_manager() -> None:
    stream = io.StringIO()
    with group(stream, "Verify"):
        emit(stream, "inside")
    assert stream.getvalue() == "::group::Verify\ninside\n::endgroup::\n"


def test_group_ends_on_error() -> None:
    stream = io.StringIO()
    with pytest.raises(RuntimeError), group(stream, "Verify"):
        raise RuntimeError("boom")
    assert stream.getvalue().endswith("::endgroup::\n")


# ---- outputs


def test_outputs_use_the_heredoc_syntax(tmp_path: Path) -> None:
    out = tmp_path / "github_output"
    out.write_text("", encoding="utf-8")
    delims = iter(["D1", "D2", "D3"])
    assert set_outputs(out, {"correctness": 0.75, "passed": False}, delimiter=lambda: next(delims))
    assert out.read_text(encoding="utf-8") == "correctness<<D1\n0.75\nD1\npassed<<D2\nfalse\nD2\n"


def test_output_value_with_delimiter_text_and_newlines(tmp_path: Path) -> None:
    out = tmp_path / "github_output"
    out.write_text("earlier=1\n", encoding="utf-8")
    colliding = "ghadelimiter_0000"
    value = f"line 1\n{colliding}\nEOF\n\nlast line\n"
    delims: Iterator[str] = iter([colliding, "EOF", "ghadelimiter_1111"])
    set_outputs(out, {"regressions": value}, delimiter=lambda: next(delims))
    text = out.read_text(encoding="utf-8")
    assert "regressions<<ghadelimiter_1111\n" in text
    assert parse_outputs(text) == {"earlier": "1", "regressions": value}


def test_output_round_trip_with_random_delimiters(tmp_path: Path) -> None:
    out = tmp_path / "github_output"
    out.write_text("", encoding="utf-8")
    values = {"report-json": "reports/a b.json", "regressions": "", "passed": True, "completeness": "x=y<<z"}
    set_outputs(out, values)
    assert parse_outputs(out.read_text(encoding="utf-8")) == {
        "report-json": "reports/a b.json",
        "regressions": "",
        "passed": "true",
        "completeness": "x=y<<z",
    }


def test_outputs_only_declared_names() -> None:
    with pytest.raises(ValueError, match="not declared"):
        format_outputs({"score": 1})
    assert set(OUTPUT_NAMES) == {"correctness", "completeness", "passed", "report-json", "sarif-file", "regressions",
                                 "spec-changes"}


def test_no_usable_delimiter_is_an_error() -> None:
    with pytest.raises(ValueError, match="delimiter"):
        format_outputs({"passed": "EOF"}, delimiter=lambda: "EOF")


def test_outputs_outside_actions_are_a_no_op(tmp_path: Path) -> None:
    assert set_outputs(None, {"passed": True}) is False
    assert set_outputs("", {"passed": True}) is False
    assert set_outputs(tmp_path / "absent", {"passed": True}) is False
    assert not (tmp_path / "absent").exists()


# ---- step summary


def test_summary_appends(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("", encoding="utf-8")
    assert append_summary(summary, "## Spec scores")
    assert append_summary(summary, "| a | b |\n|---|---|\n")
    assert summary.read_text(encoding="utf-8") == "## Spec scores\n| a | b |\n|---|---|\n"


def test_summary_outside_actions_is_a_no_op(tmp_path: Path) -> None:
    assert append_summary(None, "x") is False
    assert append_summary(tmp_path / "absent", "x") is False
    assert not (tmp_path / "absent").exists()


def test_summary_is_cut_to_the_limit(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("head\n", encoding="utf-8")
    row = "| a.dfy | Method | 1.00 | 0.80 |\n"
    assert append_summary(summary, row * (SUMMARY_LIMIT_BYTES // len(row) + 10))
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT_BYTES
    assert text.endswith(SUMMARY_TRUNCATED)
    body = text[len("head\n") : -len(SUMMARY_TRUNCATED)]
    assert body and set(body.splitlines()) == {row.rstrip("\n")}  # whole rows only


def test_emit_breaks_up_legacy_commands_and_stops_commands_in_free_text() -> None:
    out = io.StringIO()
    emit(out, "specs/l\n##[error]pwned.dfy")
    emit(out, "a ##[warning]x", Level.WARNING)
    emit(out, "specs/x\n::error title=pwned::y.dfy")
    lines = out.getvalue().splitlines()
    assert not any("##[" in line for line in lines)
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].removeprefix("::stop-commands::")
    assert len(token) >= 32 and lines[start + 3] == f"::{token}::"
    assert lines[start + 2].startswith("::error title=pwned")  # shown, but inside the stopped region
