"""Human labels from review notes: tags such as `[STRONG-POST]` inside free text. Pure code."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.audit.model import Label

TAG = re.compile(r"\[([A-Z][A-Z-]*[A-Z])\]")

# Tag -> label (DATASET.md). A wrong spec outranks a weak one, which outranks a strong one: a note
# that says both "[STRONG-POST]" and "[MISUNDERSTANDING]" describes a spec that is wrong.
LABEL_TAGS: Mapping[str, Label] = {
    "WRONG": Label.WRONG,
    "MISUNDERSTANDING": Label.WRONG,
    "WEAK-POST": Label.WEAK,
    "STRONG-POST": Label.STRONG,
}
_RANK = (Label.WRONG, Label.WEAK, Label.STRONG)


def tags_of(note: str) -> tuple[str, ...]:
    """Every tag in the note, in order of first appearance (commented `//[WRONG]` tags count too)."""
    seen: dict[str, None] = {}
    for m in TAG.finditer(note):
        seen.setdefault(f"[{m.group(1)}]", None)
    return tuple(seen)


def label_of(tags: tuple[str, ...]) -> Label:
    found = {LABEL_TAGS[t[1:-1]] for t in tags if t[1:-1] in LABEL_TAGS}
    for label in _RANK:
        if label in found:
            return label
    return Label.UNLABELED


class LabelFileError(ValueError):
    """The labels file is not a list of records with `id` and `note`."""


def read_labels(data: object, path: str) -> dict[str, tuple[Label, tuple[str, ...]]]:
    """task id -> (label, tags) from the tagged RQ3 JSON (a list of records {id, note, ...})."""
    if not isinstance(data, list):
        raise LabelFileError(f"{path}: expected a JSON list of records with `id` and `note`")
    out: dict[str, tuple[Label, tuple[str, ...]]] = {}
    for k, rec in enumerate(data):
        if not isinstance(rec, dict) or "note" not in rec or not ("id" in rec or "task_id" in rec):
            raise LabelFileError(f"{path}: record {k} has no `id` and `note`")
        task = str(rec.get("id", rec.get("task_id")))
        tags = tags_of(str(rec["note"]))
        out[task] = (label_of(tags), tags)
    return out
