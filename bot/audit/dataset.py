"""Reading an MBPP-DFY-style dataset from disk: tasks, their spec and test files, JSON cases, labels.

The layout (DATASET.md): `<set>/src/task_id_N.dfy` (spec + implementation), `<set>/test/task_id_N.dfy`
(the same with a test method), an MBPP-style JSON of test cases, and optionally a tagged JSON of
human review notes. Folder names are not assumed: any folder holding `src/` or `test/` with
`task_id_N.dfy` files is a task set.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from bot.audit.model import task_order

TASK_FILE = re.compile(r"^task_id_(\w+)\.dfy$")


@dataclass(frozen=True)
class TaskFiles:
    task_id: str
    spec: Path  # src/ file when there is one, else the test file (which holds the spec too)
    test: Path | None


class DatasetError(ValueError):
    """The folder is not a dataset the audit can read; the message says what was looked for."""


def _task_dirs(root: Path) -> list[Path]:
    """Folders (the root or up to two levels below) with src/ or test/ holding task files."""
    candidates = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
    candidates += [q for p in candidates[1:] for q in sorted(p.iterdir()) if q.is_dir()]
    out = []
    for d in candidates:
        if any(any(TASK_FILE.match(f.name) for f in (d / sub).glob("task_id_*.dfy")) for sub in ("src", "test")):
            out.append(d)
    return out


def find_tasks(root: Path) -> list[TaskFiles]:
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory")
    dirs = _task_dirs(root)
    if not dirs:
        raise DatasetError(
            f"{root}: no task files found (looked for src/task_id_N.dfy or test/task_id_N.dfy in it "
            "and in the folders below it)"
        )
    tasks: dict[str, TaskFiles] = {}
    for d in dirs:
        ids = {m.group(1) for sub in ("src", "test") for f in (d / sub).glob("task_id_*.dfy")
               if (m := TASK_FILE.match(f.name))}
        for tid in ids:
            src, test = d / "src" / f"task_id_{tid}.dfy", d / "test" / f"task_id_{tid}.dfy"
            if tid in tasks:
                continue  # the first task set that has the id wins
            tasks[tid] = TaskFiles(tid, src if src.is_file() else test, test if test.is_file() else None)
    return sorted(tasks.values(), key=lambda t: task_order(t.task_id))


MAX_SPEC_FILES = 20_000  # a spec collection larger than this is most likely the wrong folder


def find_spec_files(root: Path) -> list[TaskFiles]:
    """A spec collection without the task layout (DafnyBench, Clover and the like): every regular `.dfy` file under
    `root`, one "task" per file, its id the path relative to `root`; symlinks and hidden folders are not followed
    (a committed link may lead anywhere). Each file's methods are scored apart (`bot.audit.run`)."""
    found = []
    for path in sorted(root.rglob("*.dfy")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts[:-1]) or path.is_symlink() or not path.is_file():
            continue
        if any((root / folder).is_symlink() for folder in list(rel.parents)[:-1]):  # the last is root itself
            continue
        found.append(TaskFiles(rel.as_posix(), path, None))
        if len(found) > MAX_SPEC_FILES:
            raise DatasetError(f"{root}: more than {MAX_SPEC_FILES} .dfy files: give the folder of the specs")
    return found


def find_json_tests(root: Path) -> Path | None:
    """The MBPP-style test JSON: a `*test*.json` whose entries have `test_cases`."""
    for path in sorted(root.rglob("*test*.json")):
        try:
            data = _loads(path, path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # also a DatasetError: too large to tell, one of many `*test*` names
            continue
        if isinstance(data, dict) and any(isinstance(v, dict) and "test_cases" in v for v in data.values()):
            return path
    return None


def find_labels(root: Path) -> Path | None:
    """The tagged review file: a `*tagged*.json` holding a list of records with `note`.

    A `*tagged*.json` too deeply nested or with a number too long to read may be that file, so it is
    returned too: `read_json` then says why it cannot be read, rather than the audit running unlabelled.
    """
    for path in sorted(root.rglob("*tagged*.json")):
        try:
            data = _loads(path, path.read_text(encoding="utf-8"))
        except DatasetError:
            return path
        except (OSError, ValueError):
            continue
        if isinstance(data, list) and data and isinstance(data[0], dict) and "note" in data[0]:
            return path
    return None


def read_json(path: Path) -> object:
    """The JSON in the file; raises DatasetError naming the file."""
    try:
        return _loads(path, path.read_text(encoding="utf-8"))
    except DatasetError:
        raise
    except (OSError, ValueError) as e:  # also not UTF-8, not JSON
        raise DatasetError(f"{path}: cannot read JSON: {e}") from e


def _loads(path: Path, text: str) -> object:
    """json.loads; JSON that Python cannot hold (nested too deeply, an integer too long) is a DatasetError
    naming the file. Text that is not JSON raises json.JSONDecodeError as before."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as e:  # an integer of more than 4,300 digits; the advice after ';' is for programmers
        raise DatasetError(f"{path}: cannot read JSON: {str(e).split(';')[0]}") from e
    except RecursionError as e:  # arrays or objects nested about a thousand deep
        raise DatasetError(f"{path}: cannot read JSON: arrays or objects nested too deeply") from e
