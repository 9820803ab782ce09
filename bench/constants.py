"""What the benchmark measures against: paths, the pull request it makes, the targets, the recorder."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout
DEFAULT_OUT = ROOT / "bench" / "RESULTS.md"
SNAPSHOT = "a57ce24"


def default_dataset() -> Path:
    """The development audit's dataset: $DAFNY_SPEC_SCORE_DATASET/a57ce24, else ../shared/mbpp-dfy/a57ce24."""
    return Path(os.environ.get("DAFNY_SPEC_SCORE_DATASET") or ROOT.parent / "shared" / "mbpp-dfy") / SNAPSHOT


EXAMPLE = ROOT / "examples" / "shared_elements.dfy"
STRONG = "ensures forall x :: x in result <==> (InArray(a, x) && InArray(b, x))"
WEAK = "ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))"
PR_REPO = "owner/specs"
PR_NUMBER = 7
PR_SPEC = "examples/shared_elements.dfy"
WHEEL_Z3 = "z3-solver==4.8.5.0"
# the reference point: the code every figure is also measured against, in the same run (issue 43: last round's)
REFERENCE = "7517177"
WHEEL_Z3_VERSION = "4.8.5"

# targets (the issue's)
TARGET_RATIO = 10.0
TARGET_COLD_SECONDS = 90.0
TARGET_WARM_SECONDS = 5.0
TARGET_PR_SECONDS = 10.0  # issue 43 (15 s before)
DEV_TASKS = 40  # the development audit
SMALL_TASKS = 10  # the smaller run of the memory check
MEMORY_FLAT = 1.25  # "flat": the peak at all tasks is at most this times the peak at SMALL_TASKS
TARGET_STRATEGY_SPEEDUP = 1.5  # the cold audit, `each` / `lean` wall time (median of the pairs)
TARGET_OWN_SHARE = 0.6  # `lean`'s programs' own verification time at most this share of `each`'s (median)
TARGET_EVERYWHERE_GROWTH = 0.25  # the questions beyond the tests add at most this to the cold audit
TARGET_PR_EVERYWHERE_GROWTH = 0.40  # and to a one-spec pull request

SAMPLE_SECONDS = 0.1
BASELINE_WALL = 600.0  # a baseline process is killed after this (a simple script would wait for ever)
SERVER_EXE = "specscore-host.exe"  # an argument of a persistent server process (HOST_EXE of bot/verifier/server.py)
LAUNCHER_LIMIT = 4096  # a real `dafny` no longer than this may be a launcher script the wrapper copies

# The start of the scripts below: the modules of the `bot` package the command runs (this checkout's, or the reference
# commit's unpacked), found by their files, `optional`; an editable install of another checkout answers an import of a
# module this package lacks with its own (the reference commit's layout lacks bot/verifier/engine.py and bot/symbolic/,
# and has bot/engine.py)
_PACKAGE = r"""
import importlib, os
import bot
def optional(name):
    if not os.path.isfile(os.path.join(os.path.dirname(bot.__file__), *name.split(".")[1:]) + ".py"):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
engine = optional("bot.verifier.engine") or importlib.import_module("bot.engine")
"""

# Run by `python3 -c` for a measured audit (`python3 -c COUNTER FILE audit ...`, bench/scenarios.py `Bench.audit`):
# counts the backend's requests (its `verify_batch` calls: usually one Dafny run each, on the command line or a
# kept-alive server, which verifies a canary after each request it answers; a server that died is asked again, then
# the command line) and the programs they held, and writes both to FILE at exit. It wraps the backend of each engine,
# in either commit's layout, frozen dataclasses too (the command-line backends); a call the backend makes of its own
# `verify_batch` is part of the request that made it. A backend that cannot be wrapped leaves the counts unwritten.
# The audit runs as `python3 -m bot` runs it (bot/__main__.py: its signal handling and exit path too).
COUNTER = _PACKAGE + r"""
import atexit, json, runpy, sys, threading
counts_file = sys.argv[1]
counts = {"batches": 0, "programs": 0}
lock = threading.Lock()
inside = threading.local()
wrapped = []
original = engine.Engine.__init__
def init(self, backend, *args, **kwargs):
    original(self, backend, *args, **kwargs)
    if any(b is backend for b in wrapped):
        return  # a backend two engines share is counted once
    verify = backend.verify_batch
    def counted(prelude, methods, *rest, **more):
        if getattr(inside, "depth", 0) == 0:
            with lock:
                counts["batches"] += 1
                counts["programs"] += len(methods)
        inside.depth = getattr(inside, "depth", 0) + 1
        try:
            return verify(prelude, methods, *rest, **more)
        finally:
            inside.depth -= 1
    try:
        object.__setattr__(backend, "verify_batch", counted)  # a frozen dataclass's instance too
    except (AttributeError, TypeError):
        counts["unwrapped"] = True
    wrapped.append(backend)
engine.Engine.__init__ = init
def write():
    if not counts.get("unwrapped"):
        with open(counts_file, "w", encoding="utf-8") as out:
            json.dump(counts, out)
atexit.register(write)
sys.argv = [sys.argv[0], *sys.argv[2:]]
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""

# Run by `python3 -c` for the recording run: wraps Engine.run to log every program and its outcome.
RECORDER = _PACKAGE + r"""
import contextvars, json, sys, threading
everywhere_run = optional("bot.symbolic.everywhere_run")
spec_change_run = optional("bot.symbolic.spec_change_run")
out = open(sys.argv[1], "w", encoding="utf-8")
lock = threading.Lock()
original = engine.Engine.run
# "every-input" while the questions beyond the tests are asked: a context variable, which the stages and rounds
# that go side by side carry into their threads (the suggestions asked beside them stay "tests")
phase = contextvars.ContextVar("phase", default="tests")
def run(self, programs, *rest):  # rest: the methods' budgets (Allowance), on engines that take them
    results = original(self, programs, *rest)
    with lock:
        for p in programs:
            out.write(json.dumps({"prelude": p.prelude, "method": p.method, "name": p.name, "phase": phase.get(),
                                  "outcome": results[p].outcome.value, "seconds": results[p].seconds,
                                  # what it asks, where the code says (bench/questions.py; the reference does not)
                                  "kind": getattr(getattr(p, "kind", None), "value", None),
                                  "goal": getattr(getattr(p, "goal", None), "value", None),
                                  "limit": getattr(p, "time_limit", None),
                                  "checks": bool(getattr(p, "checks", ()))}) + "\n")
        out.flush()
    return results
engine.Engine.run = run
def tagged(asked):
    def asking(*args, **kwargs):
        token = phase.set("every-input")
        try:
            return asked(*args, **kwargs)
        finally:
            phase.reset(token)
    return asking
# before the front ends import them by name: determinacy on every input, and a pull request's spec changes
if everywhere_run is not None:
    everywhere_run.with_everywhere = tagged(everywhere_run.with_everywhere)
if spec_change_run is not None:
    spec_change_run.spec_changes = tagged(spec_change_run.spec_changes)
if sys.argv[2] == "--action":
    from bot.github.action import main as action
    sys.exit(action())
from bot.cli import main
sys.exit(main(sys.argv[2:]))
"""
