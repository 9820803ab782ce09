"""The Dafny 2.x backend: `dafny /compile:0 /proc:... /xml:F`.

What was checked against what:

* Dafny 2.3 (Debian, mono), measured on this machine:
  - `dafny /version` prints `Dafny 2.3.0.10506` first and exits non-zero (no input file);
    `dafny --version` prints `Dafny: Error: unknown switch: --version` and exits 1.
  - `/xml:F` writes `<method name="Impl$$_module.__default.X">` with `<error message= line= column=>`
    (children `<related line=>`) and `<conclusion outcome= duration=>`; outcomes seen: `correct`,
    `errors`, `timedout`. The file starts with a UTF-8 BOM. On parse/resolution errors (exit 2) the
    file holds no `<method>`.
  - Exit codes: 0 verified, 1 bad command line, 2 parse/resolution errors, 4 verification errors or
    time-outs.
  - `/proc:P` matches P, where `*` is a wildcard, against the WHOLE Boogie name (not a substring) and
    may be repeated. Names are mangled: `SpecScore_h1` is `Impl$$_module.__default.SpecScore__h1`, so
    `/proc:Impl*SpecScore_h1` matches nothing, `/proc:Impl*SpecScore__h1` matches h1 but not h12, and
    one argument holding two space-separated patterns matches nothing. We pass one
    `/proc:Impl$$*.__default.<mangled name>` per harness method: the prelude's lemmas are not
    re-verified and the harness methods' own well-formedness checks are skipped.
  - z3 4.8.12 prints `Prover error: line N column M: unknown parameter 'model_compress'` followed by a
    `Legal parameters are:` block; harmless, filtered out of every message.
  - A goal that times out reliably under `/timeLimit:1`: factoring a 64-bit semiprime over `bv64`
    (nonlinear `int` goals sometimes end as `errors` instead, z3 giving up as "incomplete").
  - `/errorLimit:1`: after a failed or timed-out check Boogie asks z3 again, up to 5 times by default, for
    further failures (the prover log shows a second `(check-sat)` after `(labels)`), so a program that timed
    out took up to twice its limit: 40.5 s under `/timeLimit:20`, 10.5 s under `/timeLimit:5`. With
    `/errorLimit:1` a time-out costs its limit; a refuted program reports its first failure only. Outcomes
    cannot change to or from `correct` (a proof has no failure to count); the development audit's
    results.json was byte-identical with and without it, and 10 s of verifier time shorter.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from bot.symbolic.program import Outcome, Result
from bot.verifier.output import (
    CRASH_MARKERS,
    FILE_NAME,
    MODEL_FILE,
    BoogieMethod,
    Layout,
    attribute_models,
    boogie_declaration,
    crash_message,
    describe_run,
    filter_noise,
    for_all,
    mangle,
    parse_boogie_xml,
    ran_to_end,
    run_batch,
    run_failure,
    start_batch,
    tail,
    timeout_message,
    whole_file_result,
)
from bot.verifier.process import BAD_COMMAND_LINE, NO_RESULT, OUT_OF_MEMORY, ProcessRun, run_process, wall_limit
from bot.verifier.version import VerifierInfo

_FLAGS = ("/compile:0", "/nologo", "/errorTrace:0", "/errorLimit:1")  # verify only; see the docstring


@dataclass(frozen=True)
class Dafny2Backend:
    """`dafny /compile:0 ... /xml:F` (Dafny 2.x command line).

    The whole process gets `wall_base + wall_per_method * methods` seconds (per method: the time limit
    unless given); on expiry its process group is killed.
    """

    info: VerifierInfo
    z3_path: str | None = None
    wall_base: float = 30.0
    wall_per_method: float | None = None
    # a background check may share its batch with harness methods (`verify_batch`'s `background`): `/proc` names
    # each procedure, and the report names each procedure's outcome
    mixed_checks: ClassVar[bool] = True

    def flags_id(self, time_limit: int) -> str:
        # the cache key: written from the flags `command` passes, so the two cannot disagree
        z3 = f" /z3exe:{self.z3_path}" if self.z3_path else ""
        return f"dafny {self.info.version}: {' '.join(_FLAGS)} /timeLimit:{time_limit} /proc:Impl*{z3}"

    def command(
        self, names: Sequence[str], time_limit: int, xml_name: str, model_name: str | None = None,
        checks: Sequence[str] = (),
    ) -> list[str]:
        """`checks`: declarations verified besides the methods (the background check): every procedure of each
        (`CheckWellformed$$`: a function against its `ensures` and for termination; `Impl$$`: a lemma's proof)."""
        argv = [*self.info.command, *_FLAGS, f"/timeLimit:{time_limit}"]
        argv += [f"/proc:Impl$$*.__default.{mangle(name)}" for name in names]
        # each declaration's procedures, and a co-lemma's or inductive lemma's prefix lemma (`L#`)
        argv += [f"/proc:*$$*.{mangle(n)}" for name in checks for n in (name, name + "#")]
        if self.z3_path:
            argv.append(f"/z3exe:{self.z3_path}")
        if model_name is not None:
            argv.append(f"/mv:{model_name}")
        return [*argv, f"/xml:{xml_name}", FILE_NAME]

    def wall_limit(self, time_limit: int, count: int) -> float:
        return wall_limit(self.wall_base, self.wall_per_method, time_limit, count)

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
        runner: Callable[[Sequence[str], str, float], ProcessRun] = run_process,
        *,
        checks: Sequence[str] = (),
        wall: float | None = None,
        background: str = "",
    ) -> dict[str, Result]:
        """`runner(argv, folder, wall)` runs the command: a process of its own, or a kept-alive verifier
        (bot/verifier/server.py), whose run is read the same way. `checks`: declarations verified too; then each
        name's result stands for all of them (`whole_file_result`), or with `background` (one of the names) that
        name's alone, and every other method of the batch gets its own, as without checks."""
        names, wanted, settled = start_batch(prelude, methods, models)
        if settled is not None:
            return settled
        # a checked declaration runs up to two procedures (a lemma: its well-formedness and its proof)
        own = self.wall_limit(time_limit, len(names) + 2 * len(checks))
        wall = own if wall is None else min(own, wall)
        model_name = MODEL_FILE if wanted else None
        argv = self.command(names, time_limit, "report.xml", model_name, checks)
        layout, run, report, model = run_batch(prelude, methods, argv, wall, model_name, runner, wanted)
        if checks and not background:
            return self._whole(layout, names, run, report, time_limit, wall)
        results = self._results(layout, [n for n in names if n != background], run, report, time_limit, wall)
        if background:
            results[background] = self._beside(layout, names, background, run, report, time_limit, wall)
        if not wanted or model is None or report is None:
            return results
        found = attribute_models(parse_boogie_xml(report), model.decode("utf-8", errors="replace"))
        for name in wanted:
            text = found.get(mangle(name), "")
            if text and results[name].outcome is Outcome.REFUTED:
                results[name] = replace(results[name], model=text)
        return results

    def _results(
        self,
        layout: Layout,
        names: Sequence[str],
        run: ProcessRun,
        report: bytes | None,
        time_limit: int,
        wall: float,
    ) -> dict[str, Result]:
        by_mangled = {mangle(name): name for name in names}
        concluded: dict[str, Result] = {}
        for method in parse_boogie_xml(report or b""):
            name = by_mangled.get(method.name)
            if name is not None and method.outcome:
                concluded[name] = self._conclusion(layout, name, method, time_limit)
        rest = [name for name in names if name not in concluded]
        output = filter_noise(run.output)
        failed = run_failure(rest, run, wall)
        if failed is not None:
            return {**concluded, **failed}
        if run.returncode == 1:
            return {**concluded, **for_all(rest, Outcome.ERROR, BAD_COMMAND_LINE + tail(output), run.seconds)}
        if run.returncode not in (0, 2, 4) or any(marker in output for marker in CRASH_MARKERS):
            return {**concluded, **crash_message(rest, run, output)}
        if run.returncode == 2 and not concluded:
            # Parse or resolution errors: nothing was verified; deterministic, so worth caching.
            return for_all(names, Outcome.ERROR, output or "parse or resolution error", run.seconds)
        if report is None:
            return {**concluded, **crash_message(rest, run, "no /xml report was written\n" + output)}
        return {**concluded, **{name: Result(Outcome.ERROR, NO_RESULT, 0.0) for name in rest}}

    def _beside(
        self, layout: Layout, names: Sequence[str], background: str, run: ProcessRun, report: bytes | None,
        time_limit: int, wall: float,
    ) -> Result:
        """The background check's result in a batch with harness methods: what its declarations' procedures
        concluded, as in a batch of its own (the harness methods' procedures, lines and warnings left out). A run
        that did not finish answers as such a run (`_whole`)."""
        return self._whole(layout, names, run, report, time_limit, wall, [n for n in names if n != background])[
            background]

    def _whole(
        self, layout: Layout, names: Sequence[str], run: ProcessRun, report: bytes | None, time_limit: int,
        wall: float, beside: Sequence[str] = (),
    ) -> dict[str, Result]:
        """Every procedure of the report but the named methods' (`CheckWellformed$$`: a function against its
        `ensures` and for termination; `Impl$$`: a lemma's proof) as one result for each name
        (`whole_file_result`). The background's lines are the prelude's own: no method range to map them into."""
        methods = parse_boogie_xml(report or b"")
        own = {mangle(name) for name in names}
        concluded: list[tuple[str, str | None]] = []
        for m in methods:
            if m.name in own or not m.outcome:
                continue
            why: str | None = None if m.outcome not in ("correct", "errors") else "; ".join(
                f"line {line}: {text}" + "".join(f" (related location: line {r})" for r in rel)
                for line, text, rel in m.errors)
            concluded.append((boogie_declaration(m.full), why))
        if not ran_to_end(run) or any(marker in filter_noise(run.output) for marker in CRASH_MARKERS):
            # killed, crashed or not resolved: the run's failure (transient but for a resolution error), never a
            # partial report, which would be cached: which procedures would have come after is not known
            return self._results(layout, names, run, None, time_limit, wall)
        harness = {mangle(name) for name in beside}  # `beside`: harness methods in the batch, with their own results
        seconds = sum(m.seconds for m in methods if m.name not in harness)
        return dict.fromkeys(names, whole_file_result(concluded, run, seconds, [layout.ranges[n] for n in beside]))

    @staticmethod
    def _conclusion(layout: Layout, name: str, method: BoogieMethod, time_limit: int) -> Result:
        details = [describe_run(layout, name, line, text, related) for line, text, related in method.errors]
        if method.outcome == "correct":
            return Result(Outcome.VERIFIED, "", method.seconds)
        if method.outcome == "errors":
            return Result(Outcome.REFUTED, "\n".join(details), method.seconds)
        if method.outcome in ("timedout", "timeout", "outofresource"):
            return Result(Outcome.TIMEOUT, timeout_message(time_limit, details), method.seconds)
        if method.outcome == "outofmemory":
            return Result(Outcome.ERROR, OUT_OF_MEMORY, method.seconds)
        return Result(Outcome.ERROR, f"verifier outcome '{method.outcome}'", method.seconds)
