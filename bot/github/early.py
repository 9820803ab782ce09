"""The verifier's processes started as the Action starts, before the rest of the tool loads and GitHub lists the pull
request's files: a server's start (mono, the verifier's JIT, its calibration) took 1.3 s, all of it before the first
batch, and loading the tool 0.55 s, all of it before that start began. The servers are those the run's engine takes
(`shared_pool`: the same `dafny`, z3 and prelude reuse); where the run's settings ask for others, or for none (`server:
false`), these are left idle and stopped at exit, and a run with nothing to verify (a pull request that changes no
spec) has cost their start in CPU only."""

from __future__ import annotations

from collections.abc import Mapping

from bot.options import Invalid, clean_flag, clean_jobs
from bot.verifier.server import prewarm
from bot.verifier.version import default_jobs, default_z3


def start_verifier_early(env: Mapping[str, str]) -> None:
    """As many servers as the run will have workers, by the `jobs` input as the Action reads it, and no more than
    the cores (a bad value is the run's to report: one per core here); none with the `server` input off."""
    try:
        jobs = clean_jobs(env.get("INPUT_JOBS", ""))
        server = clean_flag(env.get("INPUT_SERVER", "true") or "true")
    except Invalid:
        jobs, server = None, True
    if server:
        prewarm("dafny", default_z3(env), min(jobs or default_jobs(), default_jobs()))
