"""What changed since a baseline: a previous audit's results.json set beside this run's. Pure code: no I/O.

`compare(baseline, current)` takes two results.json documents (this run's parsed from the text
`results_json` writes, so both sides have the same shape) and returns `Changes`: the tasks whose verdict or
label changed, the scores that moved, the disagreements with the labels that are new or fixed, the surviving
mutants that are new or gone, and the tasks added or removed. `changes_dict`/`changes_json` write them as
changes.json, `changes_md` as the report's first section, and `should_fail` says whether `--fail-on` turns
them into a failed run.

A disagreement is the report's (`bot.audit.report.disagreeing`): a labelled task with a decided verdict
other than the one its label names.

The baseline may come from anywhere (a fork's artifact, a hand-edited file): `parse_baseline` bounds its
size, refuses another schema version or another seed, and checks the type of every field it reads, raising
`BaselineError` naming the field. Every order is sorted, so the same two documents give the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.audit.model import Label, TaskResult, Verdict, task_order
from bot.audit.report import AUDIT_SCHEMA_VERSION, disagreeing
from bot.options import FailOn
from bot.report.markdown import code, esc

__all__ = [
    "BaselineError", "Changes", "Disagreement", "FailOn", "LabelChange", "ScoreMove", "SettingChange", "Survivor",
    "VerdictChange", "changes_dict", "changes_json", "changes_md", "changes_summary", "compare", "parse_baseline",
    "should_fail",
]  # fmt: skip

CHANGES_SCHEMA_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024  # a results.json of thousands of tasks is a few MB
MAX_TASKS = 100_000
MAX_SURVIVORS = 10_000  # per task
MAX_TEXT = 100_000  # characters of one task id, input or value
MAX_SHOWN = 30  # rows per list in the markdown; changes.json has them all
MAX_REASON_TASKS = 10  # task ids named in the failure reason

HEADING = "## Changes since the baseline"
NO_CHANGES = "No changes since the baseline ({n} tasks compared)."
MORE = "… and {n} more (see changes.json)."
METRICS = ("correctness", "completeness")


class BaselineError(Exception):
    """The baseline cannot be compared with: unreadable, not results.json, or another schema or seed."""


# ---------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class VerdictChange:
    task_id: str
    label: str  # the label now
    old: str
    new: str


@dataclass(frozen=True)
class LabelChange:
    task_id: str
    old: str
    new: str


@dataclass(frozen=True)
class ScoreMove:
    task_id: str
    metric: str  # correctness | completeness
    old: float | None
    new: float | None


@dataclass(frozen=True)
class Disagreement:
    """A task whose verdict is not the one its label names: as it is now (new) or was at the baseline (fixed)."""

    task_id: str
    label: str
    verdict: str


@dataclass(frozen=True)
class Survivor:
    """A surviving mutant: a wrong output the spec accepts for these inputs."""

    task_id: str
    inputs: str
    value: str


@dataclass(frozen=True)
class SettingChange:
    key: str
    old: str  # as JSON text; "" when the side does not have the key
    new: str


@dataclass(frozen=True)
class Changes:
    baseline: str  # the baseline file as given ("" when not known)
    date: str  # the baseline's date when it records one, else ""
    compared: int  # tasks in both runs
    added: tuple[str, ...] = ()  # task ids
    removed: tuple[str, ...] = ()
    verdicts: tuple[VerdictChange, ...] = ()
    labels: tuple[LabelChange, ...] = ()
    scores: tuple[ScoreMove, ...] = ()
    new_disagreements: tuple[Disagreement, ...] = ()  # added tasks that disagree count as new
    fixed_disagreements: tuple[Disagreement, ...] = ()  # tasks in both runs only
    new_survivors: tuple[Survivor, ...] = ()  # tasks in both runs only
    gone_survivors: tuple[Survivor, ...] = ()
    settings: tuple[SettingChange, ...] = ()  # shown, but not a change of results: `empty` ignores them

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.verdicts or self.labels or self.scores
                    or self.new_disagreements or self.fixed_disagreements or self.new_survivors
                    or self.gone_survivors)

    @property
    def tasks(self) -> tuple[str, ...]:
        """Every task id the changes name, in task order."""
        ids: set[str] = {*self.added, *self.removed}
        for group in (self.verdicts, self.labels, self.scores, self.new_disagreements, self.fixed_disagreements,
                      self.new_survivors, self.gone_survivors):
            ids.update(item.task_id for item in group)
        return tuple(sorted(ids, key=task_order))


# ------------------------------------------------------------------------------------- reading a run


@dataclass(frozen=True)
class _Task:
    task_id: str
    label: str
    verdict: str
    correctness: float | None
    completeness: float | None
    survivors: frozenset[tuple[str, str]]  # (inputs, value)


@dataclass(frozen=True)
class _AuditRun:
    schema: int
    seed: int
    settings: Mapping[str, object]
    date: str
    tasks: Mapping[str, _Task]


_LABELS = tuple(lb.value for lb in Label)
_VERDICTS = tuple(v.value for v in Verdict)


def _bad(where: str, problem: str) -> BaselineError:
    return BaselineError(f"{where}: {problem}")


def _show(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(where, f"{_show(value)} is not a whole number")
    return value


def _text(value: object, where: str, choices: Sequence[str] = ()) -> str:
    if not isinstance(value, str):
        raise _bad(where, f"{_show(value)} is not a string")
    if len(value) > MAX_TEXT:
        raise _bad(where, f"longer than {MAX_TEXT} characters")
    if choices and value not in choices:
        raise _bad(where, f"{_show(value)} is not one of {', '.join(choices)}")
    return value


def _score(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(where, f"{_show(value)} is not a number or null")
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise _bad(where, f"{_show(value)} is not a number from 0 to 1")
    return number


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, "not a JSON object")
    return value


def _list(value: object, where: str, limit: int) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(where, "not a JSON array")
    if len(value) > limit:
        raise _bad(where, f"more than {limit} entries")
    return value


def _task(value: object, where: str) -> _Task:
    t = _object(value, where)
    task_id = _text(t.get("task_id"), f"{where}.task_id")
    if not task_id:
        raise _bad(f"{where}.task_id", "empty")
    survivors = set()
    for j, s in enumerate(_list(t.get("surviving_mutants", []), f"{where}.surviving_mutants", MAX_SURVIVORS)):
        at = f"{where}.surviving_mutants[{j}]"
        s = _object(s, at)
        survivors.add((_text(s.get("inputs"), f"{at}.inputs"), _text(s.get("value"), f"{at}.value")))
    return _Task(task_id, _text(t.get("label"), f"{where}.label", _LABELS),
                 _text(t.get("verdict"), f"{where}.verdict", _VERDICTS),
                 _score(t.get("correctness"), f"{where}.correctness"),
                 _score(t.get("completeness"), f"{where}.completeness"), frozenset(survivors))


def _schema(doc: object) -> tuple[Mapping[str, Any], int]:
    d = _object(doc, "the file")
    if "schema" not in d:
        raise _bad("schema", "missing: not a results.json written by the audit")
    return d, _int(d["schema"], "schema")


def _audit_run(doc: object) -> _AuditRun:
    """The fields the comparison reads, each checked; raises BaselineError naming the field."""
    d, schema = _schema(doc)
    settings = _object(d.get("settings"), "settings")
    if "seed" not in settings:
        raise _bad("settings.seed", "missing")
    seed = _int(settings["seed"], "settings.seed")
    date = d.get("date", settings.get("date", ""))
    date = _text(date, "date") if date else ""
    tasks: dict[str, _Task] = {}
    for i, t in enumerate(_list(d.get("tasks"), "tasks", MAX_TASKS)):
        task = _task(t, f"tasks[{i}]")
        if task.task_id in tasks:
            raise _bad(f"tasks[{i}].task_id", f"{_show(task.task_id)} appears twice")
        tasks[task.task_id] = task
    return _AuditRun(schema, seed, settings, date[:64], tasks)


def parse_baseline(data: bytes, seed: int) -> dict[str, Any]:
    """The baseline's document from the file's bytes, checked; raises BaselineError saying what is wrong.

    Refused: more than MAX_BASELINE_BYTES, not UTF-8 JSON, another schema than this audit writes, another
    seed than this run's (its mutants would differ), and any field of the wrong type."""
    if len(data) > MAX_BASELINE_BYTES:
        raise BaselineError(f"larger than {MAX_BASELINE_BYTES} bytes: not a results.json of the audit")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise BaselineError(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise BaselineError(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except ValueError as e:  # an integer of more than 4,300 digits
        raise BaselineError(f"not readable JSON: {str(e).split(';')[0]}") from None
    except RecursionError:
        raise BaselineError("not readable JSON: arrays or objects nested too deeply") from None
    _, schema = _schema(doc)
    if schema != AUDIT_SCHEMA_VERSION:
        raise BaselineError(f"results of schema {schema}, but this audit writes schema {AUDIT_SCHEMA_VERSION}: "
                            "compare with a baseline written by the same version (or run without a baseline)")
    run = _audit_run(doc)
    if run.seed != seed:
        raise BaselineError(f"made with seed {run.seed}, but this run's seed is {seed}: the mutants differ, so "
                            f"the changes would be noise (run with the baseline's seed, or without a baseline)")
    assert isinstance(doc, dict)
    return doc


# ------------------------------------------------------------------------------------------ comparing


def _disagrees(t: _Task) -> bool:
    """The report's definition (`disagreeing`), applied to the fields results.json records."""
    stub = TaskResult(t.task_id, "", "", Label(t.label), (), Verdict(t.verdict), "", None, 0.0, False)
    return bool(disagreeing([stub]))


def _setting_text(value: object) -> str:
    """A setting as JSON text; a baseline's nested value (never written by the audit) as one fixed text,
    so that comparing or printing it cannot recurse."""
    if value is None or isinstance(value, bool | int | float | str):
        text = json.dumps(value)
        return text if len(text) <= 200 else text[:197] + "..."
    return "(not a plain value)"


def _ordered(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids, key=task_order))


def compare(baseline: Mapping[str, Any], current: Mapping[str, Any], baseline_name: str = "") -> Changes:
    """What changed from `baseline` to `current` (two results.json documents); raises BaselineError when
    either is not one, or when their schemas or seeds differ."""
    old, new = _audit_run(baseline), _audit_run(current)
    if old.schema != new.schema:
        raise BaselineError(f"the baseline has schema {old.schema}, this run {new.schema}")
    if old.seed != new.seed:
        raise BaselineError(f"the baseline was made with seed {old.seed}, this run with seed {new.seed}")
    both = _ordered(old.tasks.keys() & new.tasks.keys())
    verdicts, labels, scores, fixed, new_survivors, gone_survivors = [], [], [], [], [], []
    for tid in both:
        a, b = old.tasks[tid], new.tasks[tid]
        if a.verdict != b.verdict:
            verdicts.append(VerdictChange(tid, b.label, a.verdict, b.verdict))
        if a.label != b.label:
            labels.append(LabelChange(tid, a.label, b.label))
        for metric in METRICS:
            x, y = getattr(a, metric), getattr(b, metric)
            if x != y:
                scores.append(ScoreMove(tid, metric, x, y))
        if _disagrees(a) and not _disagrees(b):
            fixed.append(Disagreement(tid, a.label, a.verdict))
        new_survivors += [Survivor(tid, i, v) for i, v in sorted(b.survivors - a.survivors)]
        gone_survivors += [Survivor(tid, i, v) for i, v in sorted(a.survivors - b.survivors)]
    new_disagreements = [
        Disagreement(tid, t.label, t.verdict)
        for tid, t in sorted(new.tasks.items(), key=lambda kv: task_order(kv[0]))
        if _disagrees(t) and not (tid in old.tasks and _disagrees(old.tasks[tid]))
    ]
    old_settings = {k[:64]: _setting_text(v) for k, v in old.settings.items()}
    new_settings = {k[:64]: _setting_text(v) for k, v in new.settings.items()}
    settings = [
        SettingChange(key, old_settings.get(key, ""), new_settings.get(key, ""))
        for key in sorted(old_settings.keys() | new_settings.keys())
        if old_settings.get(key, "") != new_settings.get(key, "")
    ]
    return Changes(
        baseline=baseline_name, date=old.date, compared=len(both),
        added=_ordered(new.tasks.keys() - old.tasks.keys()), removed=_ordered(old.tasks.keys() - new.tasks.keys()),
        verdicts=tuple(verdicts), labels=tuple(labels), scores=tuple(scores),
        new_disagreements=tuple(new_disagreements), fixed_disagreements=tuple(fixed),
        new_survivors=tuple(new_survivors), gone_survivors=tuple(gone_survivors), settings=tuple(settings),
    )


# ----------------------------------------------------------------------------------------- rendering


def changes_dict(changes: Changes) -> dict[str, Any]:
    c = changes
    return {
        "schema": CHANGES_SCHEMA_VERSION,
        "baseline": {"file": c.baseline, "date": c.date},
        "compared": c.compared,
        "empty": c.empty,
        "tasks_added": list(c.added),
        "tasks_removed": list(c.removed),
        "verdict_changes": [{"task_id": v.task_id, "label": v.label, "old": v.old, "new": v.new} for v in c.verdicts],
        "label_changes": [{"task_id": lb.task_id, "old": lb.old, "new": lb.new} for lb in c.labels],
        "score_changes": [{"task_id": s.task_id, "metric": s.metric, "old": s.old, "new": s.new} for s in c.scores],
        "new_disagreements": [{"task_id": d.task_id, "label": d.label, "verdict": d.verdict}
                              for d in c.new_disagreements],
        "fixed_disagreements": [{"task_id": d.task_id, "label": d.label, "verdict": d.verdict}
                                for d in c.fixed_disagreements],
        "new_surviving_mutants": [{"task_id": s.task_id, "inputs": s.inputs, "value": s.value}
                                  for s in c.new_survivors],
        "gone_surviving_mutants": [{"task_id": s.task_id, "inputs": s.inputs, "value": s.value}
                                   for s in c.gone_survivors],
        "settings_changes": [{"key": s.key, "old": s.old, "new": s.new} for s in c.settings],
    }


def changes_json(changes: Changes) -> str:
    return json.dumps(changes_dict(changes), indent=2, sort_keys=True) + "\n"


def _n(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def changes_summary(changes: Changes) -> str:
    """One line: how many of each kind of change ("no changes" when empty)."""
    c = changes
    parts = [
        _n(len(c.new_disagreements), "new disagreement") if c.new_disagreements else "",
        _n(len(c.fixed_disagreements), "fixed disagreement") if c.fixed_disagreements else "",
        _n(len(c.verdicts), "verdict changed", "verdicts changed") if c.verdicts else "",
        _n(len(c.labels), "label changed", "labels changed") if c.labels else "",
        _n(len(c.scores), "score moved", "scores moved") if c.scores else "",
        _n(len(c.new_survivors), "new surviving mutant") if c.new_survivors else "",
        _n(len(c.gone_survivors), "surviving mutant gone", "surviving mutants gone") if c.gone_survivors else "",
        _n(len(c.added), "task added", "tasks added") if c.added else "",
        _n(len(c.removed), "task removed", "tasks removed") if c.removed else "",
    ]
    return ", ".join(p for p in parts if p) or "no changes"


def _score_pair(old: float | None, new: float | None) -> tuple[str, str]:
    """The two scores with as many decimals (2 to 6) as it takes to tell them apart."""
    for digits in range(2, 7):
        shown = tuple("n/a" if x is None else f"{x:.{digits}f}" for x in (old, new))
        if shown[0] != shown[1]:
            break
    return shown[0], shown[1]


def _disagreements(found: Sequence[Disagreement]) -> list[str]:
    """The table of new or fixed disagreements: the same columns either way."""
    return _table("| Task | Label | Verdict |", [f"| {esc(d.task_id)} | {d.label} | {d.verdict} |" for d in found])


def _table(head: str, rows: Sequence[str]) -> list[str]:
    cells = head.count("|") - 1
    lines = [head, "|" + "---|" * cells, *rows[:MAX_SHOWN], ""]
    if len(rows) > MAX_SHOWN:
        lines += [MORE.format(n=len(rows) - MAX_SHOWN), ""]
    return lines


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(esc(i) for i in ids[:MAX_SHOWN])
    return shown + (f" {MORE.format(n=len(ids) - MAX_SHOWN)}" if len(ids) > MAX_SHOWN else "")


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _setting(text: str) -> str:
    return code(_short(text, 80)) if text else "(none)"


def changes_md(changes: Changes, heading: bool = True) -> list[str]:
    """The report's section: its heading (unless `heading` is False), where the baseline comes from, then
    each kind of change as a table, most telling first. Every piece of text from a run is escaped."""
    c = changes
    lines = [HEADING, ""] if heading else []
    source = f"{code(c.baseline)}" if c.baseline else "the baseline"
    when = f" of {esc(c.date)}" if c.date else ""
    lines += [f"Baseline: {source}{when}; {_n(c.compared, 'task')} in both runs.", ""]
    if c.settings:
        listed = "; ".join(f"{esc(s.key)} {_setting(s.old)} → {_setting(s.new)}" for s in c.settings[:MAX_SHOWN])
        listed += f" {MORE.format(n=len(c.settings) - MAX_SHOWN)}" if len(c.settings) > MAX_SHOWN else ""
        lines += [f"Settings changed since the baseline: {listed}.", ""]
    if c.empty:
        return [*lines, NO_CHANGES.format(n=c.compared), ""]
    lines += [f"Since the baseline: {changes_summary(c)}.", ""]
    if c.new_disagreements:
        lines += ["**New disagreements with the labels**", ""]
        lines += _disagreements(c.new_disagreements)
    if c.verdicts:
        lines += ["**Verdicts changed**", ""]
        lines += _table("| Task | Label | Baseline | Now |",
                        [f"| {esc(v.task_id)} | {v.label} | {v.old} | {v.new} |" for v in c.verdicts])
    if c.fixed_disagreements:
        lines += ["**Disagreements fixed** (no longer disagreeing; the label and verdict at the baseline)", ""]
        lines += _disagreements(c.fixed_disagreements)
    if c.labels:
        lines += ["**Labels changed**", ""]
        lines += _table("| Task | Baseline | Now |",
                        [f"| {esc(lb.task_id)} | {lb.old} | {lb.new} |" for lb in c.labels])
    if c.scores:
        rows = []
        for s in c.scores:
            old, new = _score_pair(s.old, s.new)
            rows.append(f"| {esc(s.task_id)} | {s.metric} | {old} | {new} |")
        lines += ["**Scores moved**", ""]
        lines += _table("| Task | Score | Baseline | Now |", rows)
    for title, items in (("**New surviving mutants** (wrong outputs the spec now accepts)", c.new_survivors),
                         ("**Surviving mutants gone** (wrong outputs no longer accepted, or no longer tried)",
                          c.gone_survivors)):
        if items:
            lines += [title, ""]
            rows = [f"| {esc(s.task_id)} | {code(_short(s.inputs))} | {code(_short(s.value))} |" for s in items]
            lines += _table("| Task | Inputs | Wrong output |", rows)
    if c.added:
        lines += [f"**Tasks added:** {_ids(c.added)}.", ""]
    if c.removed:
        lines += [f"**Tasks removed:** {_ids(c.removed)}.", ""]
    return lines


# -------------------------------------------------------------------------------------------- failing


def _listed(ids: Sequence[str]) -> str:
    more = len(ids) - MAX_REASON_TASKS
    return ("task " if len(ids) == 1 else "tasks ") + ", ".join(ids[:MAX_REASON_TASKS]) + (
        f" and {more} more" if more > 0 else "")


def should_fail(changes: Changes, fail_on: FailOn) -> str:
    """Why the run fails under `fail_on` ("" when it does not)."""
    if fail_on is FailOn.NEW_DISAGREEMENT and changes.new_disagreements:
        d = changes.new_disagreements
        ids = [f"{x.task_id} (labelled {x.label}, scored {x.verdict})" for x in d]
        return f"{_n(len(d), 'new disagreement')} with the labels since the baseline: {_listed(ids)}"
    if fail_on is FailOn.VERDICT_CHANGE and changes.verdicts:
        v = changes.verdicts
        ids = [f"{x.task_id} ({x.old} → {x.new})" for x in v]
        return f"{_n(len(v), 'verdict')} changed since the baseline: {_listed(ids)}"
    return ""
