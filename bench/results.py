"""What was measured, and bench/RESULTS.md. Pure code."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.constants import (
    DEV_TASKS,
    MEMORY_FLAT,
    SMALL_TASKS,
    TARGET_COLD_SECONDS,
    TARGET_EVERYWHERE_GROWTH,
    TARGET_OWN_SHARE,
    TARGET_PR_EVERYWHERE_GROWTH,
    TARGET_PR_SECONDS,
    TARGET_RATIO,
    TARGET_STRATEGY_SPEEDUP,
    TARGET_WARM_SECONDS,
)
from bench.questions import question_lines, tally

# ---------------------------------------------------------------------------------------------------
# Pure parts: what was measured, and RESULTS.md


@dataclass(frozen=True)
class Measured:
    """One measured command."""

    seconds: float
    returncode: int
    verifier_runs: int = 0  # `dafny` starts that verified something
    probes: int = 0  # `dafny` starts that only read a version or help
    servers: int = 0  # server processes seen (bot/verifier/server.py)
    peak_mib: float = 0.0  # sampled sum of the RSS of the process tree
    largest_mib: float = 0.0  # the largest single process (ru_maxrss)
    tool_mib: float = 0.0  # the measured process itself (its VmHWM, as last sampled)
    cpu_seconds: float = 0.0  # user + system time of the process and its descendants
    output: str = ""  # the tail of stdout + stderr
    resident_mib: float = 0.0  # sampled sum of the long-lived processes: the tool and its servers
    # the verifier requests (the backend's batches, COUNTER in bench/constants.py) and the programs they held; None:
    # not counted
    batches: int | None = None
    batch_programs: int | None = None

    @property
    def processes(self) -> int:
        return self.verifier_runs + self.probes + self.servers


@dataclass(frozen=True)
class Row:
    """A line of the table of scenarios."""

    key: str
    title: str
    seconds: float
    processes: int
    programs: int
    peak_mib: float
    largest_mib: float
    tool_mib: float = 0.0
    cpu_seconds: float = 0.0
    estimated: bool = False  # extrapolated from a sample
    resident_mib: float = 0.0  # the tool and its servers (see Measured)

    @staticmethod
    def of(key: str, title: str, m: Measured, programs: int) -> Row:
        return Row(key, title, m.seconds, m.processes, programs, m.peak_mib, m.largest_mib, m.tool_mib,
                   m.cpu_seconds, resident_mib=m.resident_mib)

    @property
    def per_second(self) -> float:
        return self.programs / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Baseline:
    programs: int  # all the programs the engine verifies
    sample: int  # how many were run
    sample_seconds: float  # wall time of the sample, `jobs` at a time
    process_seconds: float  # mean wall time of one process
    sample_cpu: float = 0.0  # CPU seconds of the sample (all its processes)
    agree: int = 0  # sampled programs whose verdict (verified or not) is the engine's
    full: bool = False

    @property
    def per_program(self) -> float:
        """Wall seconds per program, `jobs` processes at a time."""
        return self.sample_seconds / self.sample if self.sample else 0.0

    @property
    def total_seconds(self) -> float:
        return self.sample_seconds if self.full else self.per_program * self.programs

    @property
    def total_cpu(self) -> float:
        return self.sample_cpu if self.full or not self.sample else self.sample_cpu / self.sample * self.programs


@dataclass(frozen=True)
class Z3Comparison:
    measured: bool
    reason: str = ""  # why not measured
    binary: str = ""
    version: str = ""
    debian_seconds: float = 0.0
    wheel_seconds: float = 0.0
    identical: bool = False
    differing: tuple[str, ...] = ()  # task ids whose results differ


@dataclass(frozen=True)
class StrategyPair:
    """A cold audit with `--strategy lean` (the default), then one with `--strategy each` (one program per
    question), each with a cache of its own: one pair of the strategy comparison."""

    lean_seconds: float
    each_seconds: float
    lean_cpu: float
    each_cpu: float
    lean_own: float  # the programs' own verification seconds (Dafny's per-method times, summed)
    each_own: float
    same_results: bool  # lean's results.json is the first pair's, byte for byte

    @property
    def speedup(self) -> float:
        return self.each_seconds / self.lean_seconds if self.lean_seconds > 0 else 0.0

    @property
    def cpu_speedup(self) -> float:
        return self.each_cpu / self.lean_cpu if self.lean_cpu > 0 else 0.0

    @property
    def own_share(self) -> float:
        return self.lean_own / self.each_own if self.each_own > 0 else 0.0


def median_of(pairs: Sequence[StrategyPair], value: str) -> float:
    """The median over the pairs of one of their ratios (a single run moves by more than the targets' margins:
    `each` alone took 95-165 s on the same machine)."""
    return statistics.median([float(getattr(p, value)) for p in pairs]) if pairs else 0.0


@dataclass(frozen=True)
class Machine:
    date: str
    cores: int
    memory_gib: float
    load: str
    verifier: str
    commit: str
    dataset: str
    tasks: int
    jobs: int
    time_limit: int
    python: str
    load_end: str = ""  # load average when the runs were done


@dataclass(frozen=True)
class Target:
    name: str
    met: bool | None  # None: not measured
    value: str


@dataclass(frozen=True)
class Beyond:
    """The programs asked beyond the tests (determinacy on every input, spec changes, their probes, short questions
    and confirmations) in one run: their own verification seconds, all the run's, and how many they are."""

    seconds: float
    total: float
    programs: int

    @property
    def growth(self) -> float:
        """What they add to the rest: the run is throughput-bound, its workers kept busy."""
        rest = self.total - self.seconds
        return self.seconds / rest if rest > 0 else 0.0


@dataclass(frozen=True)
class Cost:
    """One commit's cold audit of the tasks, program by program: what its programs are and what they cost."""

    label: str  # `this commit (abc1234)`, `reference (7517177)`
    seconds: float  # the audit's wall time
    cpu_seconds: float
    programs: int  # distinct programs verified
    preludes: int  # distinct preludes (one per spec file and background the programs share)
    prelude_chars: float  # mean prelude size over the programs
    method_chars: float  # mean harness method size
    own: float  # the programs' own verification seconds (Dafny's per-method times, summed)
    beyond: int = 0  # programs asked beyond the tests (determinacy on every input)
    # (question, programs, own seconds) by what the programs ask (bench/questions.py)
    questions: tuple[tuple[str, int, float], ...] = ()
    # the cold audit's verifier requests (the backend's batches) and the programs they held; None: not counted
    batches: int | None = None
    batch_programs: int | None = None

    def beside_own(self) -> float | None:
        """CPU seconds per batch beyond the programs' own verification time: what a request costs around its
        programs (reading, resolving and translating its file, the prover's start and prelude, the canary after it
        on a server), with the tool's own work and the servers' start-up spread over the batches; None when the
        batches were not counted."""
        if not self.batches:
            return None
        return max(0.0, self.cpu_seconds - self.own) / self.batches

    def other(self, jobs: int) -> float:
        """Worker seconds not spent verifying a program's own method: start-up, resolving and checking the
        prelude of each batch, canaries, requests, idle workers between rounds."""
        return max(0.0, self.seconds * jobs - self.own)

    def busy(self, jobs: int) -> float:
        """The share of the workers' time spent on the programs' own verification."""
        return self.own / (self.seconds * jobs) if self.seconds > 0 and jobs > 0 else 0.0

    @staticmethod
    def of(label: str, seconds: float, cpu: float, programs: Sequence[dict[str, Any]],
           measured: Measured | None = None) -> Cost:
        """`measured`: the cold audit itself, for its verifier requests (Measured.batches)."""
        n = max(1, len(programs))
        preludes = {p["text"][: int(p.get("prelude_chars", 0))] for p in programs}
        return Cost(label, seconds, cpu, len(programs), len(preludes),
                    sum(int(p.get("prelude_chars", 0)) for p in programs) / n,
                    sum(int(p.get("method_chars", 0)) for p in programs) / n,
                    sum(float(p["seconds"]) for p in programs),
                    sum(1 for p in programs if p.get("phase") == "every-input"), tally(programs),
                    measured.batches if measured is not None else None,
                    measured.batch_programs if measured is not None else None)


@dataclass(frozen=True)
class Reference:
    """This commit against the reference commit, both cold on the same tasks in the same run."""

    commit: str
    now: Cost
    then: Cost
    # differing_verdicts: "" when every verdict, completeness, pin and decided case is the same, but for the tasks
    # in `known`, whose changes are exactly bench/known.py's
    verdicts: str
    known: tuple[str, ...] = ()

    @property
    def speedup(self) -> float:
        """The reference's wall time over this commit's (above 1: this commit is faster)."""
        return self.then.seconds / self.now.seconds if self.now.seconds > 0 else 0.0


def reference_lines(ref: Reference, jobs: int) -> list[str]:
    """The section comparing this commit with the reference, program by program."""
    lines = ["| code | wall s | CPU s | programs | beyond the tests | preludes | mean prelude chars "
             "| mean method chars | own verification s | own s / program | other worker s / program "
             "| workers busy verifying |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in (ref.then, ref.now):
        n = max(1, c.programs)
        lines.append(f"| {c.label} | {c.seconds:.1f} | {c.cpu_seconds:.1f} | {c.programs} | {c.beyond} | {c.preludes} "
                     f"| {c.prelude_chars:.0f} | {c.method_chars:.0f} | {c.own:.1f} | {c.own / n:.3f} | "
                     f"{c.other(jobs) / n:.3f} | {c.busy(jobs):.0%} |")
    same = ("the same in every task (verdict, evaluated, correctness, completeness, unknown; each case's status "
            "and pin)" if not ref.verdicts else f"DIFFERENT: {ref.verdicts}")
    if ref.known:
        same = same.replace("the same in every task", "the same in every other task") + (
            f"; {', '.join(ref.known)}: exactly the known changes (bench/known.py: what the code decides since "
            f"{ref.commit})")
    lines += ["", f"This commit against {ref.commit}, both cold, in this run: x{ref.speedup:.2f} "
              f"({ref.then.seconds:.1f} s against {ref.now.seconds:.1f} s). Verdicts: {same}.",
              f"Other worker seconds: {jobs} workers x the wall time, less the programs' own verification time "
              "(start-up, resolving each batch's prelude, canaries, requests, workers idle between rounds)."]
    lines += request_lines(ref.then, ref.now)
    if ref.then.questions or ref.now.questions:
        lines += ["", "By what the programs ask (own verification seconds, Dafny's per-method times):", "",
                  *question_lines(ref.then.questions, ref.now.questions, "reference", "this commit")]
    return lines


def request_lines(then: Cost, now: Cost) -> list[str]:
    """Both commits' verifier requests (batches) and what each costs around its programs, when both were counted."""
    if then.batches is None or now.batches is None:
        return []
    lines = ["", "Verifier requests (the backend's batches: usually one Dafny run each, and a canary after each one a "
                 "server answered; programs include prelude probes and background checks):", "",
             "| code | batches | programs per batch | CPU s | own verification s | (CPU - own) s per batch |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for c in (then, now):
        per = c.beside_own()
        held = f"{c.batch_programs / c.batches:.1f}" if c.batch_programs is not None and c.batches else "-"
        lines.append(f"| {c.label} | {c.batches} | {held} | {c.cpu_seconds:.1f} | {c.own:.1f} | "
                     f"{'-' if per is None else f'{per:.2f}'} |")
    return lines


@dataclass(frozen=True)
class BenchResults:
    machine: Machine
    rows: tuple[Row, ...]
    baseline: Baseline
    z3: Z3Comparison
    pr_comments: int | None = None  # comments on the PR after its run; None: not run
    small_tasks: int = 0  # tasks of the memory check's smaller run
    notes: tuple[str, ...] = ()
    # the cold run's programs' own verification time (Dafny's per-method `/xml` times, summed): the engine's
    # least possible worker time, whatever it does around the verifier
    method_seconds: float = 0.0
    pairs: tuple[StrategyPair, ...] = ()  # the strategy comparison, in the order run
    everywhere: Beyond | None = None  # the questions beyond the tests in the cold audit
    pr_everywhere: Beyond | None = None  # and in the pull request
    reference: Reference | None = None  # this commit against the reference commit; None: not run
    ratio: float = field(init=False)  # wall time, baseline / engine cold
    cpu_ratio: float = field(init=False)  # CPU time, the same

    def __post_init__(self) -> None:
        engine = self.row("cold")
        ratio = self.baseline.total_seconds / engine.seconds if engine is not None and engine.seconds > 0 else 0.0
        cpu = self.baseline.total_cpu / engine.cpu_seconds if engine is not None and engine.cpu_seconds > 0 else 0.0
        object.__setattr__(self, "ratio", ratio)
        object.__setattr__(self, "cpu_ratio", cpu)

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    @property
    def least_seconds(self) -> float:
        """The wall time of an engine with no overhead at all: the programs' own verification time spread evenly
        over the jobs."""
        return self.method_seconds / max(1, self.machine.jobs)

    @property
    def ratio_bound(self) -> float:
        """The ratio that engine would reach (0.0 when not measured)."""
        return self.baseline.total_seconds / self.least_seconds if self.least_seconds > 0 else 0.0


def ratio_line(ratio: float) -> str:
    """The line the issue asks for: `ratio: N.N`."""
    return f"ratio: {ratio:.1f}"


def sample_every(items: Sequence[Any], size: int) -> list[Any]:
    """A deterministic sample of at most `size`: every k-th item from the first, k = ceil(len / size)."""
    if size <= 0 or not items:
        return []
    step = max(1, -(-len(items) // size))
    return list(items[::step])[:size]


def count_starts(lines: Sequence[str]) -> tuple[int, int]:
    """(verifying runs, probes) from the wrapper's log: one line of arguments per start."""
    probes = 0
    runs = 0
    for line in lines:
        args = line.split()
        if not args:
            continue
        if set(args) <= {"--version", "/version", "--help", "verify", "-h", "/help", "/?"}:
            probes += 1
        else:
            runs += 1
    return runs, probes


def memory_flat(small_mib: float, large_mib: float) -> bool:
    return large_mib <= MEMORY_FLAT * small_mib


def _met(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "NOT MET"


def targets(res: BenchResults) -> list[Target]:
    out: list[Target] = []
    cold, warm, small, pr = res.row("cold"), res.row("warm"), res.row("small"), res.row("pr")
    bound = f"; at most {res.ratio_bound:.1f} with no overhead at all" if res.ratio_bound else ""
    out.append(Target(f"ratio baseline/engine >= {TARGET_RATIO:g} (pin checks on, proof-backed verdicts)",
                      res.ratio >= TARGET_RATIO if cold is not None else None, f"{res.ratio:.1f}{bound}"))
    dev = res.machine.tasks == DEV_TASKS
    for row, limit, label in ((cold, TARGET_COLD_SECONDS, "cold"), (warm, TARGET_WARM_SECONDS, "warm")):
        name = f"{DEV_TASKS}-task development audit {label} <= {limit:g} s"
        if row is None:
            out.append(Target(name, None, "not run"))
        elif not dev:
            out.append(Target(name, None, f"{row.seconds:.1f} s on {res.machine.tasks} tasks, not {DEV_TASKS}"))
        else:
            out.append(Target(name, row.seconds <= limit, f"{row.seconds:.1f} s"))
    name = f"pull request touching one spec <= {TARGET_PR_SECONDS:g} s end to end, comment posted"
    if pr is None:
        out.append(Target(name, None, "not run"))
    else:
        posted = res.pr_comments == 1
        out.append(Target(name, pr.seconds <= TARGET_PR_SECONDS and posted,
                          f"{pr.seconds:.1f} s, {res.pr_comments} comment(s)"))
    small_tasks = res.small_tasks or SMALL_TASKS
    name = (f"peak memory flat in the number of tasks (peak RSS of the tree at {res.machine.tasks} tasks "
            f"<= {MEMORY_FLAT:g} x at {small_tasks})")
    if small is None or cold is None:
        out.append(Target(name, None, "not run"))
    else:
        out.append(Target(name, memory_flat(small.peak_mib, cold.peak_mib),
                          f"{small.peak_mib:.0f} MiB at {small_tasks} tasks ({small.programs} programs), "
                          f"{cold.peak_mib:.0f} MiB at {res.machine.tasks} tasks ({cold.programs} programs); "
                          f"the tool alone {small.tool_mib:.0f} and {cold.tool_mib:.0f} MiB, "
                          + ("flat" if memory_flat(small.tool_mib, cold.tool_mib) else "not flat")
                          + f"; the long-lived processes (the tool and its servers) {small.resident_mib:.0f} and "
                          f"{cold.resident_mib:.0f} MiB, "
                          + ("flat" if memory_flat(small.resident_mib, cold.resident_mib) else "not flat")
                          + f"; the largest single process {small.largest_mib:.0f} and {cold.largest_mib:.0f} MiB "
                          "(one verifier process on the costliest program: set by which tasks, not how many)"))
    parts = res.row("parts")
    if parts is not None and cold is not None:
        out.append(Target(f"peak memory flat in the number of tasks per run (peak RSS of the tree in one run of all "
                          f"{res.machine.tasks} tasks <= {MEMORY_FLAT:g} x the largest of the runs of {small_tasks} "
                          "that cover the same tasks)", memory_flat(parts.peak_mib, cold.peak_mib),
                          f"{parts.peak_mib:.0f} MiB in runs of {small_tasks}, {cold.peak_mib:.0f} MiB in one run; "
                          f"the long-lived processes {parts.resident_mib:.0f} and {cold.resident_mib:.0f} MiB"))
    for beyond, what, limit in ((res.everywhere, "the cold audit", TARGET_EVERYWHERE_GROWTH),
                                (res.pr_everywhere, "the pull request", TARGET_PR_EVERYWHERE_GROWTH)):
        if beyond is not None and beyond.programs and beyond.total > beyond.seconds:
            out.append(Target(f"the questions beyond the tests add <= {limit:.0%} to {what} (their programs' own "
                              "verification time against the rest's)", beyond.growth <= limit,
                              f"+{beyond.growth:.0%}: {beyond.programs} programs, {beyond.seconds:.1f} s against "
                              f"{beyond.total - beyond.seconds:.1f} s"))
    ref = res.reference
    if ref is not None:
        out.append(Target(f"cold audit no slower than the reference {ref.commit} (same tasks, same run), with the same "
                          "verdicts (but for the changes bench/known.py lists)",
                          ref.speedup >= 1.0 and not ref.verdicts,
                          f"x{ref.speedup:.2f}, verdicts " + ("DIFFERENT" if ref.verdicts else "the same" + (
                              f" but the known changes ({', '.join(ref.known)})" if ref.known else ""))))
    if res.pairs:
        n = len(res.pairs)
        of = f"median of {n} pairs" if n > 1 else "1 pair"
        speedup, share = median_of(res.pairs, "speedup"), median_of(res.pairs, "own_share")
        out.append(Target(f"cold audit with `lean` >= {TARGET_STRATEGY_SPEEDUP:g} x faster than with `each` ({of})",
                          speedup >= TARGET_STRATEGY_SPEEDUP, f"{speedup:.2f} x"))
        out.append(Target(f"programs' own verification time with `lean` <= {TARGET_OWN_SHARE:g} x `each`'s ({of})",
                          share <= TARGET_OWN_SHARE, f"x{share:.2f}"))
    return out


def strategy_lines(pairs: Sequence[StrategyPair]) -> list[str]:
    """The strategy comparison's section: every pair, then the medians."""
    lines = ["| pair | `lean` s | `each` s | wall ratio | CPU ratio | own verification s (`lean` / `each`) | own share "
             "| `lean`'s results.json |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for k, p in enumerate(pairs, 1):
        same = "the first pair's" if p.same_results else "DIFFERENT from the first pair's"
        lines.append(f"| {k} | {p.lean_seconds:.1f} | {p.each_seconds:.1f} | {p.speedup:.2f} | {p.cpu_speedup:.2f} | "
                     f"{p.lean_own:.1f} / {p.each_own:.1f} | x{p.own_share:.2f} | {same} |")
    lines += ["", f"Medians over {len(pairs)} pair(s), each a `lean` cold audit then an `each` one: wall ratio "
              f"{median_of(pairs, 'speedup'):.2f}, CPU ratio {median_of(pairs, 'cpu_speedup'):.2f}, own share "
              f"x{median_of(pairs, 'own_share'):.2f}. The first pair's `lean` audit is row (b)."]
    return lines


def _fmt_rate(row: Row) -> str:
    return f"{row.per_second:.2f}" if row.per_second < 10 else f"{row.per_second:.0f}"


def render_results(res: BenchResults) -> str:
    """bench/RESULTS.md: header, table of scenarios, the ratio line, targets, the z3 comparison, notes."""
    m, b = res.machine, res.baseline
    lines = [
        "# Benchmark results",
        "",
        "Written by `python3 -m bench` (see bench/__main__.py for what is measured and how); the numbers vary",
        "with the machine and its load.",
        "",
        f"- date: {m.date}",
        f"- machine: {m.cores} cores, {m.memory_gib:.1f} GiB memory, load average at start {m.load}"
        + (f", at the end {m.load_end}" if m.load_end else ""),
        f"- verifier: Dafny {m.verifier}",
        f"- commit: {m.commit}",
        f"- python: {m.python}",
        f"- dataset: {m.dataset} ({m.tasks} tasks)",
        f"- jobs: {m.jobs} verifier processes at a time (baseline and engine); time limit {m.time_limit} s",
        "",
        "| scenario | wall s | verifier processes | programs | programs/s | peak RSS MiB (tool + children) "
        "| largest process MiB | tool MiB | CPU s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in res.rows:
        mark = "~" if r.estimated else ""
        lines.append(f"| {r.title} | {mark}{r.seconds:.1f} | {mark}{r.processes} | {r.programs} | "
                     f"{_fmt_rate(r)} | {r.peak_mib:.0f} | {r.largest_mib:.0f} | {r.tool_mib:.0f} | "
                     f"{mark}{r.cpu_seconds:.1f} |")
    lines += ["", ratio_line(res.ratio), ""]
    lines.append(f"The ratio is of wall times (baseline / engine, cold cache); of CPU times it is {res.cpu_ratio:.1f} "
                 "(less sensitive to the machine's load).")
    if b.full:
        lines.append(f"Baseline: all {b.programs} programs run, one process each; mean {b.process_seconds:.2f} s "
                     f"per process, {b.per_program:.2f} s per program with {m.jobs} at a time.")
    else:
        lines.append(f"Baseline: a sample of {b.sample} of the {b.programs} programs (every "
                     f"{max(1, -(-b.programs // max(1, b.sample)))}-th) run, one process each: "
                     f"{b.sample_seconds:.1f} s, so {b.per_program:.2f} s per program with {m.jobs} at a time "
                     f"(mean {b.process_seconds:.2f} s per process); extrapolated to all {b.programs}: "
                     f"{b.total_seconds:.0f} s (rows marked ~). `--baseline-full` runs them all.")
    if b.sample:
        lines.append(f"The baseline's verdict (verified or not) is the engine's on {b.agree} of the {b.sample} "
                     "programs run.")
    if res.ratio_bound:
        lines.append(f"The programs' own verification time (Dafny's per-method times in its `/xml` report, summed "
                     f"over the {b.programs} programs of the cold run) is {res.method_seconds:.1f} s: with no "
                     f"overhead at all (no start-up, no request or canary cost, {m.jobs} workers always busy) the "
                     f"engine would take {res.least_seconds:.1f} s, a ratio of at most "
                     f"{res.ratio_bound:.1f}.")
    lines += ["", "## Targets", ""]
    for t in targets(res):
        lines.append(f"- {t.name}: **{_met(t.met)}** ({t.value})")
    if res.reference is not None:
        lines += ["", f"## Against the reference ({res.reference.commit})", ""]
        lines += reference_lines(res.reference, m.jobs)
    if res.pairs:
        lines += ["", "## Strategies: `lean` against `each`", ""]
        lines += strategy_lines(res.pairs)
    lines += ["", "## z3: PyPI wheel against Debian's", ""]
    z = res.z3
    if not z.measured:
        lines.append(f"Not measured: {z.reason}")
    else:
        winner = "the wheel's z3" if z.wheel_seconds < z.debian_seconds else "Debian's z3"
        lines.append(f"- engine cold, Debian's z3 (Dafny's default): {z.debian_seconds:.1f} s")
        lines.append(f"- engine cold, `--z3` {z.binary} ({z.version}): {z.wheel_seconds:.1f} s")
        same = "identical" if z.identical else f"DIFFERENT (tasks {', '.join(z.differing) or 'none'})"
        lines.append(f"- results.json: {same}")
        lines.append(f"- faster: {winner}")
    if res.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in res.notes]
    return "\n".join(lines) + "\n"
