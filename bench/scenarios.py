"""The scenarios: the baseline, the engine cold and warm, the pull request, the memory check; and the baseline
worker (one `dafny` per file, run as a subprocess so that it is measured)."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.constants import (
    BASELINE_WALL,
    COUNTER,
    EXAMPLE,
    PR_NUMBER,
    PR_REPO,
    PR_SPEC,
    RECORDER,
    ROOT,
    STRONG,
    WEAK,
)
from bench.questions import question
from bench.results import Baseline, Measured, sample_every
from bench.sampler import make_wrapper, measure

# ---------------------------------------------------------------------------------------------------
# The scenarios


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


@dataclass
class Bench:
    dataset: Path
    ids: list[str]  # the tasks, in id order
    restricted: bool  # a subset of the dataset's tasks (pass --only)
    jobs: int
    time_limit: int
    real_dafny: str
    tmp: Path
    extra: list[str]  # more options for every engine run
    env: dict[str, str] = field(default_factory=dict)
    count: int = 0

    def scenario(self, name: str) -> tuple[Path, Path, dict[str, str]]:
        """A fresh folder with its own `dafny` wrapper; the wrapper's log and the environment using it."""
        self.count += 1
        folder = self.tmp / f"{self.count:02d}-{name}"
        log = make_wrapper(folder, self.real_dafny)
        env = dict(self.env)
        env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return folder, log, env

    def audit_argv(self, ids: Sequence[str], out: Path, cache: Path, z3: str | None = None,
                   more: Sequence[str] = (), code: Path = ROOT) -> list[str]:
        # the engine options are this checkout's: the reference commit may not know them
        extra = self.extra if code == ROOT else []
        argv = ["audit", str(self.dataset), "--out", str(out), "--cache-dir", str(cache),
                "--pin", "--jobs", str(self.jobs), "--time-limit", str(self.time_limit), *extra, *more]
        if self.restricted or list(ids) != self.ids:
            argv += ["--only", ",".join(ids)]
        if z3 is not None:
            argv += ["--z3", z3]
        return argv

    def audit(self, name: str, ids: Sequence[str], cache: Path, z3: str | None = None,
              more: Sequence[str] = (), code: Path = ROOT) -> tuple[Measured, Path]:
        """`python3 -m bot audit` of the package in `code` (this checkout's, or the reference's), run through COUNTER
        (bench/constants.py), which counts its verifier requests."""
        folder, log, env = self.scenario(name)
        out = folder / "out"
        counted = folder / "requests.json"
        m = measure([sys.executable, "-c", COUNTER, str(counted), *self.audit_argv(ids, out, cache, z3, more, code)],
                    code, _package_first(env, code), log)
        if m.returncode != 0:
            raise SystemExit(f"bench: the audit ({name}) failed with exit code {m.returncode}:\n{m.output}")
        counts = read_counts(counted)
        m = replace(m, batches=counts.get("batches"), batch_programs=counts.get("batch_programs"))
        say(f"{name}: {m.seconds:.1f} s, {m.verifier_runs} `dafny` runs, {m.servers} servers, "
            f"peak {m.peak_mib:.0f} MiB")
        return m, out

    def record(self, ids: Sequence[str], cache: Path, more: Sequence[str] = (),
               code: Path = ROOT) -> list[dict[str, Any]]:
        """The distinct programs of an audit, in the order first asked, with the engine's outcomes and their own
        verification seconds (from the cache the cold run filled: that run's times)."""
        folder, _, env = self.scenario("record")
        record = folder / "programs.jsonl"
        argv = [sys.executable, "-c", RECORDER, str(record),
                *self.audit_argv(ids, folder / "out", cache, more=more, code=code)]
        proc = subprocess.run(argv, cwd=code, env=_package_first(env, code), capture_output=True, text=True,
                              check=False)
        if proc.returncode != 0:
            raise SystemExit(f"bench: the recording run failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        return _distinct(record)

    def baseline(self, programs: list[dict[str, Any]], size: int | None) -> tuple[Measured, Baseline]:
        chosen = programs if size is None else sample_every(programs, size)
        folder, log, env = self.scenario("baseline")
        files = []
        for i, item in enumerate(chosen):
            path = folder / "programs" / f"p{i:05d}" / "program.dfy"
            path.parent.mkdir(parents=True)
            path.write_text(item["text"], encoding="utf-8")
            files.append(str(path))
        manifest = folder / "manifest.json"
        results = folder / "runs.json"
        manifest.write_text(json.dumps({"files": files, "jobs": self.jobs, "time_limit": self.time_limit,
                                        "out": str(results)}))
        say(f"baseline: {len(files)} of {len(programs)} programs, one `dafny` each, {self.jobs} at a time")
        m = measure([sys.executable, "-m", "bench", "--baseline-worker", str(manifest)], ROOT, env,
                    log)
        if m.returncode != 0:
            raise SystemExit(f"bench: the baseline worker failed ({m.returncode}):\n{m.output}")
        runs = json.loads(results.read_text())["runs"]
        agree = sum((run["returncode"] == 0) == (item["outcome"] == "verified")
                    for run, item in zip(runs, chosen, strict=True))
        per_process = sum(run["seconds"] for run in runs) / len(runs) if runs else 0.0
        say(f"baseline: {m.seconds:.1f} s for {len(runs)} programs")
        return m, Baseline(len(programs), len(runs), m.seconds, per_process, m.cpu_seconds, agree, size is None)

    def pull_request(self) -> tuple[Measured, int, int, list[dict[str, Any]]]:
        """entrypoint.py on a PR touching examples/shared_elements.dfy: (measured, comments, programs, the programs
        as recorded by a second run on the first's cache, as `record` records an audit's)."""
        folder, log, env = self.scenario("pr")
        repo = folder / "repo"
        text = EXAMPLE.read_text(encoding="utf-8")
        if WEAK in text:
            base, head = text.replace(WEAK, STRONG), text
        elif STRONG in text:
            base, head = text, text.replace(STRONG, WEAK)
        else:
            raise SystemExit(f"bench: {EXAMPLE} has neither ensures clause the PR scenario edits")
        spec = repo / PR_SPEC
        spec.parent.mkdir(parents=True)
        _git(repo, "init", "-q", "-b", "main")
        spec.write_text(base, encoding="utf-8")
        (repo / "README.md").write_text("specs\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "base")
        base_sha = _git(repo, "rev-parse", "HEAD")
        spec.write_text(head, encoding="utf-8")
        _git(repo, "commit", "-q", "-am", "relax the spec")
        head_sha = _git(repo, "rev-parse", "HEAD")
        fake = load_fakegithub()
        cache = folder / "cache"
        with fake.FakeGitHub() as server:
            server.add_pull(PR_REPO, PR_NUMBER, base_sha=base_sha, head_sha=head_sha, files=[
                {"filename": PR_SPEC, "status": "modified", "additions": 1, "deletions": 1}])
            event = folder / "event.json"
            event.write_text(json.dumps({"number": PR_NUMBER, "pull_request": {
                "number": PR_NUMBER, "base": {"sha": base_sha, "repo": {"full_name": PR_REPO}},
                "head": {"sha": head_sha, "repo": {"full_name": PR_REPO}}}}))
            (folder / "output.txt").write_text("")
            (folder / "summary.md").write_text("")
            env = {k: v for k, v in env.items() if not k.startswith(("GITHUB_", "INPUT_"))}
            env.update({
                "GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": PR_REPO,
                "GITHUB_WORKSPACE": str(repo), "GITHUB_API_URL": server.url,
                "GITHUB_OUTPUT": str(folder / "output.txt"), "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
                "GITHUB_RUN_ID": "1", "GITHUB_SERVER_URL": "https://github.example",
                "INPUT_GITHUB_TOKEN": "bench-token-for-the-local-fake", "DAFNY_SPEC_SCORE_CACHE": str(cache),
                "INPUT_WORKING_DIRECTORY": str(repo), "INPUT_JOBS": str(self.jobs),
            })
            say("pull request: entrypoint.py, base and head, cold cache")
            m = measure([sys.executable, str(ROOT / "entrypoint.py")], repo, env, log)
            comments = len(server.comments_on(PR_REPO, PR_NUMBER))
            if m.returncode not in (0, 1):
                raise SystemExit(f"bench: entrypoint.py failed with exit code {m.returncode}:\n{m.output}")
            # the same run again on the cache the measured one filled, recording its programs (and their times)
            record = folder / "programs.jsonl"
            # run from the pull request's checkout: this checkout's package first on the path (an installed
            # `bot` may be another checkout's, or none: the recorder then failed with exit 1, read as the gate's)
            proc = subprocess.run([sys.executable, "-c", RECORDER, str(record), "--action"], cwd=repo,
                                  env=_package_first(env, ROOT),
                                  capture_output=True, text=True, check=False)
            if proc.returncode not in (0, 1) or not record.is_file():
                raise SystemExit(f"bench: the pull request's recording run failed ({proc.returncode}):\n"
                                 f"{proc.stderr[-4000:]}")
        programs = sum(1 for _ in cache.rglob("*.json")) if cache.is_dir() else 0
        say(f"pull request: {m.seconds:.1f} s, {comments} comment(s), exit code {m.returncode}")
        return m, comments, programs, _distinct(record)


def reference_code(commit: str, into: Path) -> Path:
    """The package (bot/) of `commit` in this checkout's history, unpacked under `into`: the reference the
    benchmark also measures, in the same run. A clone without that commit (a shallow one) cannot be measured."""
    folder = into / f"reference-{commit}"
    if (folder / "bot").is_dir():
        return folder
    proc = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "bot"], capture_output=True,
                          check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench: --reference {commit}: not in this checkout's history (a shallow clone? "
                         f"`git fetch --unshallow`, or --no-reference): {proc.stderr.decode(errors='replace')}")
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def _package_first(env: dict[str, str], code: Path) -> dict[str, str]:
    """The environment with `code`'s package first on the path (an installed `bot` may be another checkout's)."""
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH", "")]))}


def read_counts(path: Path) -> dict[str, int]:
    """What COUNTER wrote, as Measured's fields: the verifier requests (batches) and the programs they held; none
    when it wrote nothing (a backend it could not wrap) or something else."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not all(isinstance(data.get(k), int) for k in ("batches", "programs")):
        return {}
    return {"batches": data["batches"], "batch_programs": data["programs"]}


def _distinct(record: Path) -> list[dict[str, Any]]:
    """The distinct programs a recording run wrote, in the order first asked: text, outcome, seconds, phase."""
    seen: dict[str, dict[str, Any]] = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        text = item["prelude"].rstrip() + "\n\n" + item["method"].strip() + "\n"
        seen.setdefault(text, {"text": text, "outcome": item["outcome"], "seconds": float(item["seconds"]),
                               "phase": item.get("phase", "tests"), "prelude_chars": len(item["prelude"]),
                               "method_chars": len(item["method"]), "question": question(item)})
    return list(seen.values())


def _git(repo: Path, *args: str) -> str:
    repo.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def load_fakegithub() -> ModuleType:
    """tests/support/fakegithub.py, loaded by path (tests/ is no package)."""
    name = "bench_fakegithub"
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "support" / "fakegithub.py")
    if spec is None or spec.loader is None:
        raise SystemExit("bench: cannot load tests/support/fakegithub.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------------
# The baseline worker: one `dafny` per file, `jobs` at a time (run as a subprocess, so it is measured)


def baseline_worker(manifest: Path) -> int:
    spec = json.loads(manifest.read_text())
    dafny = shutil.which("dafny") or "dafny"

    def one(path: str) -> dict[str, Any]:
        argv = [dafny, "/compile:0", f"/timeLimit:{spec['time_limit']}", Path(path).name]
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=Path(path).parent, capture_output=True, timeout=BASELINE_WALL,
                                  check=False)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = -9
        return {"file": path, "returncode": code, "seconds": time.monotonic() - started}

    with ThreadPoolExecutor(max_workers=spec["jobs"]) as pool:
        runs = list(pool.map(one, spec["files"]))
    Path(spec["out"]).write_text(json.dumps({"runs": runs}))
    return 0
