"""Benchmark: one verifier process per program (the baseline) against the engine, and a pull request.

Measures, in one run, on the same tasks with the same verifier and flags:

  (a) the baseline: every program the engine verifies, each by its own `dafny /compile:0 /timeLimit:N F.dfy`
      process (prelude + that one harness method), `--jobs` at a time, as a simple script does; run on a
      deterministic sample (every k-th program) and extrapolated to all of them, or on all (`--baseline-full`);
  (b) the engine (`python3 -m bot audit`, pin checks on), cold cache;
  (c) the engine, warm cache (the cache of (b));
  (d) a pull request touching one spec (examples/shared_elements.dfy): `entrypoint.py`, base and head, cold
      cache, its comment posted to the local fake GitHub of tests/support/fakegithub.py;
  (e) the reference: the package of another commit (--reference, default last round's 7517177, unpacked from
      this checkout's history), cold on the same tasks; its programs and this commit's compared, program by
      program (sizes, own verification time, the workers' other time), and their verdicts;
  and, for the memory check, the engine cold on the first 10 tasks; the engine cold with `--no-server` (one
  `dafny` per batch) when it has the persistent server backend; the engine cold with `--strategy each` (one
  program per question) against the default `lean`, in `--strategy-pairs` pairs run in turn (the targets
  are the medians: one audit's time moves by more than their margins); and the engine cold with the z3 of
  the PyPI wheel `z3-solver==4.8.5.0` (`--z3`) against Debian's z3.

Prints and writes bench/RESULTS.md: wall time, verifier processes started, programs, programs per second, peak
memory of the tool and its children, `ratio: N.N` (baseline / engine cold), the targets met or not, the machine.
It asserts nothing; the numbers vary with the machine and its load.

    python3 -m bench [DATASET_ROOT] [--only IDS] [--tasks N] [--jobs N] [--out bench/RESULTS.md]
                             [--baseline-sample N | --baseline-full] [--quick] [--no-z3-wheel] [--no-pr]
                             [--no-server-comparison] [--strategy-pairs N] [--engine-option=--no-server]
                             [--reference COMMIT | --no-reference] [--keep]

DATASET_ROOT defaults to ../shared/mbpp-dfy/a57ce24 (or $DAFNY_SPEC_SCORE_DATASET/a57ce24): its 40 tasks
are the development audit. `--quick` is for trying the script: 3 tasks, a baseline sample of 8, 1 task for
the memory check.

How things are counted:
  - verifier processes: a `dafny` wrapper put first on PATH logs every start (version probes are counted
    too and shown apart); server processes (the persistent backend's) are counted by watching /proc;
  - programs: the distinct programs the engine verifies, recorded by a second warm run that wraps
    `Engine.run` (the measured audits are the plain commands, run through a counter of their verifier
    requests); for the pull request, the result-cache entries its cold run wrote;
  - verifier requests: each backend call of an audit (a batch: usually one Dafny run, on the command line or a
    kept-alive server), counted by COUNTER (bench/constants.py), which wraps each engine's backend in either
    commit's layout; the reference section shows both commits' and their (CPU - own) seconds per batch;
  - peak RSS: the sum of the resident memory of the measured process and all its descendants, sampled every
    0.1 s from /proc, and the largest single process (wait4's ru_maxrss, exact).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.constants import DEFAULT_OUT, REFERENCE, SAMPLE_SECONDS, SMALL_TASKS, WHEEL_Z3, default_dataset
from bench.machine import (
    differing_fields,
    differing_tasks,
    engine_has_server_option,
    find_wheel_z3,
    git_commit,
    load_average,
    machine_memory_gib,
    reference_verdicts,
    task_ids,
    tasks_phrase,
    verifier_version,
    z3_version,
)
from bench.results import (
    BenchResults,
    Beyond,
    Cost,
    Machine,
    Reference,
    Row,
    StrategyPair,
    Z3Comparison,
    render_results,
)
from bench.scenarios import Bench, baseline_worker, reference_code, say

# ---------------------------------------------------------------------------------------------------


def own_seconds(programs: list[dict[str, Any]]) -> float:
    """The programs' own verification seconds, summed (as recorded from a cold run's cache)."""
    return sum(float(p["seconds"]) for p in programs)


def strategy_note(lean: list[dict[str, Any]], each: list[dict[str, Any]], lean_s: float, each_s: float) -> str:
    """The two strategies side by side: distinct programs, their own verification seconds, the audit's wall time."""
    own = [own_seconds(ps) for ps in (each, lean)]
    return (f"strategies (cold): `each` {len(each)} programs, {own[0]:.1f} s of verification, audit {each_s:.1f} s; "
            f"`lean` {len(lean)} programs, {own[1]:.1f} s, audit {lean_s:.1f} s; "
            f"verification time x{own[1] / max(own[0], 1e-9):.2f}, audit x{lean_s / max(each_s, 1e-9):.2f}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    base = default_dataset()
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("dataset", nargs="?", default=str(base), help=f"dataset root (default: {base})")
    p.add_argument("--only", default=None, help="these task ids only (separated by commas)")
    p.add_argument("--tasks", type=int, default=None, help="the first N tasks in id order")
    p.add_argument("--small-tasks", type=int, default=SMALL_TASKS,
                   help=f"tasks of the memory check's smaller run (default {SMALL_TASKS}; 0 skips it)")
    p.add_argument("--jobs", type=int, default=None, help="verifier processes at a time (default: cores)")
    p.add_argument("--time-limit", type=int, default=20, help="seconds per program (default 20, the audit's)")
    p.add_argument("--baseline-sample", type=int, default=150, help="programs the baseline runs (default 150)")
    p.add_argument("--baseline-full", action="store_true", help="run the baseline on every program (slow)")
    p.add_argument("--z3-wheel", action=argparse.BooleanOptionalAction, default=True,
                   help=f"compare the engine cold with the z3 of the {WHEEL_Z3} wheel (default: on, installed "
                        "into a venv under ~/.cache when missing)")
    p.add_argument("--z3-path", default=None, help="the wheel's z3 binary, when it is somewhere else")
    p.add_argument("--server-comparison", action=argparse.BooleanOptionalAction, default=True,
                   help="when the engine has `--server`, also run it cold with `--no-server` (default: on)")
    p.add_argument("--pr", action=argparse.BooleanOptionalAction, default=True, help="run the pull request scenario")
    p.add_argument("--strategy-comparison", action=argparse.BooleanOptionalAction, default=True,
                   help="also run the audit cold with `--strategy each` (one program per question) beside the "
                        "default `lean`, and compare the programs' own verification time")
    p.add_argument("--strategy-pairs", type=int, default=1, metavar="N",
                   help="pairs of cold audits (`lean`, then `each`) for the strategy comparison; its targets are "
                        "the medians over the pairs (default 1: the cold run and one `each` run)")
    p.add_argument("--reference", default=REFERENCE, metavar="COMMIT",
                   help=f"also audit the tasks cold with the package of COMMIT in this checkout's history, and compare "
                        f"program by program (default {REFERENCE})")
    p.add_argument("--no-reference", action="store_true", help="do not measure the reference commit")
    p.add_argument("--dafny", default="dafny", help="the verifier (default: dafny on PATH)")
    p.add_argument("--engine-option", action="append", default=[], metavar="OPTION",
                   help="one more option for every engine run, e.g. --engine-option=--no-server (repeatable)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="where RESULTS.md is written (default: bench/RESULTS.md)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for trying the script")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (printed)")
    p.add_argument("--baseline-worker", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


@contextlib.contextmanager
def scratch(keep: bool) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="dafny-spec-score-bench-"))
    try:
        yield path
    finally:
        if keep:
            say(f"scratch folder kept: {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline_worker:
        return baseline_worker(Path(args.baseline_worker))
    if args.quick:
        args.tasks = args.tasks or 3
        args.small_tasks = min(args.small_tasks, 1)
        args.baseline_sample = min(args.baseline_sample, 8)
    real = shutil.which(args.dafny)
    if real is None:
        raise SystemExit(f"bench: `{args.dafny}` is not on PATH")
    dataset = Path(args.dataset).resolve()
    every = task_ids(dataset)
    ids = list(every)
    if args.only:
        wanted = {t.strip() for t in args.only.split(",") if t.strip()}
        unknown = sorted(wanted - set(every))
        if unknown:
            raise SystemExit(f"bench: --only: no such task in {dataset}: {', '.join(unknown)}")
        ids = [t for t in ids if t in wanted]
    if args.tasks:
        ids = ids[: args.tasks]
    jobs = args.jobs or os.cpu_count() or 1
    load = load_average()
    machine = Machine(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), cores=os.cpu_count() or 0,
        memory_gib=machine_memory_gib(), load=load, verifier=verifier_version(real), commit=git_commit(),
        dataset=str(dataset), tasks=len(ids), jobs=jobs, time_limit=args.time_limit,
        python=sys.version.split()[0],
    )
    say(f"{len(ids)} tasks, {jobs} jobs, Dafny {machine.verifier}, load {load}")
    env = {k: v for k, v in os.environ.items() if k != "DAFNY_SPEC_SCORE_Z3"}  # Debian's z3 unless --z3
    notes: list[str] = []
    with scratch(args.keep) as tmp:
        bench = Bench(dataset, every, ids != every, jobs, args.time_limit, real, tmp, list(args.engine_option), env)
        rows: list[Row] = []
        cold, cold_out = bench.audit("engine-cold", ids, tmp / "cache-cold")
        warm, warm_out = bench.audit("engine-warm", ids, tmp / "cache-cold")
        programs = bench.record(ids, tmp / "cache-cold")
        reference: Reference | None = None
        reference_row: Row | None = None
        if not args.no_reference:
            code = reference_code(args.reference, tmp)
            then, then_out = bench.audit(f"reference-{args.reference}-cold", ids, tmp / "cache-reference", code=code)
            then_programs = bench.record(ids, tmp / "cache-reference", code=code)
            reference_row = Row.of("reference", f"reference {args.reference}: engine, cold cache, "
                                   f"{tasks_phrase(len(ids))}", then, len(then_programs))
            reference = Reference(args.reference, Cost.of(f"this commit ({machine.commit})", cold.seconds,
                                                           cold.cpu_seconds, programs, cold),
                                  Cost.of(f"reference ({args.reference})", then.seconds, then.cpu_seconds,
                                          then_programs, then),
                                  *reference_verdicts(args.reference, then_out / "results.json",
                                                      cold_out / "results.json"))
        same = all((cold_out / n).read_bytes() == (warm_out / n).read_bytes()
                   for n in ("results.json", "results.csv", "report.md"))
        if not same:
            notes.append("the warm run's reports differ from the cold run's")
        # the outcomes' fingerprint: equal across commits exactly when every verdict, pin and witness is
        fingerprint = hashlib.md5((cold_out / "results.json").read_bytes()).hexdigest()
        notes.append(f"the cold run's results.json: md5 {fingerprint}")
        base_m, baseline = bench.baseline(programs, None if args.baseline_full else args.baseline_sample)
        n = len(programs)
        title = f"(a) baseline: one `dafny` per program, {n} programs"
        if baseline.full:
            rows.append(Row.of("baseline", title, base_m, n))
        else:
            rows.append(Row("baseline", title + f" (extrapolated from {baseline.sample})", baseline.total_seconds,
                            round(base_m.processes * n / max(1, baseline.sample)), n, base_m.peak_mib,
                            base_m.largest_mib, base_m.tool_mib, baseline.total_cpu, estimated=True))
            rows.append(Row.of("sample", f"(a) baseline sample, measured: {baseline.sample} programs", base_m,
                               baseline.sample))
        rows.append(Row.of("cold", f"(b) engine, cold cache, {tasks_phrase(len(ids))}", cold, n))
        rows.append(Row.of("warm", f"(c) engine, warm cache, {tasks_phrase(len(ids))}", warm, n))
        if reference_row is not None:
            rows.append(reference_row)
        servers = [f"engine cold {cold.servers}", f"warm {warm.servers}"]
        small_ids = ids[: args.small_tasks]
        if args.small_tasks and len(small_ids) < len(ids):
            small, _ = bench.audit("engine-cold-small", small_ids, tmp / "cache-small")
            small_programs = bench.record(small_ids, tmp / "cache-small")
            rows.append(Row.of("small", f"engine, cold cache, {tasks_phrase(len(small_ids))} (memory check)", small,
                               len(small_programs)))
            # the same tasks in runs of small_tasks each: more tasks per run, not other tasks (the first ten
            # lack the costliest programs, whose single verifier process sets the tree's peak)
            parts = [ids[k : k + args.small_tasks] for k in range(0, len(ids), args.small_tasks)]
            measured = [bench.audit(f"engine-cold-part-{k + 1}", part, tmp / f"cache-part-{k + 1}")[0]
                        for k, part in enumerate(parts)]
            rows.append(Row("parts", f"engine, cold cache, the same {tasks_phrase(len(ids))} in {len(parts)} runs of "
                            f"{args.small_tasks} (memory check: the largest of the runs)",
                            sum(m.seconds for m in measured), sum(m.processes for m in measured), n,
                            max(m.peak_mib for m in measured), max(m.largest_mib for m in measured),
                            max(m.tool_mib for m in measured), sum(m.cpu_seconds for m in measured),
                            resident_mib=max(m.resident_mib for m in measured)))
        pairs: list[StrategyPair] = []
        if args.strategy_comparison:
            each_args = ["--strategy", "each"]
            for k in range(1, max(1, args.strategy_pairs) + 1):
                suffix = "" if k == 1 else f"-{k}"
                lean, lean_out, lean_programs = cold, cold_out, programs
                if k > 1:  # the first pair's `lean` audit is the cold run above
                    lean, lean_out = bench.audit(f"engine-cold-lean{suffix}", ids, tmp / f"cache-lean{suffix}")
                    lean_programs = bench.record(ids, tmp / f"cache-lean{suffix}")
                each, each_out = bench.audit(f"engine-cold-each{suffix}", ids, tmp / f"cache-each{suffix}",
                                             more=each_args)
                each_programs = bench.record(ids, tmp / f"cache-each{suffix}", more=each_args)
                pairs.append(StrategyPair(lean.seconds, each.seconds, lean.cpu_seconds, each.cpu_seconds,
                                          own_seconds(lean_programs), own_seconds(each_programs),
                                          (lean_out / "results.json").read_bytes()
                                          == (cold_out / "results.json").read_bytes()))
                if k > 1:
                    continue
                rows.append(Row.of("each", f"engine, cold cache, {tasks_phrase(len(ids))}, `--strategy each` (one "
                                   "program per question)", each, len(each_programs)))
                notes.append(strategy_note(programs, each_programs, cold.seconds, each.seconds))
                fields = differing_fields(cold_out / "results.json", each_out / "results.json")
                notes.append("results.json with `--strategy each`: " + (
                    f"differs in tasks {fields}, by field (see README: Fewer programs)" if fields
                    else "identical to the default run's"))
        has_server = engine_has_server_option()
        if has_server and args.server_comparison and "--no-server" not in args.engine_option:
            plain, plain_out = bench.audit("engine-cold-no-server", ids, tmp / "cache-no-server", more=["--no-server"])
            rows.append(Row.of("noserver", f"engine, cold cache, {tasks_phrase(len(ids))}, `--no-server` "
                               "(one `dafny` per batch)", plain, n))
            same = (cold_out / "results.json").read_bytes() == (plain_out / "results.json").read_bytes()
            differ = differing_tasks(cold_out / "results.json", plain_out / "results.json")
            notes.append("results.json with `--no-server`: " + ("identical to the default run's" if same else
                         f"DIFFERENT from the default run's (tasks {', '.join(differ) or 'none'})"))
        comments: int | None = None
        pr_recorded: list[dict[str, Any]] = []
        if args.pr:
            pr, comments, pr_programs, pr_recorded = bench.pull_request()
            rows.append(Row.of("pr", "(d) pull request touching one spec: entrypoint.py, base + head, cold cache",
                               pr, pr_programs))
            servers.append(f"pull request {pr.servers}")
            notes.append("the pull request's programs: the result-cache entries its run wrote")
        z3 = Z3Comparison(False, "not asked (--no-z3-wheel)")
        if args.z3_wheel or args.z3_path:
            binary, reason = (args.z3_path, "") if args.z3_path else find_wheel_z3(install=True)
            if binary is None:
                z3 = Z3Comparison(False, reason)
            else:
                version = z3_version(binary)
                wheel, wheel_out = bench.audit("engine-cold-z3-wheel", ids, tmp / "cache-z3", z3=binary)
                rows.append(Row.of("z3", f"engine, cold cache, {tasks_phrase(len(ids))}, `--z3` {version} (wheel)",
                                   wheel, n))
                same_json = (cold_out / "results.json").read_bytes() == (wheel_out / "results.json").read_bytes()
                z3 = Z3Comparison(True, "", binary, version, cold.seconds, wheel.seconds, same_json,
                                  differing_tasks(cold_out / "results.json", wheel_out / "results.json"))
        notes.append(f"verifier processes: `dafny` starts (each engine run makes {cold.probes} of them only to read "
                     "the version) plus server processes seen (" + ", ".join(servers) + ")")
        notes.append("programs: the distinct programs the engine verifies (recorded by wrapping Engine.run in "
                     "a separate warm run); programs/s = programs / wall s")
        notes.append(f"peak RSS (tool + children): sampled every {SAMPLE_SECONDS:g} s, summed over the measured "
                     "process and all its descendants (a fork that has not exec'd yet shares its parent's pages "
                     "and is not counted); largest process: exact, of the processes waited for (ru_maxrss "
                     "from wait4: a server ended at exit without being waited for is not in it); tool: the "
                     "measured process alone (VmHWM); CPU s: user + system of the process and its descendants")
        if has_server:
            notes.append("the engine ran with its default `--server` setting"
                         + (f" and {' '.join(args.engine_option)}" if args.engine_option else ""))
        elif args.engine_option:
            notes.append(f"engine options: {' '.join(args.engine_option)}")
        machine = dataclasses.replace(machine, load_end=load_average())
        method_seconds = sum(float(item["seconds"]) for item in programs)
        beyond = [item for item in programs if item["phase"] == "every-input"]
        pr_beyond = [item for item in pr_recorded if item["phase"] == "every-input"]
        results = BenchResults(machine, tuple(rows), baseline, z3, comments, len(small_ids), tuple(notes),
                               method_seconds, tuple(pairs), Beyond(own_seconds(beyond), own_seconds(programs),
                                                                    len(beyond)),
                               Beyond(own_seconds(pr_beyond), own_seconds(pr_recorded), len(pr_beyond)),
                               reference)
    text = render_results(results)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text, end="")
    say(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
