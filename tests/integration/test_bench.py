"""The benchmark package (`python3 -m bench`): its pure parts (RESULTS.md, the ratio line, targets, sampling,
counting). Times nothing."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import constants as b_constants
from bench import known as b_known
from bench import machine as b_machine
from bench import results as b_results
from bench import sampler as b_sampler
from support.paths import ROOT

RATIO = re.compile(r"^ratio: \d+\.\d$")


def machine(tasks: int = 40) -> object:
    return b_results.Machine(date="2025-01-02 03:04 UTC", cores=2, memory_gib=23.5, load="0.10 0.20 0.30",
                         verifier="2.3.0.10506", commit="abc1234", dataset="/data/a57ce24", tasks=tasks, jobs=2,
                         time_limit=20, python="3.11.7")


def results(tasks: int = 40, cold: float = 80.0, warm: float = 4.0, pr: float = 8.0, comments: int = 1,
            small_peak: float = 300.0, cold_peak: float = 320.0, z3: object | None = None) -> object:
    rows = (
        b_results.Row("baseline", "(a) baseline, extrapolated", 6000.0, 3002, 3000, 250.0, 90.0, 40.0, 9000.0,
                  estimated=True),
        b_results.Row("sample", "(a) baseline sample", 300.0, 152, 150, 250.0, 90.0, 40.0, 450.0),
        b_results.Row("cold", "(b) engine, cold cache", cold, 120, 3000, cold_peak, 95.0, 70.0, 150.0),
        b_results.Row("warm", "(c) engine, warm cache", warm, 2, 3000, 60.0, 40.0, 60.0, 3.0),
        b_results.Row("small", "engine, cold cache, 10 tasks", 25.0, 30, 700, small_peak, 95.0, 60.0, 40.0),
        b_results.Row("pr", "(d) pull request", pr, 8, 84, 300.0, 90.0, 80.0, 20.0),
    )
    baseline = b_results.Baseline(programs=3000, sample=150, sample_seconds=300.0, process_seconds=3.9,
                              sample_cpu=450.0, agree=148)
    z3 = z3 if z3 is not None else b_results.Z3Comparison(False, "not asked (--no-z3-wheel)")
    return b_results.BenchResults(machine(tasks), rows, baseline, z3, comments, 10, ("a note",))


def test_ratio_line_format() -> None:
    assert b_results.ratio_line(12.345) == "ratio: 12.3"
    assert b_results.ratio_line(75) == "ratio: 75.0"
    assert b_results.ratio_line(0.0) == "ratio: 0.0"
    assert all(RATIO.match(b_results.ratio_line(x)) for x in (0.04, 9.96, 123.456))


def test_ratio_is_the_extrapolated_baseline_over_the_cold_engine() -> None:
    res = results(cold=80.0)
    assert res.baseline.per_program == 2.0 and res.baseline.total_seconds == 6000.0
    assert res.ratio == 6000.0 / 80.0
    assert res.cpu_ratio == 9000.0 / 150.0
    full = b_results.Baseline(programs=150, sample=150, sample_seconds=300.0, process_seconds=3.9, full=True)
    assert full.total_seconds == 300.0


def test_results_md_has_one_ratio_line_and_every_section() -> None:
    text = b_results.render_results(results())
    ratio_lines = [line for line in text.splitlines() if line.startswith("ratio")]
    assert ratio_lines == ["ratio: 75.0"] and RATIO.match(ratio_lines[0])
    for part in ("- date: 2025-01-02 03:04 UTC", "2 cores, 23.5 GiB memory", "Dafny 2.3.0.10506", "abc1234",
                 "| scenario | wall s | verifier processes | programs | programs/s | peak RSS MiB",
                 "## Targets", "## z3: PyPI wheel against Debian's", "Not measured: not asked", "- a note",
                 "a sample of 150 of the 3000 programs (every 20-th)", "extrapolated to all 3000: 6000 s",
                 "the engine's on 148 of the 150"):
        assert part in text, part
    table = [line for line in text.splitlines() if line.startswith("| (") or line.startswith("| engine")]
    assert [line.split(" | ")[0] for line in table] == [
        "| (a) baseline, extrapolated", "| (a) baseline sample", "| (b) engine, cold cache",
        "| (c) engine, warm cache", "| engine, cold cache, 10 tasks", "| (d) pull request"]
    assert "| ~6000.0 | ~3002 | 3000 | 0.50 |" in table[0]
    assert "| 80.0 | 120 | 3000 | 38 | 320 | 95 | 70 | 150.0 |" in table[2]
    assert b_results.render_results(results()) == text  # deterministic
    ended = b_results.BenchResults(b_results.Machine(**{**vars(machine()), "load_end": "1.00 2.00 3.00"}),
                                   results().rows, results().baseline, results().z3)
    assert "load average at start 0.10 0.20 0.30, at the end 1.00 2.00 3.00" in b_results.render_results(ended)


def test_ratio_bound_is_the_baseline_over_the_programs_own_time_per_job() -> None:
    res = results()
    assert res.ratio_bound == 0.0  # not measured: no line, no bound in the target
    text = b_results.render_results(res)
    assert "with no overhead at all" not in text and "**met** (75.0)" in text
    timed = dataclasses.replace(res, method_seconds=1500.0)  # 750 s per job of 2
    assert timed.ratio_bound == 6000.0 / 750.0
    text = b_results.render_results(timed)
    assert "ratio: 75.0" in text.splitlines()
    assert "(75.0; at most 8.0 with no overhead at all)" in text
    assert "summed over the 3000 programs of the cold run) is 1500.0 s" in text
    assert "the engine would take 750.0 s, a ratio of at most 8.0." in text


def test_targets_met_and_not_met() -> None:
    met = {t.name.split(" (")[0].split(" <=")[0]: t.met for t in b_results.targets(results())}
    assert list(met.values()) == [True, True, True, True, True]
    res = results(cold=700.0, warm=6.0, pr=20.0, cold_peak=500.0)
    assert [t.met for t in b_results.targets(res)] == [False, False, False, False, False]
    text = b_results.render_results(res)
    assert "ratio: 8.6" in text.splitlines() and "**NOT MET** (8.6)" in text
    assert "**NOT MET** (700.0 s)" in text and "**NOT MET** (6.0 s)" in text
    assert "**NOT MET** (20.0 s, 1 comment(s))" in text
    assert [t.met for t in b_results.targets(results(comments=0))][3] is False  # no comment posted: not met


def test_timing_targets_need_the_40_task_audit() -> None:
    found = b_results.targets(results(tasks=3))
    assert [t.met for t in found][1:3] == [None, None]
    assert "80.0 s on 3 tasks, not 40" in found[1].value
    assert "**not measured**" in b_results.render_results(results(tasks=3))


def test_z3_comparison_rendered() -> None:
    z3 = b_results.Z3Comparison(True, "", "/venv/bin/z3", "4.8.5", 80.0, 60.0, False, ("2", "17"))
    text = b_results.render_results(results(z3=z3))
    assert "`--z3` /venv/bin/z3 (4.8.5): 60.0 s" in text
    assert "results.json: DIFFERENT (tasks 2, 17)" in text and "faster: the wheel's z3" in text
    same = b_results.Z3Comparison(True, "", "/venv/bin/z3", "4.8.5", 50.0, 60.0, True)
    text = b_results.render_results(results(z3=same))
    assert "results.json: identical" in text and "faster: Debian's z3" in text


def test_sample_every_is_deterministic_and_spread() -> None:
    items = list(range(3000))
    chosen = b_results.sample_every(items, 150)
    assert len(chosen) == 150 and chosen[:3] == [0, 20, 40] and chosen == b_results.sample_every(items, 150)
    assert b_results.sample_every(items[:7], 150) == list(range(7))
    assert len(b_results.sample_every(list(range(10)), 3)) == 3
    assert b_results.sample_every(items, 0) == [] and b_results.sample_every([], 5) == []


def test_count_starts_keeps_version_probes_apart() -> None:
    log = ["--version", "/version", "/compile:0 /timeLimit:20 program.dfy",
           "/compile:0 /nologo /errorTrace:0 /timeLimit:20 /proc:Impl$$*.__default.X /xml:report.xml batch.dfy",
           "verify --help", ""]
    assert b_results.count_starts(log) == (2, 3)


def test_memory_flat() -> None:
    assert b_results.memory_flat(300.0, 370.0) and not b_results.memory_flat(300.0, 380.0)


def test_wrapper_logs_each_start_and_runs_the_real_command(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_text('#!/bin/sh\necho "real: $*"\n')
    real.chmod(0o755)
    log = b_sampler.make_wrapper(tmp_path / "w", str(real))
    wrapper = tmp_path / "w" / "bin" / "dafny"
    for args in (["/version"], ["/compile:0", "/proc:Impl$$*.__default.A*", "x y.dfy"]):
        out = subprocess.run([str(wrapper), *args], capture_output=True, text=True, check=True).stdout
        assert out == f"real: {' '.join(args)}\n"
    assert log.read_text().splitlines() == ["/version", "/compile:0 /proc:Impl$$*.__default.A* x y.dfy"]
    assert b_results.count_starts(log.read_text().splitlines()) == (1, 1)


def test_wrapper_of_a_launcher_script_keeps_its_exec_line(tmp_path: Path) -> None:
    """A reader of the launcher (bot/verifier/server.py loads the Dafny.exe it names) reads the same."""
    launcher = tmp_path / "dafny"
    launcher.write_text('#!/bin/sh\nexec /usr/bin/cli /usr/lib/dafny/Dafny.exe "$@"\n')
    log = tmp_path / "dafny.log"
    assert b_sampler.wrapper_script(str(launcher), log) == (
        f'#!/bin/sh\necho "$*" >> \'{log}\'\nexec /usr/bin/cli /usr/lib/dafny/Dafny.exe "$@"\n')
    relative = tmp_path / "relative"
    relative.write_text('#!/bin/sh\nexec mono "$(dirname "$0")/Dafny.exe" "$@"\n')
    binary = tmp_path / "binary"
    binary.write_bytes(b"\x7fELF\0\0")
    python = tmp_path / "python-launcher"
    python.write_text("#!/usr/bin/env python3\nprint('hi')\n")
    for real in (relative, binary, python, tmp_path / "missing"):
        assert b_sampler.wrapper_script(str(real), log) == f'#!/bin/sh\necho "$*" >> \'{log}\'\nexec \'{real}\' "$@"\n'


def test_servers_are_counted_by_the_name_the_backend_gives_them() -> None:
    from bot.verifier.server import HOST_EXE

    assert b_constants.SERVER_EXE == HOST_EXE


def test_differing_tasks(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"tasks": [{"task_id": "10", "v": 1}, {"task_id": "2", "v": 1}]}))
    b.write_text(json.dumps({"tasks": [{"task_id": "10", "v": 2}, {"task_id": "2", "v": 2}, {"task_id": "3"}]}))
    assert b_machine.differing_tasks(a, b) == ("2", "3", "10")
    assert b_machine.differing_tasks(a, a) == ()
    assert b_machine.differing_tasks(a, tmp_path / "missing.json") == ("?",)


def test_differing_fields_name_the_innermost_fields_that_differ(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    case = {"note": "", "mutants": [{"killed_by": "rejection", "status": "killed"}]}
    other = {"note": "x", "mutants": [{"killed_by": "pin", "status": "killed"}]}
    a.write_text(json.dumps({"tasks": [{"task_id": "7", "cases": [case]}, {"task_id": "2", "v": 1}]}))
    b.write_text(json.dumps({"tasks": [{"task_id": "7", "cases": [other]}, {"task_id": "2", "v": 2}]}))
    assert b_machine.differing_fields(a, b) == "2 (v), 7 (killed_by, note)"
    assert b_machine.differing_fields(a, a) == ""
    assert b_machine.differing_fields(a, tmp_path / "missing.json") == "?"


def test_a_fork_before_exec_is_not_counted_twice() -> None:
    server = ["mono", f"/tmp/specscore-host-1/{b_constants.SERVER_EXE}", "/usr/lib/dafny/Dafny.exe"]
    assert b_sampler.is_unexeced_fork(server, server)
    assert not b_sampler.is_unexeced_fork(["z3", "-smt2"], server)
    assert not b_sampler.is_unexeced_fork([], [])  # gone, or a zombie: nothing to compare

    # a real tree: a parent holding 200 MiB, a fork of it that sleeps (same command line, shared pages)
    # and a child that exec'd `sleep`
    code = ("import os, time, subprocess\n"
            "ballast = bytearray(200 * 1024 * 1024)\n"
            "for i in range(0, len(ballast), 4096): ballast[i] = 1\n"
            "sleeper = subprocess.Popen(['sleep', '5'])\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    time.sleep(5); os._exit(0)\n"
            "print('ready', flush=True); time.sleep(5)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        watch = b_sampler.TreeWatch(proc.pid)
        watch.stop()
        watch.sample()
        parent = b_sampler.rss_kib(proc.pid)
        assert parent > 200 * 1024
        # the parent and `sleep`, not the fork's copy of the parent's 200 MiB
        assert parent <= watch.peak_kib < parent + 50 * 1024, (parent, watch.peak_kib)
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_the_package_runs_as_a_module_from_the_checkout() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and "bench/RESULTS.md" in proc.stdout, proc.stderr


def test_strategy_pairs_targets_are_the_medians() -> None:
    pair = b_results.StrategyPair
    pairs = (pair(100.0, 140.0, 180.0, 250.0, 120.0, 210.0, True),  # 1.40 x, own x0.57
             pair(90.0, 165.0, 170.0, 300.0, 110.0, 240.0, True),  # 1.83 x, own x0.46
             pair(95.0, 150.0, 175.0, 260.0, 118.0, 190.0, False))  # 1.58 x, own x0.62
    res = dataclasses.replace(results(), pairs=pairs)
    found = {t.name.split(" (")[0]: t for t in b_results.targets(res)}
    speed = found["cold audit with `lean` >= 1.5 x faster than with `each`"]
    own = found["programs' own verification time with `lean` <= 0.6 x `each`'s"]
    assert speed.met is True and speed.value == "1.58 x"
    assert own.met is True and own.value == "x0.57"
    slow = dataclasses.replace(res, pairs=pairs[:1])
    assert [t.met for t in b_results.targets(slow) if "`lean`" in t.name] == [False, True]
    text = b_results.render_results(res)
    assert "## Strategies: `lean` against `each`" in text
    assert "| 3 | 95.0 | 150.0 | 1.58 | 1.49 | 118.0 / 190.0 | x0.62 | DIFFERENT from the first pair's |" in text
    assert "wall ratio 1.58, CPU ratio 1.49, own share x0.57" in text
    assert "`lean`" not in b_results.render_results(results())  # no pairs: no section, no targets


def test_the_questions_beyond_the_tests_are_a_target_of_their_own() -> None:
    res = dataclasses.replace(results(), everywhere=b_results.Beyond(20.0, 120.0, 70),
                              pr_everywhere=b_results.Beyond(6.0, 16.0, 12))
    audit, pr = [t for t in b_results.targets(res) if "beyond the tests" in t.name]
    assert audit.met is True and audit.value == "+20%: 70 programs, 20.0 s against 100.0 s"
    assert "<= 25% to the cold audit" in audit.name and "<= 40% to the pull request" in pr.name
    assert pr.met is False and pr.value.startswith("+60%")
    over = dataclasses.replace(res, everywhere=b_results.Beyond(30.0, 120.0, 70))
    assert [t.met for t in b_results.targets(over) if "beyond the tests" in t.name] == [False, False]
    assert not [t for t in b_results.targets(results()) if "beyond the tests" in t.name]  # not measured: not said
    for part in ("every-input", "with_everywhere", "spec_changes", "--action"):
        assert part in b_constants.RECORDER


def test_the_reference_commit_is_compared_program_by_program() -> None:
    def program(prelude: str, method: str, seconds: float, phase: str = "tests") -> dict[str, object]:
        return {"text": prelude + method, "prelude_chars": len(prelude), "method_chars": len(method),
                "seconds": seconds, "phase": phase}

    now = b_results.Cost.of("this commit (abc1234)", 40.0, 70.0, [
        program("P" * 100, "m" * 10, 10.0), program("P" * 100, "n" * 30, 6.0),
        program("Q" * 40, "e" * 20, 4.0, "every-input")])
    then = b_results.Cost.of("reference (7517177)", 30.0, 50.0, [program("P" * 100, "m" * 10, 12.0)])
    assert (now.programs, now.preludes, now.beyond, now.own) == (3, 2, 1, 20.0)
    assert (now.prelude_chars, now.method_chars) == (80.0, 20.0)
    assert now.other(2) == 60.0 and now.busy(2) == 0.25  # 2 workers x 40 s, 20 s of them verifying
    ref = b_results.Reference("7517177", now, then, "")
    assert ref.speedup == 0.75
    res = dataclasses.replace(results(), reference=ref)
    target = next(t for t in b_results.targets(res) if "reference" in t.name)
    assert target.met is False and target.value == "x0.75, verdicts the same"
    faster = dataclasses.replace(res, reference=b_results.Reference("7517177", then, now, ""))
    assert next(t for t in b_results.targets(faster) if "reference" in t.name).met is True
    changed = dataclasses.replace(res, reference=b_results.Reference("7517177", then, now, "2 (verdict)"))
    assert next(t for t in b_results.targets(changed) if "reference" in t.name).met is False  # faster, not the same
    text = b_results.render_results(res)
    assert "## Against the reference (7517177)" in text
    assert "| reference (7517177) | 30.0 | 50.0 | 1 | 0 | 1 | 100 | 10 | 12.0 | 12.000 | 48.000 | 20% |" in text
    assert "| this commit (abc1234) | 40.0 | 70.0 | 3 | 1 | 2 | 80 | 20 | 20.0 | 6.667 | 20.000 | 25% |" in text
    assert "x0.75 (30.0 s against 40.0 s). Verdicts: the same in every task" in text
    assert "DIFFERENT: 2 (verdict)" in b_results.render_results(changed)
    # the known changes left out: said, and the target met when nothing else changed
    known = dataclasses.replace(res, reference=b_results.Reference("7517177", then, now, "", ("572", "793")))
    target = next(t for t in b_results.targets(known) if "reference" in t.name)
    assert target.met is True and target.value == "x1.33, verdicts the same but the known changes (572, 793)"
    assert ("Verdicts: the same in every other task (verdict, evaluated, correctness, completeness, unknown; each "
            "case's status and pin); 572, 793: exactly the known changes (bench/known.py") in \
        b_results.render_results(known)
    both = dataclasses.replace(known, reference=b_results.Reference("7517177", then, now, "2 (verdict)", ("572",)))
    assert next(t for t in b_results.targets(both) if "reference" in t.name).met is False
    assert "DIFFERENT: 2 (verdict); 572: exactly the known changes" in b_results.render_results(both)
    assert "## Against the reference" not in b_results.render_results(results())


def test_differing_verdicts_compare_what_must_stay_the_same(tmp_path: Path) -> None:
    def task(tid: str, verdict: str = "weak", status: str = "verified", pin: str = "pinned",
             note: str = "") -> dict[str, object]:
        return {"task_id": tid, "verdict": verdict, "evaluated": True, "correctness": 1.0, "completeness": 0.5,
                "unknown": {}, "note": note, "cases": [{"name": "T#1", "status": status, "determinacy": pin,
                                                        "witness": note}]}

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"tasks": [task("2"), task("10"), task("7")]}))
    # a note and a witness differ (not verdicts); task 10's verdict and task 7's pin do
    b.write_text(json.dumps({"tasks": [task("2", note="x"), task("10", verdict="strong"),
                                       task("7", pin="not-pinned")], "extra": 1}))
    assert b_machine.differing_verdicts(a, b) == "7 (determinacy), 10 (verdict)"
    assert b_machine.differing_verdicts(a, a) == ""
    b.write_text(json.dumps({"tasks": [task("2"), task("10")]}))
    assert b_machine.differing_verdicts(a, b) == "7 (task)"
    assert b_machine.differing_verdicts(a, tmp_path / "missing.json") == "?"


def test_known_changes_are_left_out_only_when_exactly_the_same(tmp_path: Path) -> None:
    def task(tid: str, verdict: str = "weak", pin: str = "pinned") -> dict[str, object]:
        return {"task_id": tid, "verdict": verdict, "evaluated": True, "correctness": 1.0, "completeness": 0.5,
                "unknown": {}, "cases": [{"name": "T#1", "status": "verified", "determinacy": pin}]}

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"tasks": [task("2"), task("7"), task("10")]}))
    b.write_text(json.dumps({"tasks": [task("2"), task("7", pin="pinned-as-set"), task("10", verdict="wrong")]}))
    assert b_machine.verdict_changes(a, b) == {"7": {"case T#1: determinacy": ("pinned", "pinned-as-set")},
                                               "10": {"verdict": ("weak", "wrong")}}
    known = {"7": {"case T#1: determinacy": ("pinned", "pinned-as-set")}}
    assert b_machine.differing_verdicts(a, b, known) == "10 (verdict)"
    assert b_machine.explained(a, b, known) == ("7",)
    # the same field changed to another value, or one more field changed: reported
    for other in ({"7": {"case T#1: determinacy": ("pinned", "not-pinned")}},
                  {"7": {"case T#1: determinacy": ("pinned", "pinned-as-set"), "verdict": ("weak", "strong")}},
                  {"7": {}}):
        assert b_machine.differing_verdicts(a, b, other) == "7 (determinacy), 10 (verdict)"
        assert b_machine.explained(a, b, other) == ()
    # a known task that no longer changes is reported (what the code learned is lost); one not run is not
    assert b_machine.differing_verdicts(a, a, known) == "7 (known change absent: determinacy)"
    assert b_machine.differing_verdicts(a, a, {"99": {"verdict": ("weak", "wrong")}}) == ""
    # exactly: the known value in another JSON type is another change (True == 1 == 1.0 in Python)
    c, d = tmp_path / "c.json", tmp_path / "d.json"
    c.write_text(json.dumps({"tasks": [{**task("2"), "correctness": None}]}))
    d.write_text(json.dumps({"tasks": [{**task("2"), "correctness": True}]}))
    assert b_machine.verdict_changes(c, d) == {"2": {"correctness": (None, True)}}
    typed = {"2": {"correctness": (None, 1.0)}}
    assert typed["2"] == b_machine.verdict_changes(c, d)["2"]  # what Python's == would have let pass
    assert b_machine.differing_verdicts(c, d, typed) == "2 (correctness)"
    assert b_machine.explained(c, d, typed) == ()
    # the known list serves the default reference only, read once: both answers from one comparison
    assert b_machine.reference_verdicts(b_constants.REFERENCE, a, a) == ("", ())
    assert b_machine.reference_verdicts("0000000", a, b) == ("7 (determinacy), 10 (verdict)", ())
    assert b_machine.reference_verdicts("0000000", a, tmp_path / "missing.json") == ("?", ())


def test_bench_known_changes_are_read_as_verdict_changes() -> None:
    """Each known change names fields the comparison reads, with two different values (else it could never match)."""
    assert b_known.KNOWN
    for changes in b_known.KNOWN.values():
        assert changes
        for field, (then, now) in changes.items():
            name = field.rpartition(": ")[2] if field.startswith("case ") else field
            assert name in (*b_machine.VERDICT_FIELDS, *b_machine.CASE_FIELDS), field
            assert then != now, field


def test_the_reference_code_is_the_package_of_that_commit(tmp_path: Path) -> None:
    from bench.scenarios import reference_code

    present = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{b_constants.REFERENCE}^{{commit}}"],
                             capture_output=True, check=False)
    if present.returncode != 0:
        pytest.skip(f"{b_constants.REFERENCE} is not in this clone's history (a shallow clone)")
    code = reference_code(b_constants.REFERENCE, tmp_path)
    assert (code / "bot" / "__main__.py").is_file() and not (code / "tests").exists()
    assert reference_code(b_constants.REFERENCE, tmp_path) == code  # unpacked once
    try:
        reference_code("0" * 40, tmp_path)
    except SystemExit as e:
        assert "not in this checkout's history" in str(e) and "--no-reference" in str(e)
    else:
        raise AssertionError("a commit that is not in the history was unpacked")


def test_requests_breakdown_splits_server_time_and_calls() -> None:
    from bench import requests as b_requests

    asks = [b_requests.Ask(1, False, 0.0, 2.0, 1.5), b_requests.Ask(1, True, 2.0, 2.1, 0.1),
            b_requests.Ask(2, False, 1.0, 3.0, 1.8)]
    calls = [b_requests.Call("p", ("SpecScoreBackground", "SpecScore_a"), 0.0, 2.0, True),
             b_requests.Call("p", ("SpecScore_b",), 1.0, 3.0, True),
             b_requests.Call("p", ("SpecScore_Everywhere_c",), 3.0, 3.5, True),
             b_requests.Call("q", ("SpecScore_d", "SpecScore_Everywhere_e"), 3.5, 4.0, True),
             b_requests.Call("r", ("SpecScore_f",), 4.0, 5.0, False)]
    b = b_requests.breakdown(asks, calls, 5.0)
    assert b.servers == 2 and b.asks == {"batches": 2, "canaries": 1}
    assert b.seconds["batches"] == 4.0 and round(b.cpu["canaries"], 3) == 0.1
    # two in flight from 1 to 2 and from 2 to 2.1; none after 3
    assert {k: round(v, 3) for k, v in b.in_flight.items()} == {0: 2.0, 1: 1.9, 2: 1.1}
    assert b.calls == {"a first round, with the background check": (1, 2), "a later round": (1, 1),
                       "questions on every input alone": (1, 1), "questions on every input, with others": (1, 2),
                       "the command line's": (1, 1)}
    text = b_requests.render(b)
    assert "| canaries | 1 | 0.1 | 0.1 | 0.100 |" in text and "| 0 | 2.0 |" in text


def test_programs_are_told_by_what_they_ask_in_both_commits_namings() -> None:
    from bench import questions as b_questions

    def item(name: str, **fields: object) -> dict[str, object]:
        return {"name": name, "phase": "tests", "seconds": 1.0, **fields}

    # the reference spells kind and goal in the name's first two letters after the prefix
    assert b_questions.question(item("SpecScore_mr0123456789abcdef")) == "a mutant's rejection"
    assert b_questions.question(item("SpecScore_pp0123456789abcdef")) == "exact pin"
    assert b_questions.question(item("SpecScore_pa0123456789abcdef")) == "precondition"
    assert b_questions.question(item("SpecScore_ca0123456789abcdef")) == "acceptance of the expected output"
    # this code records them
    assert b_questions.question(item("SpecScore_0123", kind="pin", goal="pin-multiset")) == "order-free pin"
    assert b_questions.question(item("SpecScore_0123", kind="vacuity", goal="accept")) == \
        "vacuity (the case's assumptions)"
    assert b_questions.question(item("SpecScore_0123", kind="mutant", goal="reject", limit=2)) == \
        b_questions.TOGETHER
    assert b_questions.question(item("SpecScore_0123", kind="mutant", goal="reject")) == "a mutant's rejection"
    assert b_questions.question(item("SpecScoreBackground", kind=None, goal=None, checks=True)) == \
        b_questions.BACKGROUND
    assert b_questions.question(item("SpecScore_0123", kind="pin", goal="pin", phase="every-input")) == \
        b_questions.EVERY_INPUT
    assert b_questions.question(item("SpecScore_0123", kind="spec-change", goal="accept")) == b_questions.OTHER
    programs = [{"question": "exact pin", "seconds": 2.0}, {"question": "exact pin", "seconds": 1.0},
                {"question": b_questions.BACKGROUND, "seconds": 0.5}]
    now = b_questions.tally(programs)
    assert now == (("exact pin", 2, 3.0), (b_questions.BACKGROUND, 1, 0.5))
    lines = b_questions.question_lines((("exact pin", 3, 2.0),), now, "reference", "this commit")
    assert "| exact pin | 3 | 2.0 | 2 | 3.0 | +1.0 |" in lines
    assert f"| {b_questions.BACKGROUND} | 0 | 0.0 | 1 | 0.5 | +0.5 |" in lines
    assert lines[-1] == "| all | 3 | 2.0 | 3 | 3.5 | +1.5 |"
    # and the reference section shows the table when the costs carry it
    then = b_results.Cost("reference (7517177)", 30.0, 50.0, 3, 1, 10, 10, 2.0, 0, (("exact pin", 3, 2.0),))
    mine = b_results.Cost("this commit (abc1234)", 30.0, 50.0, 3, 1, 10, 10, 3.5, 0, now)
    text = "\n".join(b_results.reference_lines(b_results.Reference("7517177", mine, then, ""), 2))
    assert "| question | reference: programs | own s | this commit: programs | own s | own s added |" in text


def test_the_verifier_requests_are_counted_per_batch_and_shown_beside_the_reference() -> None:
    then = b_results.Cost("reference (7517177)", 30.0, 50.0, 3, 1, 10, 10, 20.0, batches=10, batch_programs=40)
    now = b_results.Cost("this commit (abc1234)", 30.0, 56.0, 3, 1, 10, 10, 26.0, batches=12, batch_programs=30)
    assert then.beside_own() == 3.0 and now.beside_own() == 2.5  # (CPU - own) / batches
    text = "\n".join(b_results.reference_lines(b_results.Reference("7517177", now, then, ""), 2))
    assert "| code | batches | programs per batch | CPU s | own verification s | (CPU - own) s per batch |" in text
    assert "| reference (7517177) | 10 | 4.0 | 50.0 | 20.0 | 3.00 |" in text
    assert "| this commit (abc1234) | 12 | 2.5 | 56.0 | 26.0 | 2.50 |" in text
    # a commit whose requests were not counted: no table rather than a made-up one
    uncounted = dataclasses.replace(then, batches=None, batch_programs=None)
    assert uncounted.beside_own() is None
    text = "\n".join(b_results.reference_lines(b_results.Reference("7517177", now, uncounted, ""), 2))
    assert "programs per batch" not in text


def test_the_counts_file_is_read_whole_or_not_at_all(tmp_path: Path) -> None:
    from bench.scenarios import read_counts

    path = tmp_path / "requests.json"
    assert read_counts(path) == {}  # not written (a backend the counter could not wrap)
    path.write_text("{not json")
    assert read_counts(path) == {}
    path.write_text(json.dumps({"batches": 3}))
    assert read_counts(path) == {}  # half a count is none
    path.write_text(json.dumps({"batches": 3, "programs": 11}))
    assert read_counts(path) == {"batches": 3, "batch_programs": 11}


@pytest.mark.parametrize("layout", ["bot/verifier/engine.py", "bot/engine.py"])
def test_the_counter_wraps_the_backend_of_either_commits_layout(tmp_path: Path, layout: str) -> None:
    """COUNTER on a package of this commit's layout (bot/verifier/engine.py) and of the reference's (bot/engine.py):
    each backend call counted once, with the programs it held, even when two engines share the backend."""
    package = tmp_path / "pkg"
    (package / layout).parent.mkdir(parents=True)
    for folder in {package / "bot", (package / layout).parent}:
        (folder / "__init__.py").write_text("")
    (package / layout).write_text("class Engine:\n    def __init__(self, backend, jobs=None):\n"
                                  "        self.backend = backend\n")
    module = layout[:-3].replace("/", ".")
    # frozen, as the command-line backends are; a call of its own `verify_batch` inside one request is that request
    # run as `python3 -m bot` (the reference's bot/__main__.py, which calls main() with no arguments)
    (package / "bot" / "__main__.py").write_text("import sys\nfrom bot.cli import main\nsys.exit(main())\n")
    (package / "bot" / "cli.py").write_text(
        f"from {module} import Engine\n"
        "import dataclasses, sys\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Backend:\n"
        "    def verify_batch(self, prelude, methods, time_limit, again=True):\n"
        "        if again:\n"
        "            self.verify_batch(prelude, methods[:1], time_limit, again=False)\n"
        "        return {name: 'verified' for name, _ in methods}\n"
        "def main(argv=None):\n"
        "    argv = sys.argv[1:] if argv is None else argv\n"
        "    backend = Backend()\n"
        "    first, second = Engine(backend), Engine(backend, jobs=2)\n"
        "    answers = first.backend.verify_batch('p', [('a', 'x'), ('b', 'y')], 20)\n"
        "    assert answers == {'a': 'verified', 'b': 'verified'}\n"
        "    second.backend.verify_batch('p', [('c', 'z')], 20)\n"
        "    return 0 if argv == ['audit', 'D'] else 3\n")
    counts = tmp_path / "requests.json"
    proc = subprocess.run([sys.executable, "-c", b_constants.COUNTER, str(counts), "audit", "D"], cwd=package,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package)}, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(counts.read_text()) == {"batches": 2, "programs": 3}
    # the audit's exit code is the command's, and the counts are written all the same
    counts.unlink()
    proc = subprocess.run([sys.executable, "-c", b_constants.COUNTER, str(counts), "audit", "E"], cwd=package,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package)}, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 3, proc.stderr
    assert json.loads(counts.read_text()) == {"batches": 2, "programs": 3}


@pytest.mark.dafny
def test_the_counter_counts_a_real_audits_requests_and_none_when_warm(tmp_path: Path, dafny_command: str) -> None:
    from bench.scenarios import read_counts

    dataset = ROOT / "tests" / "data" / "audit" / "DS"
    counted = []
    for run in ("cold", "warm"):
        counts = tmp_path / f"{run}.json"
        argv = [sys.executable, "-c", b_constants.COUNTER, str(counts), "audit", str(dataset), "--only", "105",
                "--labels", "none", "--out", str(tmp_path / run), "--cache-dir", str(tmp_path / "cache"),
                "--jobs", "1"]
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        counted.append(read_counts(counts))
    cold, warm = counted
    assert cold and warm, "the counter wrote nothing"
    assert cold["batches"] >= 1 and cold["batch_programs"] > cold["batches"]  # a case's checks go in one batch
    assert warm["batches"] < cold["batches"]  # the cache answers (what is never cached, a time-out, is asked again)
