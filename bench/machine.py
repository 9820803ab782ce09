"""The machine, the verifier and z3 versions, the PyPI wheel's z3, the dataset's tasks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.constants import REFERENCE, ROOT, WHEEL_Z3, WHEEL_Z3_VERSION
from bench.known import KNOWN
from bench.scenarios import say

# ---------------------------------------------------------------------------------------------------
# The machine, the wheel's z3


def machine_memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def git_commit() -> str:
    try:
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{sha} (with uncommitted changes)" if dirty else sha


def verifier_version(dafny: str) -> str:
    sys.path.insert(0, str(ROOT))
    try:
        from bot.verifier import detect

        return detect(dafny).version
    except Exception as e:  # the benchmark still runs; the header says why the version is missing
        return f"unknown ({type(e).__name__}: {e})"


def z3_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = re.search(r"(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else ""


def wheel_venv() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "dafny-spec-score-bench" / WHEEL_Z3.replace("==", "-")


def _wheel_binary(python: str) -> str | None:
    """The wheel's z3 next to the `z3` package `python` imports, or in its prefix's bin/."""
    probe = "import os, sys, z3; print(os.path.dirname(z3.__file__)); print(sys.prefix)"
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    package, prefix = (proc.stdout.splitlines() + ["", ""])[:2]
    for candidate in (Path(package) / "bin" / "z3", Path(package) / "lib" / "z3", Path(prefix) / "bin" / "z3"):
        if candidate.is_file() and os.access(candidate, os.X_OK) and z3_version(str(candidate)) == WHEEL_Z3_VERSION:
            return str(candidate)
    return None


def find_wheel_z3(install: bool) -> tuple[str | None, str]:
    """The z3 binary of the z3-solver 4.8.5.0 wheel: installed already, or installed now into a venv."""
    venv = wheel_venv()
    for python in (sys.executable, str(venv / "bin" / "python")):
        if Path(python).exists():
            found = _wheel_binary(python)
            if found:
                return found, ""
    if not install:
        return None, f"no {WHEEL_Z3} installed (and installing was not asked)"
    say(f"installing {WHEEL_Z3} into {venv}")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, check=True, timeout=300)
        proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", WHEEL_Z3],
                              capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"could not make a venv for {WHEEL_Z3}: {e}"
    if proc.returncode != 0:
        return None, f"`pip install {WHEEL_Z3}` failed: {proc.stderr.strip()[-300:]}"
    found = _wheel_binary(str(venv / "bin" / "python"))
    return (found, "") if found else (None, f"{WHEEL_Z3} installed, but no z3 {WHEEL_Z3_VERSION} binary found in it")


def _tasks(a: Path, b: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The tasks of two results.json files by id (None when either cannot be read)."""
    try:
        return ({t["task_id"]: t for t in json.loads(a.read_text())["tasks"]},
                {t["task_id"]: t for t in json.loads(b.read_text())["tasks"]})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def differing_tasks(a: Path, b: Path) -> tuple[str, ...]:
    """Task ids whose entries differ between two results.json files (`?` when they cannot be read)."""
    both = _tasks(a, b)
    if both is None:
        return ("?",)
    left, right = both
    return tuple(sorted((k for k in left.keys() | right.keys() if left.get(k) != right.get(k)), key=_id_order))


def differing_fields(a: Path, b: Path) -> str:
    """The tasks whose entries differ between two results.json files, each with the names of the fields that
    differ in it: `572 (killed_by), 632 (killed_by, note)` ("" when none; `?` when they cannot be read)."""
    both = _tasks(a, b)
    if both is None:
        return "?"
    left, right = both
    parts = []
    for k in differing_tasks(a, b):
        names = sorted(_fields_differing(left.get(k), right.get(k), "task"))
        parts.append(f"{k} ({', '.join(names)})")
    return ", ".join(parts)


# what must stay identical across commits (issue 43): the verdicts, completeness, pins, which cases are decided
VERDICT_FIELDS = ("verdict", "evaluated", "correctness", "completeness", "unknown")
CASE_FIELDS = ("status", "determinacy")


Changes = dict[str, tuple[Any, Any]]  # what differs in one task: a field's name, its value in a, in b


def verdict_changes(a: Path, b: Path) -> dict[str, Changes] | None:
    """What differs between two results.json files, perhaps of different commits, task by task (id order): a task's
    VERDICT_FIELDS by name, a case's CASE_FIELDS as `case NAME: FIELD` (cases matched by name), `cases` when the two
    name other cases, `task` when one lacks the task; each with both values. Other fields (notes, witnesses, what a
    later commit adds) are left out: they may change with the code. None when either cannot be read."""
    both = _tasks(a, b)
    return None if both is None else _changes(*both)


def _changes(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Changes]:
    out: dict[str, Changes] = {}
    for k in sorted(left.keys() | right.keys(), key=_id_order):
        x, y = left.get(k), right.get(k)
        if x is None or y is None:
            out[k] = {"task": (x is not None, y is not None)}
            continue
        changes: Changes = {f: (x.get(f), y.get(f)) for f in VERDICT_FIELDS if x.get(f) != y.get(f)}
        xc = {c.get("name"): c for c in x.get("cases") or []}
        yc = {c.get("name"): c for c in y.get("cases") or []}
        if xc.keys() != yc.keys():
            changes["cases"] = (sorted(map(str, xc)), sorted(map(str, yc)))
        else:
            changes.update({f"case {n}: {f}": (xc[n].get(f), yc[n].get(f)) for n in sorted(xc, key=str)
                            for f in CASE_FIELDS if xc[n].get(f) != yc[n].get(f)})
        if changes:
            out[k] = changes
    return out


def differing_verdicts(a: Path, b: Path, known: dict[str, Changes] | None = None) -> str:
    """The tasks whose verdicts differ between two results.json files (verdict_changes), each with the names of the
    fields that differ: `7 (determinacy), 10 (verdict)` ("" when none; `?` when they cannot be read). With `known`:
    a task whose changes are exactly its entry (both values of every field, of the same JSON types, and no other
    field) is left out, and a known task in both files that did not change at all is named, `793 (known change
    absent: verdict)`: what the code learned since is lost."""
    return _compared(a, b, known or {})[0]


def explained(a: Path, b: Path, known: dict[str, Changes]) -> tuple[str, ...]:
    """The tasks whose verdict changes are exactly their entries in `known`."""
    return _compared(a, b, known)[1]


def reference_verdicts(commit: str, then: Path, now: Path) -> tuple[str, tuple[str, ...]]:
    """The reference commit's results.json (`then`) against this commit's (`now`), read once: differing_verdicts
    and explained, with the known changes (bench/known.py) for the default reference only (against any other
    commit, or 7517177 spelt otherwise, every change is reported)."""
    return _compared(then, now, KNOWN if commit == REFERENCE else {})


def _compared(a: Path, b: Path, known: dict[str, Changes]) -> tuple[str, tuple[str, ...]]:
    both = _tasks(a, b)
    if both is None:
        return "?", ()
    changes = _changes(*both)
    same = tuple(k for k, c in changes.items() if k in known and _exactly(known[k], c))
    absent = {k for k in known if k in both[0] and k in both[1] and k not in changes}
    parts = [f"{k} ({', '.join(_names(c))})" for k, c in changes.items() if k not in same]
    parts += [f"{k} (known change absent: {', '.join(_names(known[k]))})" for k in absent]
    return ", ".join(sorted(parts, key=lambda part: _id_order(part.split(" ", 1)[0]))), same


def _exactly(x: Changes, y: Changes) -> bool:
    """Equal, JSON types too (Python's `True == 1 == 1.0` would let a changed type pass)."""
    return json.dumps(x, sort_keys=True) == json.dumps(y, sort_keys=True)


def _names(changes: Changes) -> list[str]:
    """The fields' names, a task's first, then its cases' (each once, in order)."""
    task = [f for f in changes if not f.startswith("case ")]
    cases = sorted({f.rpartition(": ")[2] for f in changes if f.startswith("case ")})
    return task + cases


def _fields_differing(x: object, y: object, name: str) -> set[str]:
    """The names of the innermost fields where `x` and `y` differ (`name` for themselves)."""
    if x == y:
        return set()
    if isinstance(x, dict) and isinstance(y, dict):
        return set().union(*(_fields_differing(x.get(k), y.get(k), k) for k in x.keys() | y.keys()))
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        return set().union(*(_fields_differing(u, v, name) for u, v in zip(x, y, strict=True)))
    return {name}


def _id_order(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (sys.maxsize, task_id)


def load_average() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def tasks_phrase(n: int) -> str:
    return f"{n} task" if n == 1 else f"{n} tasks"


def engine_has_server_option() -> bool:
    """Whether `python3 -m bot audit` has `--server/--no-server` (a persistent server backend)."""
    proc = subprocess.run([sys.executable, "-m", "bot", "audit", "--help"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    return "--server" in proc.stdout


def task_ids(dataset: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from bot.audit.dataset import find_tasks

    return [t.task_id for t in find_tasks(dataset)]
