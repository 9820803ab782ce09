"""Runs the Action in process with a fake verifier backend (it decides each program by rule) and the fake
GitHub."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import runner
from bot.config import INPUT_DEFAULTS, Config
from bot.github import action
from bot.github.api import GitHubClient
from bot.options import OPTIONS, Use, input_env_name
from bot.runner import Verifier
from bot.symbolic.allowance import Allowance
from bot.symbolic.program import RUN_FINISHED, Outcome, Program, Result
from bot.verifier import VerifierInfo
from bot.verifier.engine import Engine
from support.outputs import outputs
from support.paths import DATA

AUDIT_FIXTURE = DATA / "audit"
REPO = "owner/specs"
PR = 7
TOKEN = "ghs_inprocess_token_value"
MARKER = "<!-- dafny-spec-score:default -->"
INFO = VerifierInfo(("dafny",), "2.3.0.10506", 2)

ACTION_INPUTS = tuple(o.name for o in OPTIONS if Use.ACTION in o.uses)


# ---------------------------------------------------------------------------------------------------
# the fake verifier


def spec(mode: str = "", ensures: str = "r == x + 1", method: str = "Inc", tests: bool = True) -> str:
    """A spec file of one method; `mode` is the fake's marker (see the module's docstring)."""
    marker = f"// fake: {mode}\n" if mode else ""
    text = f"{marker}method {method}(x: int) returns (r: int)\n  ensures {ensures}\n{{\n  r := x + 1;\n}}\n"
    if tests:
        text += calls_of(method)
    return text


def calls_of(method: str = "Inc", name: str = "") -> str:
    """A test method calling `method` twice: Inc(1) == 2 and Inc(5) == 6."""
    return (f"\nmethod {name or method + 'Test'}()\n{{\n  var a := {method}(1);\n  expect a == 2;\n"
            f"  var b := {method}(5);\n  expect b == 6;\n}}\n")

STRONG = spec()
WEAK = spec("weak", ensures="r > x")


@dataclass
class Call:
    prelude: str
    names: tuple[str, ...]
    time_limit: int
    models: frozenset[str]


class FakeBackend:
    """A `bot.verifier.Backend` that decides programs by rule and records every batch."""

    def __init__(self) -> None:
        self.info = INFO
        self.calls: list[Call] = []
        self.lock = threading.Lock()
        self.asked: dict[str, str] = {}  # program name -> what it asks (from the Program the engine was given)

    def flags_id(self, time_limit: int) -> str:
        return f"fake-backend /timeLimit:{time_limit}"

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
        checks: Sequence[str] = (),
        wall: float | None = None,  # a method's budget: the fake's answers take no time
    ) -> dict[str, Result]:
        if checks:  # the background check of the helpers a spec reaches: they verify here (not a harness program)
            return {name: Result(Outcome.VERIFIED, RUN_FINISHED) for name, _ in methods}
        with self.lock:
            self.calls.append(Call(prelude, tuple(n for n, _ in methods), time_limit, frozenset(models)))
        found = re.search(r"^// fake: (\w+)", prelude, re.MULTILINE)
        mode = found.group(1) if found else "strong"
        return {name: spec_change(prelude, text) if self.asked[name] == "sa" else decide(mode, self.asked[name], name)
                for name, text in methods}

    @property
    def programs(self) -> list[str]:
        return [n for c in self.calls for n in c.names]

    def kinds(self) -> set[str]:
        return {self.asked[n] for n in self.programs}


def asks(program: Program) -> str:
    """The first letters of a program's kind and goal: `ca` acceptance of an expected output, `cr` its
    rejection, `mr`/`ma` a mutant's rejection/acceptance, `pa`/`pr` the precondition, `va` vacuity,
    `pp` the pin check, `dp` determinacy on every input."""
    assert program.kind is not None and program.goal is not None, program.name
    return program.kind.value[0] + program.goal.value[0]


VERIFIED, REFUTED = Result(Outcome.VERIFIED, seconds=0.01), Result(Outcome.REFUTED, "a postcondition might not hold")
TIMEOUT = Result(Outcome.TIMEOUT, "timed out")


def spec_change(prelude: str, method: str) -> Result:
    """A spec-change question (bot/symbolic/spec_change.py). A `weaker` head (a `weak` spec in every other respect)
    accepts more than its base, which it otherwise agrees with; versions of one mode are equivalent; any other pair
    is undecided, so the tests that use a weak head for other purposes see no proved weakening. The `requires` are
    the same. No counterexample model: a witness must come from the tests' mutants."""
    modes = {}
    for version in ("Base", "Head"):
        found = re.search(rf"^module SpecScore_{version} {{\n// fake: (\w+)", prelude, re.MULTILINE)
        modes[version] = found.group(1) if found else "strong"
    outer = re.search(r"ensures SpecScore_(Base|Head)\.SpecScore_(Pre|Post)", method)
    assert outer is not None, method
    if outer.group(2) == "Pre" or modes["Base"] == modes["Head"]:
        return VERIFIED
    if modes["Head"] != "weaker":
        return TIMEOUT
    return REFUTED if outer.group(1) == "Base" else VERIFIED  # head within base fails; base within head holds


def decide(mode: str, k: str, name: str) -> Result:
    mode = "weak" if mode == "weaker" else mode  # `weaker` differs from `weak` only in spec-change questions
    if k == "va" or k == "pr":  # the assumptions are consistent; the precondition holds
        return REFUTED
    if k == "pa":
        return VERIFIED
    if k in ("ca", "cr"):
        if mode == "timeout":
            return TIMEOUT
        accepted = mode != "wrong"
        return VERIFIED if (k == "ca") == accepted else REFUTED
    if k in ("ma", "mr"):
        if mode == "unknown":
            return TIMEOUT
        if mode == "half":
            survives = int(name[-1], 16) % 2 == 1
        else:
            survives = mode == "weak"
        return VERIFIED if (k == "ma") == survives else REFUTED
    if k == "dp":  # determinacy on every input: a strong spec is determined; no model, so a weak one's witness
        # can only come from its tests (a verified case with a surviving mutant)
        if mode in ("unknown", "timeout"):
            return TIMEOUT
        return REFUTED if mode in ("weak", "half", "wrong") else VERIFIED
    if k == "pp":  # a proved pin rejects every mutant at once, so only a strong spec is pinned
        if mode == "unknown":
            return TIMEOUT
        return REFUTED if mode in ("weak", "half") else VERIFIED
    return Result(Outcome.ERROR, f"the fake does not know program {name}")


@dataclass
class Fake:
    backend: FakeBackend
    verifiers: list[Verifier] = field(default_factory=list)
    servers: list[bool] = field(default_factory=list)  # the `server` argument of every make_backend call

    def engines(self, config: Config) -> Verifier:
        """The Action's own engine factory; its backend is the fake (see the `fake` fixture)."""
        verifier = action.make_engine(config)
        self.verifiers.append(verifier)
        return verifier

    @property
    def engine(self) -> Engine:
        assert self.verifiers, "no engine was made"
        return self.verifiers[-1].engine


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Fake]:
    """The fake verifier in place of Dafny's, and a PATH on which only git is found."""
    git = shutil.which("git")
    assert git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("dafny") is None  # nothing could start the verifier
    backend = FakeBackend()
    made = Fake(backend)

    def detect(dafny: str = "dafny") -> VerifierInfo:
        assert dafny == "dafny"
        return INFO

    def make_backend(info: VerifierInfo, z3_path: str | None = None, server: bool = True,
                     reuse: bool = True) -> FakeBackend:
        assert info == INFO
        made.servers.append(server)
        return backend

    run = Engine.run

    def recording_run(self: Engine, programs: Sequence[Program],
                      allowance: Allowance | None = None) -> dict[Program, Result]:
        # the fake decides by what each program asks: read from the programs, never decoded from their names
        backend.asked.update({p.name: asks(p) for p in programs if p.kind is not None})
        return run(self, programs, allowance)

    monkeypatch.setattr(runner, "detect", detect)
    monkeypatch.setattr(runner, "make_backend", make_backend)
    monkeypatch.setattr(Engine, "run", recording_run)
    yield made


# ---------------------------------------------------------------------------------------------------
# git, the event and the environment


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def write_files(root: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


@dataclass
class PullRequest:
    repo: Path
    base: str
    head: str
    changed: list[str]


def make_pr(where: Path, base: dict[str, str], head: dict[str, str | None]) -> PullRequest:
    """A repository at `where`: a base commit with `base`'s files, and a head commit changing `head`'s."""
    where.mkdir(parents=True, exist_ok=True)
    git(where, "init", "-q", "-b", "main")
    write_files(where, {"README.md": "specs\n", **base})
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "base")
    base_sha = git(where, "rev-parse", "HEAD")
    write_files(where, head)
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "head")
    return PullRequest(where, base_sha, git(where, "rev-parse", "HEAD"), sorted(head))


@dataclass
class Env:
    """The runner's environment for one workspace; `vars` is what `Config.from_environ` reads."""

    workspace: Path
    vars: dict[str, str]

    @property
    def output(self) -> Path:
        return Path(self.vars["GITHUB_OUTPUT"])

    @property
    def summary(self) -> Path:
        return Path(self.vars["GITHUB_STEP_SUMMARY"])

    @property
    def event(self) -> Path:
        return Path(self.vars["GITHUB_EVENT_PATH"])


def action_env(workspace: Path, server: Any, tmp: Path, **inputs: str) -> Env:
    """What the runner gives the container: every input (defaults included) and the GitHub context."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = {input_env_name(name): default for name, default in INPUT_DEFAULTS.items()}
    env[input_env_name("github-token")] = TOKEN
    output, summary = tmp / "output.txt", tmp / "summary.md"
    output.write_text("")
    summary.write_text("")
    env.update(
        GITHUB_WORKSPACE=str(workspace), GITHUB_REPOSITORY=REPO, GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(tmp / "event.json"), GITHUB_RUN_ID="42", GITHUB_SHA="abc123",
        GITHUB_SERVER_URL="https://github.example", GITHUB_API_URL=server.url, GITHUB_OUTPUT=str(output),
        GITHUB_STEP_SUMMARY=str(summary), DAFNY_SPEC_SCORE_CACHE=str(tmp / "cache"), PATH=os.environ["PATH"],
    )
    for name, value in inputs.items():
        env[input_env_name(name.replace("_", "-"))] = value
    return Env(workspace, env)


def pr_event(path: Path, pr: PullRequest, head_repo: str = REPO) -> None:
    path.write_text(json.dumps({"number": PR, "pull_request": {
        "number": PR, "base": {"sha": pr.base, "repo": {"full_name": REPO}},
        "head": {"sha": pr.head, "repo": {"full_name": head_repo}}}}))


@dataclass
class Ran:
    code: int
    log: str
    outputs: dict[str, str]
    summary: str


GitHubFactory = Callable[[Config], GitHubClient | None]


def run_action(env: Env, fake: Fake, *, fresh: bool = True, github_factory: GitHubFactory = action.make_github) -> Ran:
    """`bot.github.action.run` as `main` calls it, with the fake verifier; `fresh` empties the runner's files."""
    if fresh:
        env.output.write_text("")
        env.summary.write_text("")
    config = Config.from_environ(env.vars)
    github = github_factory(config)
    out = io.StringIO()
    try:
        code = action.run(config, github, fake.engines, out)
    finally:
        if github is not None:
            github.close()
    log = out.getvalue()
    assert TOKEN not in log
    return Ran(code, log, outputs(env.output), env.summary.read_text())


def patch_of(pr: PullRequest, path: str) -> str:
    """The file's diff from base to head as GitHub's `patch` field gives it: the hunks, without the header."""
    text = git(pr.repo, "diff", pr.base, pr.head, "--", path)
    return text[text.find("@@"):] if "@@" in text else ""


def pr_run(tmp_path: Path, server: Any, fake: Fake, base: dict[str, str], head: dict[str, str | None],
           changed: list[str] | None = None, github_factory: GitHubFactory = action.make_github,
           patches: bool = False, **inputs: str) -> tuple[Ran, PullRequest, Env]:
    """A pull request from `base` to `head` in a repository that is the workspace, scored once. `patches`:
    GitHub lists each file with its real diff (else with a stub hunk on line 1, where no finding sits)."""
    pr = make_pr(tmp_path / "repo", base, head)
    server.add_pull(REPO, PR, base_sha=pr.base, head_sha=pr.head,
                    files=[{"filename": f, "status": "modified", **({"patch": patch_of(pr, f)} if patches else {})}
                           for f in (pr.changed if changed is None else changed)])
    env = action_env(pr.repo, server, tmp_path / "runner", **inputs)
    pr_event(env.event, pr)
    return run_action(env, fake, github_factory=github_factory), pr, env


def report(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / "dafny-spec-score.json").read_text())
    return data


def methods(repo: Path) -> dict[str, dict[str, Any]]:
    return {f"{m['file']}:{m['method']}": m for m in report(repo)["methods"]}


def comments(server: Any) -> list[Any]:
    return list(server.comments_on(REPO, PR))


# ---------------------------------------------------------------------------------------------------
# 1. mode pr
