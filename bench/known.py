"""The verdict changes against the reference commit (bench/constants.py REFERENCE) that come from what the code
learned after it, on the development subset: each task's changes exactly (both values of every field, as
bench/machine.py verdict_changes reads them) and why. The comparison leaves out a task only when its changes are
exactly these, so any other change, on these tasks or others, is still reported as DIFFERENT.

The same four tasks, by the fields that changed, in every full `python3 -m bench` since 2026-12-04 (RESULTS.md at
330daec and at 4930c34), and these values on 2026-12-07 in a run of the four alone on a quiet machine (`--only
572,573,629,793`): not time-outs of a loaded machine. A known task that no longer changes is reported too (its
change absent): what the code learned since the reference is lost."""

from __future__ import annotations

from typing import Any

# task id: {field: (the reference's value, this commit's)}
KNOWN: dict[str, dict[str, tuple[Any, Any]]] = {
    # the pin up to order, asked when the exact pin is not proved, proves what the reference left unknown
    "572": {"case RemoveDuplicatesTest#3: determinacy": ("unknown", "pinned-up-to-order")},
    # a `var x :| ...` choice decided by its ground facts over every choice (06f2bca, issue 22): one case decided, so
    # the task is evaluated
    "573": {"case UniqueProductTest#2: determinacy": (None, "unknown"),
            "case UniqueProductTest#2: status": ("unknown", "verified"),
            "completeness": (None, 1.0),
            "correctness": (None, 1.0),
            "evaluated": (False, True),
            "unknown": ({"case stuck": 3}, {"case stuck": 2}),
            "verdict": ("inconclusive", "strong")},
    # the pin as a set (3d52e4b, issue 22): not pinned exactly, but every output it accepts has the expected elements
    "629": {f"case FindEvenNumbersTest#{n}: determinacy": ("not-pinned", "pinned-as-set") for n in (1, 2, 3)},
    # a `requires` proved to reject a test's inputs makes the verdict wrong (9df691c, issue 22)
    "793": {"verdict": ("weak", "wrong")},
}
