#!/usr/bin/env python3
"""Hostile-input battery: hostile pull requests, crafted files and faults, counted per category.

Run by pytest as tests/hostile/test_battery.py (`python3 -m pytest -m hostile [--hostile-tree PATH]`, one test per
input), or as a script for the table. It runs the Action (`<tree>/entrypoint.py`) and the CLI (`python3 -m bot
score`) of a checkout as subprocesses (`PYTHONPATH=<tree>`, working folders under a temporary directory) against the
fake GitHub of this checkout's tests/support/fakegithub.py and the real `dafny` on PATH (or stand-ins that crash,
hang or dump their environment), decides for every input whether it was handled, and prints per category how many
were, with what happened instead for the others. Pointing `--tree` at an older checkout measures that checkout's
code with the same inputs. The tree's bot/ and entrypoint.py are copied first, so edits made while the battery runs
do not mix in. About 3 minutes on 2 cores; it needs `dafny` and `git`.

    python3 tests/hostile/battery.py [--tree PATH] [--json FILE] [--only TEXT] [--workers N] [--verbose]

`--tree` defaults to the checkout holding this script; `--only` keeps the inputs whose
`category/name` contains TEXT. What "handled" means is written next to each category below.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parents[2]  # the checkout holding this file
REPO = "owner/specs"
PR = 7
TOKEN = "ghs_battery0secret0token0value0XYZ"
MARKER = "<!-- dafny-spec-score:default -->"
OUTSIDE = "OUTSIDEMARKER9q7z"  # text only files outside the checkout hold
PAYLOAD = "@everyone @octocat </code></details> <!-- x | `tick` |"  # for names: free to be long
SHORT = "@octocat </details><!--|`"  # for string values: every character costs the verifier time
BOT = "dafny-spec-score-bot"
CATEGORIES = ("gate", "injection", "comment", "files", "post-comment", "token", "cli", "github")
ACTION_TIMEOUT = 400.0
CLI_TIMEOUT = 60.0
LOG_TAIL = 3000

# -- Dafny sources -------------------------------------------------------------------------------

ADD = """method Add(x: int, y: int) returns (r: int)
  ensures r == x + y
{
  r := x + y;
}

method AddTest()
{
  var a := Add(1, 2);
  assert a == 3;
}
"""
WEAK_ADD = ADD.replace("ensures r == x + y", "ensures r >= x")
ADD_NO_TESTS = ADD.split("method AddTest")[0]
ADD_TOML = 'method = "Add"\n[[case]]\nargs = ["1", "2"]\nexpected = "3"\n'
MODULES = """module A {
  method Add(x: int, y: int) returns (r: int)
    ensures r == x + y
  { r := x + y; }
}
module B {
  method Add(x: int, y: int) returns (r: int)
    ensures r == x + y
  { r := x + y; }
}
method AddTest()
{
  var a := A.Add(1, 2);
  assert a == 3;
  var b := B.Add(2, 2);
  assert b == 4;
}
"""


def echo(name: str = "Echo", value: str = "ab", ensures: str = "|r| == |s|") -> str:
    """A weak string spec (length only) with one test: its mutants survive, so the comment lists them."""
    return (
        f"method {name}(s: string) returns (r: string)\n  ensures {ensures}\n{{\n  r := s;\n}}\n\n"
        f'method {name}Test()\n{{\n  var r := {name}("{value}");\n  assert r == "{value}";\n}}\n'
    )


ID = """method Id(x: int) returns (r: int)
  ensures r == x
{
  r := x;
}

method IdTest()
{
  var r := Id(5);
  assert r == 5;
}
"""
SEQ_ID = "method SeqId(s: seq<int>) returns (r: seq<int>)\n  ensures r == s\n{\n  r := s;\n}\n"

# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    handled: bool
    detail: str


def judge(problems: Sequence[str], ok: str = "") -> Verdict:
    return Verdict(not problems, "; ".join(problems) if problems else ok)


@dataclass(frozen=True)
class Result:
    category: str
    name: str
    handled: bool
    detail: str
    seconds: float
    battery_error: bool = False
    log: str = ""  # the end of what the tree's processes printed


# -- processes, repositories, fakes ----------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    code: int | None  # None: killed at the time-out
    stdout: str
    stderr: str
    seconds: float

    @property
    def log(self) -> str:
        return self.stdout + self.stderr

    @property
    def timed_out(self) -> bool:
        return self.code is None


def run_proc(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float) -> Proc:
    """Run argv in its own process group; on time-out kill that group (only what we started)."""
    start = time.monotonic()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # a process outside the group holds the pipes: give up on the output
            proc.kill()
            out, err = b"", b""
        code = None
    return Proc(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start)


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True, env=env)
    return done.stdout.decode("utf-8", "replace").strip()


@dataclass(frozen=True)
class Link:
    """A symbolic link to `target`, committed as such."""

    target: Path


Content = str | bytes | Link | None  # None: delete the file at head


def write_files(root: Path, files: Mapping[str, Content]) -> None:
    for name, content in files.items():
        path = root / name
        if path.is_symlink() or path.is_file():
            path.unlink()
        if content is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            os.symlink(content.target, path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@dataclass(frozen=True)
class Repo:
    path: Path
    base: str
    head: str


def make_repo(root: Path, base: Mapping[str, Content], head: Mapping[str, Content]) -> Repo:
    """A git repository with a base commit (`base` files and a README) and a head commit (`head` on top)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, {"README.md": "specs\n", **base})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base_sha = git(root, "rev-parse", "HEAD")
    write_files(root, head)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "head")
    return Repo(root, base_sha, git(root, "rev-parse", "HEAD"))


def load_tests_module(stem: str) -> ModuleType:
    """tests/support/<stem>.py of this checkout, loaded by path (run as a script, the tests are not on the path)."""
    name = f"hostile_battery_{stem}"
    path = HERE / "tests" / "support" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def load_fakegithub() -> ModuleType:
    return load_tests_module("fakegithub")


runner_log = load_tests_module("runner_log")  # the log as the Actions runner reads it, shared with the tests
parse_outputs = load_tests_module("outputs").parse_outputs  # GITHUB_OUTPUT as the runner reads it


FAKE_DAFNY = '''#!{python}
"""Stand-in for dafny: dumps its environment, then crashes or hangs on programs holding the trigger."""
import json, os, sys, time
REAL, TRIGGER, MODE, DUMP = {real!r}, {trigger!r}, {mode!r}, {dump!r}
if DUMP:
    with open(os.path.join(DUMP, "env-%d.json" % os.getpid()), "w") as handle:
        json.dump(dict(os.environ), handle)
def holds_trigger(arg):
    try:
        return arg.endswith(".dfy") and TRIGGER in open(arg, encoding="utf-8", errors="replace").read()
    except OSError:
        return False
if TRIGGER and any(holds_trigger(a) for a in sys.argv[1:]):
    if MODE == "hang":  # until killed, or its parent is gone, or 5 minutes
        for _ in range(300):
            if os.getppid() == 1:
                break
            time.sleep(1)
    print("Unhandled Exception:")
    print("System.NullReferenceException: Object reference not set to an instance of an object")
    if MODE == "crash-env":
        print(json.dumps(dict(os.environ)))
    sys.exit(134)
os.execv(REAL, [REAL, *sys.argv[1:]])
'''


@dataclass
class Sandbox:
    """One input's world: a scratch folder, a fresh fake GitHub, the tree under test."""

    tree: Path
    tmp: Path
    server: Any
    real_dafny: str
    shared_cache: Path
    fakegithub: ModuleType
    logs: list[str] = field(default_factory=list)  # every subprocess's exit code and output, for the JSON

    def fake_dafny(self, mode: str, trigger: str = "", dump: Path | None = None) -> Path:
        """A folder to put first on PATH whose `dafny` is the stand-in."""
        folder = self.tmp / f"bin-{mode}"
        folder.mkdir()
        script = folder / "dafny"
        script.write_text(FAKE_DAFNY.format(python=sys.executable, real=self.real_dafny, trigger=trigger, mode=mode,
                                            dump=str(dump) if dump else ""))
        script.chmod(0o755)
        return folder

    def env(self, extra: Mapping[str, str] | None = None, path_first: Path | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "PYTHON"))}
        env["PYTHONPATH"] = str(self.tree)
        if path_first is not None:
            env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
        env.update(extra or {})
        return env

    def action(
        self,
        repo: Repo,
        inputs: Mapping[str, str] | None = None,
        *,
        event: Any = None,
        event_name: str = "pull_request",
        raw_event: bytes | None = None,
        extra_env: Mapping[str, str] | None = None,
        path_first: Path | None = None,
        private_cache: bool = False,
        timeout: float = ACTION_TIMEOUT,
    ) -> ActionRun:
        """`<tree>/entrypoint.py` as tests/e2e/test_action_e2e.py's run_action runs it."""
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=self.tmp))
        event_path = run_dir / "event.json"
        if raw_event is not None:
            event_path.write_bytes(raw_event)
        else:
            event_path.write_text(json.dumps(event if event is not None else pr_event(repo.base, repo.head)))
        output, summary = run_dir / "output.txt", run_dir / "summary.md"
        output.write_text("")
        summary.write_text("")
        env = self.env(extra_env, path_first)
        env.update({
            "GITHUB_EVENT_PATH": str(event_path), "GITHUB_EVENT_NAME": event_name, "GITHUB_REPOSITORY": REPO,
            "GITHUB_WORKSPACE": str(repo.path), "GITHUB_API_URL": self.server.url, "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_RUN_ID": "42",
            "GITHUB_SERVER_URL": "https://github.example", "INPUT_GITHUB_TOKEN": TOKEN,
            "DAFNY_SPEC_SCORE_CACHE": str(run_dir / "cache" if private_cache else self.shared_cache),
            "INPUT_WORKING_DIRECTORY": str(repo.path),
        })
        defaults = {"mutants": "2", "time-limit": "10", "jobs": "1"}
        env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in {**defaults, **(inputs or {})}.items()})
        proc = run_proc([sys.executable, str(self.tree / "entrypoint.py")], repo.path, env, timeout)
        self.logs.append(f"$ entrypoint.py -> exit {proc.code}\n{proc.stdout}{proc.stderr}")
        return ActionRun(proc, parse_outputs(output.read_text(errors="replace")), summary.read_text(errors="replace"),
                         repo.path)

    def cli(self, args: Sequence[str], cwd: Path, timeout: float = CLI_TIMEOUT) -> Proc:
        argv = [sys.executable, "-m", "bot", "score", *args]
        proc = run_proc(argv, cwd, self.env({"DAFNY_SPEC_SCORE_CACHE": str(self.shared_cache)}), timeout)
        self.logs.append(f"$ python3 -m bot score {' '.join(args)} -> exit {proc.code}\n{proc.stdout}{proc.stderr}")
        return proc

    def comments(self, number: int = PR) -> list[Any]:
        return list(self.server.comments_on(REPO, number))


@dataclass(frozen=True)
class ActionRun:
    proc: Proc
    outputs: dict[str, str]
    summary: str
    repo: Path

    @property
    def code(self) -> int | None:
        return self.proc.code

    @property
    def log(self) -> str:
        return self.proc.log

    def report(self) -> Any:
        path = self.repo / "dafny-spec-score.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


def pr_event(base: str, head: str, number: int = PR) -> dict[str, Any]:
    return {"number": number, "pull_request": {
        "number": number, "base": {"sha": base, "repo": {"full_name": REPO}},
        "head": {"sha": head, "repo": {"full_name": REPO}}}}


def pr_sandbox_repo(box: Sandbox, base: Mapping[str, Content], head: Mapping[str, Content],
                    changed: Sequence[str] | None = None, number: int = PR) -> Repo:
    """A repository for the pull request, registered with the fake GitHub (its changed files listed)."""
    repo = make_repo(box.tmp / "repo", base, head)
    names = list(changed) if changed is not None else sorted(k for k in head if k != "README.md")
    box.server.add_pull(REPO, number, base_sha=repo.base, head_sha=repo.head,
                        files=[{"filename": n, "status": "modified"} for n in names])
    return repo


# -- what GitHub would make of our text (the runner's reading of the log: tests/support/runner_log.py) ------------

MENTION = re.compile(r"(?<![\w.+\-/])@(?=[A-Za-z0-9])")


def comment_problems(body: str, marker: str = MARKER) -> list[str]:
    """What breaks a posted comment: pings, unbalanced <details>, stray HTML comments, broken tables."""
    problems = []
    mentions = [body[max(m.start() - 10, 0) : m.start() + 12] for m in MENTION.finditer(body)]
    if mentions:
        problems.append(f"unescaped mention {mentions[0]!r}")
    if body.count("<details>") != body.count("</details>"):
        problems.append(f"<details> {body.count('<details>')} vs </details> {body.count('</details>')}")
    if body.replace(marker, "", 1).count("<!--"):
        problems.append("an HTML comment opened besides the marker")
    header_cells: int | None = None
    for line in body.splitlines():
        if not line.startswith("|"):
            header_cells = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", line))
        if header_cells is None:
            header_cells = cells
        elif cells != header_cells:
            problems.append(f"table row with {cells - 1} cells instead of {header_cells - 1}: {line[:80]!r}")
            break
        if re.search(r"(?<!\\)`", line):
            problems.append(f"raw backtick in a table row: {line[:80]!r}")
            break
    return problems


def ran(run: ActionRun) -> list[str]:
    """Why the tree's code did not run its course ([] when it did): a time-out or a Python traceback."""
    if run.proc.timed_out:
        return [f"still running after {ACTION_TIMEOUT:g} s (killed)"]
    if "Traceback (most recent call last)" in run.log:
        return [f"Python traceback (exit {run.code}): {last_lines(run.log, 1)}"]
    return []


def how(run: ActionRun) -> str:
    """The exit code, and the error that ended the run when the last line of defence caught one."""
    crash = crashed(run.log)
    return f"exit {run.code}" + (f", {crash}" if crash else "")


def completed(run: ActionRun) -> list[str]:
    """Why the run did not reach its end ([] when it did): without that, "nothing bad happened" proves nothing."""
    if run.proc.timed_out:
        return [f"still running after {ACTION_TIMEOUT:g} s (killed)"]
    if crash := crashed(run.log):
        return [f"{crash} (exit {run.code}): {last_lines(run.log, 1)}"]
    if "passed" not in run.outputs:
        return [f"no outputs written (exit {run.code}): {last_lines(run.log)}"]
    return []


def crashed(log: str) -> str:
    """Why the log shows a crash ('' when it does not): a traceback or the Action's last line of defence."""
    if "Traceback (most recent call last)" in log:
        return "Python traceback"
    if "dafny-spec-score failed:" in log:
        return "crash caught by the last line of defence: " + log.split("dafny-spec-score failed:", 1)[1][:120].strip()
    return ""


def brief(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def last_lines(log: str, n: int = 2) -> str:
    lines = [line for line in log.splitlines() if line.strip()]
    return brief(" | ".join(lines[-n:]))


# -- the inputs ---------------------------------------------------------------------------------------

Scenario = Callable[[Sandbox], Verdict]


@dataclass(frozen=True)
class Input:
    category: str
    name: str
    run: Scenario
    cost: float = 10.0  # rough seconds, to start the slow ones first


BATTERY: list[Input] = []


def add(category: str, name: str, run: Scenario, cost: float = 10.0) -> None:
    assert category in CATEGORIES, category
    BATTERY.append(Input(category, name, run, cost))


GATE_INPUTS = {"min-completeness": "0.9"}


def expect_failed_check(run: ActionRun) -> list[str]:
    """Category 1: the check fails (exit 1) and says so in `passed`."""
    problems = []
    if run.code != 1:
        problems.append(f"exit code {run.code} (expected 1): {last_lines(run.log)}")
    if run.outputs.get("passed") != "false":
        problems.append(f"passed={run.outputs.get('passed')!r}")
    return problems


# 1. gate: a weakened spec must not pass by breaking what would score it. Handled: exit code 1 and
#    `passed=false` (and, for same-named methods, two distinct methods in dafny-spec-score.json).


def gate_scenario(head: Mapping[str, Content], base: Mapping[str, Content] | None = None,
                  fake: str = "", inputs: Mapping[str, str] | None = None, distinct_methods: int = 0) -> Scenario:
    """The check must fail; `inputs` are the workflow's (the gate's threshold unless they say otherwise)."""

    def run(box: Sandbox) -> Verdict:
        repo = pr_sandbox_repo(box, base if base is not None else {"specs/add.dfy": ADD}, head)
        path_first = box.fake_dafny(fake, trigger="HostileTrigger") if fake else None
        result = box.action(repo, GATE_INPUTS if inputs is None else inputs, path_first=path_first,
                            private_cache=bool(fake))
        problems = expect_failed_check(result)
        if distinct_methods:
            report = result.report()
            names = [m.get("method") for m in report.get("methods", [])] if isinstance(report, dict) else []
            if len(set(names)) != distinct_methods:
                problems.append(f"methods in dafny-spec-score.json: {names}")
        return judge(problems, f"exit {result.code}, passed=false")

    return run


TRIGGERED = WEAK_ADD + "\npredicate HostileTrigger() { true }\n"
add("gate", "unresolvable-line", gate_scenario({"specs/add.dfy": WEAK_ADD + "const Broken: int := true;\n"}))
# a constant no spec reaches whose value breaks its type: Dafny 2.3 then proves `false` from the declarations alone
# (measured: `assert false` verifies beside `const c: nat := -1`), so every program would verify, mutants' rejections
# included; only the vacuity probe of each case sees it (a weakened spec must not pass as complete)
add("gate", "unreached-inconsistent-const", gate_scenario({"specs/add.dfy": WEAK_ADD + "const Hidden: nat := -1\n"}))
add("gate", "all-cases-violate-requires",
    gate_scenario({"specs/add.dfy": WEAK_ADD.replace("ensures r >= x", "requires x > 100\n  ensures r >= x")}))
add("gate", "toml-broken-syntax-ensures-true",
    gate_scenario({"specs/add.dfy": ADD_NO_TESTS.replace("r == x + y", "true"),
                   "specs/add.tests.toml": "[[case]\nargs = ["},
                  base={"specs/add.dfy": ADD_NO_TESTS, "specs/add.tests.toml": ADD_TOML}))
add("gate", "toml-non-utf8-ensures-true",
    gate_scenario({"specs/add.dfy": ADD_NO_TESTS.replace("r == x + y", "true"),
                   "specs/add.tests.toml": ADD_TOML.encode() + b"# \xff\xfe\n"},
                  base={"specs/add.dfy": ADD_NO_TESTS, "specs/add.tests.toml": ADD_TOML}))
add("gate", "same-named-methods-in-two-modules",
    gate_scenario({"specs/add.dfy": MODULES.replace("ensures r == x + y\n  { r := x + y; }\n}\nmodule B",
                                                    "ensures r >= x\n  { r := x + y; }\n}\nmodule B")},
                  base={"specs/add.dfy": MODULES}, distinct_methods=2), cost=20)
add("gate", "crashing-verifier", gate_scenario({"specs/add.dfy": TRIGGERED}, fake="crash"), cost=25)
add("gate", "hanging-verifier",
    gate_scenario({"specs/add.dfy": TRIGGERED}, fake="hang", inputs={**GATE_INPUTS, "time-limit": "1"}), cost=120)
add("gate", "spec-parse-error", gate_scenario({"specs/add.dfy": WEAK_ADD + "method Oops( {\n"}))
add("gate", "spec-non-utf8", gate_scenario({"specs/add.dfy": WEAK_ADD.encode() + b"// \xff\xfe\n"}))


def include_outside(box: Sandbox) -> Verdict:
    outside = box.tmp / "elsewhere"
    outside.mkdir()
    (outside / "inc.dfy").write_text("predicate Helper() { true }\n")
    return gate_scenario({"specs/add.dfy": f'include "{outside / "inc.dfy"}"\n' + WEAK_ADD})(box)


add("gate", "include-outside-the-checkout", include_outside)
ENSURES_TRUE = ADD_NO_TESTS.replace("r == x + y", "true")
add("gate", "tests-deleted-ensures-true",
    gate_scenario({"specs/add.dfy": ENSURES_TRUE, "specs/add.tests.toml": None},
                  base={"specs/add.dfy": ADD_NO_TESTS, "specs/add.tests.toml": ADD_TOML}))


def toml_symlinked_outside(box: Sandbox) -> Verdict:
    outside = box.tmp / "elsewhere"
    outside.mkdir()
    (outside / "cases.toml").write_text(ADD_TOML)
    return gate_scenario({"specs/add.dfy": ENSURES_TRUE, "specs/add.tests.toml": Link(outside / "cases.toml")},
                         base={"specs/add.dfy": ADD_NO_TESTS, "specs/add.tests.toml": ADD_TOML})(box)


add("gate", "toml-symlinked-outside-ensures-true", toml_symlinked_outside)
# The config file is the pull request's own: it must not switch the gate off.
add("gate", "config-file-narrows-specs",
    gate_scenario({"specs/add.dfy": WEAK_ADD, ".dafny-spec-score.toml": 'specs = ["nothing/**/*.dfy"]\n'}))
add("gate", "config-file-lowers-base-threshold",
    gate_scenario({"specs/add.dfy": WEAK_ADD, ".dafny-spec-score.toml": "min-completeness = 0.0\n"},
                  base={"specs/add.dfy": ADD, ".dafny-spec-score.toml": "min-completeness = 0.9\n"}, inputs={}))


# 2. injection: nothing the pull request writes becomes a workflow command. Handled: no line the runner would
#    take as a command (see tests/support/runner_log.py) carries the payload's word as its name, data, or a property,
#    and the run completed (config files: exit code 2).

EVIL_NAMES = {
    "name-newline-error": "specs/x\n::error title=pwned::x.dfy",
    "name-percent-0A-warning": "specs/y%0A::warning::pwned.dfy",
    "name-cr-error": "specs/z\r::error title=pwned::z.dfy",
    "name-crlf-notice": "specs/w\r\n::notice title=pwned::w.dfy",
    "name-comma-title-property": "specs/v,title=pwned.dfy",
    "name-double-colon-data": "specs/u::pwned.dfy",
    "name-stop-commands-guess": "specs/q\n::stop-commands::pwnedtok\n::pwnedtok::\n::error title=pwned::q.dfy",
    "name-legacy-error": "specs/l\n##[error]pwned.dfy",
}


def injection_by_name(name: str) -> Scenario:
    def run(box: Sandbox) -> Verdict:
        repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {name: echo("Evil")})
        result = box.action(repo, GATE_INPUTS)
        hits = runner_log.injected([result.proc.stdout, result.proc.stderr])
        problems = [f"injected command: {h!r}" for h in hits[:2]] + completed(result)
        return judge(problems, f"exit {result.code}, no injected command")

    return run


for _label, _name in EVIL_NAMES.items():
    add("injection", _label, injection_by_name(_name), cost=15)


def injection_test_string(box: Sandbox) -> Verdict:
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD},
                           {"specs/echo.dfy": echo(value="\\r\\n::warning::pwned")})
    result = box.action(repo, GATE_INPUTS)
    hits = runner_log.injected([result.proc.stdout, result.proc.stderr])
    problems = [f"injected command: {h!r}" for h in hits[:2]] + completed(result)
    return judge(problems, f"exit {result.code}, no injected command")


add("injection", "test-string-newline-escapes", injection_test_string, cost=15)

EVIL_CONFIGS = {
    "config-key-newline": '"x\\n::error title=pwned::boom" = 1\n',
    "config-key-percent-0A": '"%0A::warning::pwned" = 2\n',
    "config-key-cr": '"x\\r::error title=pwned::boom" = 3\n',
    "config-value-newline": 'comment = "x\\n::error title=pwned::boom"\n',
    "config-value-wrong-type": 'seed = "\\n::warning::pwned"\n',
    "config-specs-glob-newline": 'specs = ["\\n::error title=pwned::x.dfy"]\nmin-completeness = 7\n',
}


def injection_by_config(text: str) -> Scenario:
    def run(box: Sandbox) -> Verdict:
        repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {".dafny-spec-score.toml": text})
        result = box.action(repo, {})
        hits = runner_log.injected([result.proc.stdout, result.proc.stderr])
        problems = [f"injected command: {h!r}" for h in hits[:2]]
        if crash := crashed(result.log):
            problems.append(crash)
        if result.code != 2:
            problems.append(f"exit code {result.code} (a bad config file is exit 2)")
        return judge(problems, f"exit {result.code}, no injected command")

    return run


for _label, _text in EVIL_CONFIGS.items():
    add("injection", _label, injection_by_config(_text), cost=5)


# 3. comment content: no pings, the layout kept. Handled: a comment was posted and none has an unescaped
#    mention, a <details>/</details> imbalance, an HTML comment besides the marker, a table row with a
#    different cell count or a raw backtick (see comment_problems).


def comment_scenario(base: Mapping[str, Content], head: Mapping[str, Content]) -> Scenario:
    def run(box: Sandbox) -> Verdict:
        repo = pr_sandbox_repo(box, base, head)
        result = box.action(repo, GATE_INPUTS)
        comments = box.comments()
        if not comments:
            return Verdict(False, f"no comment posted (exit {result.code}): {last_lines(result.log)}")
        problems = [p for c in comments for p in comment_problems(c.body)]
        return judge(problems, f"{len(comments)} comment(s), clean")

    return run


_P = PAYLOAD
add("comment", "toml-case-name", comment_scenario(
    {"specs/add.dfy": ADD},
    {"specs/echo.dfy": echo().split("method EchoTest")[0],
     "specs/echo.tests.toml": f'method = "Echo"\n[[case]]\nname = "{_P}"\nargs = [\'"ab"\']\nexpected = \'"ab"\'\n'}))
add("comment", "test-string-value", comment_scenario({"specs/add.dfy": ADD}, {"specs/echo.dfy": echo(value=SHORT)}))
add("comment", "file-name", comment_scenario({"specs/add.dfy": ADD}, {f"specs/{_P}.dfy": echo()}))
add("comment", "refuted-clause-text", comment_scenario(
    {"specs/add.dfy": ADD},
    {"specs/echo.dfy": echo(value="ab", ensures=f'r == s\n  ensures s != "{SHORT}" && s != "ab"')}))
add("comment", "parse-error-text", comment_scenario(
    {"specs/echo.dfy": echo(ensures="r == s")}, {"specs/echo.dfy": echo(ensures=f"r == s {_P}")}))
add("comment", "toml-method-name", comment_scenario(
    {"specs/add.dfy": ADD},
    {"specs/echo.dfy": echo(),
     "specs/echo.tests.toml": f'method = "{_P}"\n[[case]]\nargs = [\'"ab"\']\nexpected = \'"ab"\'\n'}))
add("comment", "refuted-expected-value", comment_scenario(
    {"specs/add.dfy": ADD},
    {"specs/echo.dfy": echo(ensures="r == s").split("method EchoTest")[0],
     "specs/echo.tests.toml": f'method = "Echo"\n[[case]]\nargs = [\'"ab"\']\nexpected = \'"{SHORT}"\'\n'}))


# 4. files: nothing outside the checkout is written or read. Handled: the outside file is unchanged, or the
#    text only it holds shows up nowhere (comment, summary, outputs, report, log); no traceback.


def outside_file(box: Sandbox, name: str, text: str) -> Path:
    folder = box.tmp / "elsewhere"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def leaks(box: Sandbox, result: ActionRun, word: str = OUTSIDE) -> list[str]:
    """Where `word` (text only an outside file holds) shows up: comments, summary, report, outputs, log."""
    where = [f"comment {c.id}" for n in (PR,) for c in box.comments(n) if word in c.body]
    report = result.repo / "dafny-spec-score.json"
    texts = {"step summary": result.summary, "outputs": json.dumps(result.outputs), "log": result.log,
             "dafny-spec-score.json": report.read_text(errors="replace") if report.is_file() else ""}
    where += [k for k, v in texts.items() if word in v]
    return ([f"outside text shown in {', '.join(where)}"] if where else []) + ran(result)


def report_symlink(box: Sandbox, report: str = "dafny-spec-score.json") -> Verdict:
    victim = outside_file(box, "victim.json", "untouched\n")
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD},
                           {"specs/add.dfy": WEAK_ADD, report: Link(victim)}, ["specs/add.dfy"])
    result = box.action(repo, GATE_INPUTS)
    changed = victim.read_text() != "untouched\n"
    problems = [f"the outside file was overwritten ({how(result)})"] if changed else []
    return judge(problems + ran(result), f"outside file unchanged ({how(result)})")


def artifact_symlink(box: Sandbox) -> Verdict:
    victim = outside_file(box, "victim.json", "untouched\n")
    head: dict[str, Content] = {"specs/add.dfy": WEAK_ADD, "dafny-spec-score-comment.json": Link(victim)}
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, head, ["specs/add.dfy"])
    box.server.fail("POST", r".*/issues/\d+/comments", 403, times=None)
    result = box.action(repo, GATE_INPUTS)
    changed = victim.read_text() != "untouched\n"
    problems = [f"the outside file was overwritten ({how(result)})"] if changed else []
    if "dafny-spec-score-comment.json" not in result.log:
        problems.append(f"the comment was not saved (the fork path not taken): {last_lines(result.log)}")
    return judge(problems + ran(result), f"outside file unchanged ({how(result)})")


def spec_symlink(box: Sandbox) -> Verdict:
    target = outside_file(box, "evil.dfy", echo("Stolen", value=OUTSIDE))
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/evil.dfy": Link(target)})
    result = box.action(repo, GATE_INPUTS)
    return judge(leaks(box, result), f"outside text not shown ({how(result)})")


def toml_symlink(box: Sandbox) -> Verdict:
    target = outside_file(box, "cases.toml",
                          f'method = "Echo"\n[[case]]\nname = "{OUTSIDE}"\nargs = [\'"ab"\']\nexpected = \'"ab"\'\n')
    head: dict[str, Content] = {"specs/echo.dfy": echo().split("method EchoTest")[0],
                                "specs/echo.tests.toml": Link(target)}
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, head)
    result = box.action(repo, GATE_INPUTS)
    return judge(leaks(box, result), f"outside text not shown ({how(result)})")


def mbpp_test_symlink(box: Sandbox) -> Verdict:
    target = outside_file(box, "task_test.dfy",
                          f'method EchoTest()\n{{\n  var r := Echo("{OUTSIDE}");\n  assert r == "{OUTSIDE}";\n}}\n')
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD},
                           {"src/task.dfy": echo().split("method EchoTest")[0], "test/task.dfy": Link(target)})
    result = box.action(repo, GATE_INPUTS)
    return judge(leaks(box, result), f"outside text not shown ({how(result)})")


def include_content(box: Sandbox) -> Verdict:
    target = outside_file(box, "inc.dfy", f"const {OUTSIDE}: int := true;\n")
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": f'include "{target}"\n' + WEAK_ADD})
    result = box.action(repo, GATE_INPUTS)
    return judge(leaks(box, result), f"outside text not shown ({how(result)})")


def audit_out_symlink(box: Sandbox) -> Verdict:
    folder = box.tmp / "elsewhere-dir"
    folder.mkdir()
    repo = make_repo(box.tmp / "repo", {
        "dataset/src/task_id_1.dfy": ID.split("method IdTest")[0],
        "dataset/test/task_id_1.dfy": "method IdTest()\n{\n  var r := Id(5);\n  assert r == 5;\n}\n",
        "audit-out": Link(folder)}, {})
    result = box.action(repo, {"mode": "audit", "audit-root": str(repo.path / "dataset")})
    written = sorted(p.name for p in folder.iterdir())
    problems = [f"files written outside: {written} ({how(result)})"] if written else []
    return judge(problems + ran(result), f"nothing written outside ({how(result)})")


add("files", "report-json-symlink-outside", report_symlink)
add("files", "report-sarif-symlink-outside", lambda box: report_symlink(box, "dafny-spec-score.sarif"))
add("files", "comment-artifact-symlink-outside", artifact_symlink)
add("files", "spec-symlink-outside", spec_symlink)
add("files", "toml-test-symlink-outside", toml_symlink)
add("files", "mbpp-test-symlink-outside", mbpp_test_symlink)
add("files", "include-outside-content", include_content)
add("files", "audit-out-symlink-outside", audit_out_symlink, cost=15)


# 5. post-comment (the fork recipe's second workflow, on workflow_run). Handled: nothing posted on another
#    pull request, no posted comment with a mention or a broken layout, and for a file that must be
#    refused a non-zero exit code and nothing posted at all.

RUN_HEAD = "c" * 40


def saved_method(method: str = "Add", case: str = "AddTest#1", inputs: str = "x = 1, y = 2") -> dict[str, Any]:
    mutant = {"value": "4", "description": "r: plus one", "status": "survived", "reason": None, "message": ""}
    return {"file": "specs/add.dfy", "method": method, "line": 1, "correctness": 1.0, "completeness": 0.0,
            "note": "", "problems": [], "cases": [{
                "name": case, "line": 9, "status": "verified", "reason": None, "clause": "", "note": "",
                "inputs": inputs, "expected": "r = 3", "message": "", "mutants": [mutant]}]}


def saved_file(**changes: Any) -> dict[str, Any]:
    """A saved comment in both formats at once: the new tree's data fields and the old tree's `body`."""
    saved: dict[str, Any] = {
        "version": 2, "pr": PR, "head_sha": RUN_HEAD, "comment_id": "default", "verifier": "2.3.0.10506",
        "details_url": "https://github.example/run", "allow_unscored": False,
        "gate": {"min_correctness": 1.0, "min_completeness": 0.0, "fail_on_unknown": False},
        "head": [saved_method()], "base": [], "body": f"{MARKER}\nscores",
    }
    saved.update(changes)
    return saved


@dataclass(frozen=True)
class PostExpect:
    refused: bool  # the file must be refused: non-zero exit, nothing posted
    pulls: Sequence[int] = ()  # the triggering run's pull_requests (empty: a fork's run)


def post_comment_scenario(content: bytes | dict[str, Any], expect: PostExpect) -> Scenario:
    def run(box: Sandbox) -> Verdict:
        for number, sha in ((1, "1" * 40), (PR, RUN_HEAD), (8, "8" * 40)):
            box.server.add_pull(REPO, number, base_sha="b" * 40, head_sha=sha)
        work = box.tmp / "work"
        work.mkdir()
        saved = work / "dafny-spec-score-comment.json"
        saved.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
        pulls = [{"number": n, "head": {"sha": RUN_HEAD}, "base": {"sha": "b" * 40}} for n in expect.pulls]
        event = {"action": "completed",
                 "workflow_run": {"id": 99, "head_sha": RUN_HEAD, "event": "pull_request", "pull_requests": pulls}}
        result = box.action(Repo(work, "b" * 40, RUN_HEAD), {"mode": "post-comment", "comment-file": saved.name},
                            event=event, event_name="workflow_run")
        problems = []
        others = [(n, len(box.comments(n))) for n in (1, 8) if box.comments(n)]
        if others:
            problems.append(f"posted on another pull request: {others}")
        posted = box.comments(PR)
        if expect.refused:
            if result.code in (0, None):
                problems.append(f"exit code {result.code} for a file that must be refused")
            if posted:
                problems.append(f"posted {len(posted)} comment(s) from a refused file")
        for c in posted:
            problems += comment_problems(c.body)
        crash = crashed(result.log)
        note = f"; {crash}" if crash else ""
        return judge([p + note for p in problems], f"exit {result.code}, {len(posted)} comment(s) on #{PR}{note}")

    return run


_MENTION_DATA = saved_file(head=[saved_method(method="@octocat", case=f"@everyone {PAYLOAD}", inputs=PAYLOAD)],
                           body=f"{MARKER}\nscores")
POST_INPUTS: dict[str, tuple[bytes | dict[str, Any], PostExpect]] = {
    "other-pr-number": (saved_file(pr=8, head_sha=RUN_HEAD), PostExpect(True, (PR,))),
    "other-pr-fork-run": (saved_file(pr=8), PostExpect(True, ())),
    "stale-head-sha": (saved_file(head_sha="0" * 40), PostExpect(True, (PR,))),
    "mention-in-body-field": (saved_file(body=f"{MARKER}\n@octocat @everyone please look </details>"),
                              PostExpect(False, (PR,))),
    "mention-in-data-fields": (_MENTION_DATA, PostExpect(False, (PR,))),
    "mention-in-verifier-field": (saved_file(verifier="@octocat </details> <!--"), PostExpect(False, (PR,))),
    "oversized-file": (json.dumps(saved_file(padding="x" * (21 * 1024 * 1024))).encode(), PostExpect(True, (PR,))),
    "pr-as-string": (saved_file(pr=str(PR)), PostExpect(True, (PR,))),
    "pr-as-bool": (saved_file(pr=True), PostExpect(True, (PR,))),
    "pr-as-float-other": (saved_file(pr=8.0), PostExpect(True, (PR,))),
    "head-not-a-list": (saved_file(head={"@octocat": 1}), PostExpect(True, (PR,))),
    "gate-not-an-object": (saved_file(gate="lenient"), PostExpect(True, (PR,))),
    "comment-id-breaks-marker": (saved_file(comment_id="default -->\n@octocat <!--"), PostExpect(True, (PR,))),
    "not-json": (b"{not json", PostExpect(True, (PR,))),
    "deeply-nested-json": (b"[" * 200_000 + b"]" * 200_000, PostExpect(True, (PR,))),
}
for _label, (_content, _expect) in POST_INPUTS.items():
    add("post-comment", _label, post_comment_scenario(_content, _expect), cost=5)


# 6. token. Handled: the token is in no output stream, summary, output, comment or report, nor in the
#    environment of any `dafny` process (a stand-in dumps it); no traceback.


def token_places(box: Sandbox, result: ActionRun) -> list[str]:
    where = [name for name, text in (("stdout", result.proc.stdout), ("stderr", result.proc.stderr),
                                     ("step summary", result.summary), ("outputs", json.dumps(result.outputs)))
             if TOKEN in text]
    where += [f"comment {c.id}" for c in box.comments() if TOKEN in c.body]
    report = result.repo / "dafny-spec-score.json"
    if report.is_file() and TOKEN in report.read_text(errors="replace"):
        where.append("dafny-spec-score.json")
    problems = [f"token shown in {', '.join(where)}"] if where else []
    if crash := crashed(result.log):
        problems.append(crash)
    return problems


def token_normal_run(box: Sandbox) -> Verdict:
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": WEAK_ADD})
    result = box.action(repo, GATE_INPUTS)
    return judge(token_places(box, result) + ran(result), f"not shown ({how(result)})")


def token_child_env(box: Sandbox) -> Verdict:
    dumps = box.tmp / "env-dumps"
    dumps.mkdir()
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": WEAK_ADD})
    result = box.action(repo, GATE_INPUTS, path_first=box.fake_dafny("env", dump=dumps), private_cache=True,
                        extra_env={"GITHUB_TOKEN": TOKEN})
    files = sorted(dumps.iterdir())
    if not files:
        return Verdict(False, f"the stand-in dafny never ran ({how(result)}): {last_lines(result.log)}")
    leaked = sorted({k for f in files for k, v in json.loads(f.read_text()).items() if TOKEN in v})
    problems = [f"token in the environment of {sum(TOKEN in f.read_text() for f in files)}/{len(files)} "
                f"dafny processes, as {leaked}"] if leaked else []
    problems += token_places(box, result) + ran(result)
    return judge(problems, f"absent from {len(files)} dafny environments")


def token_in_github_errors(box: Sandbox) -> Verdict:
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": WEAK_ADD})
    box.server.fail("GET", r".*/pulls/\d+/files", 422, times=None, message=f"bad credentials token {TOKEN}")
    box.server.fail("POST", r".*/issues/\d+/comments", 422, times=None, message=f"token {TOKEN} refused")
    box.server.fail("GET", r"/user", 422, times=None, message=f"who is {TOKEN}")
    result = box.action(repo, GATE_INPUTS)
    return judge(token_places(box, result) + ran(result), f"not shown ({how(result)})")


def token_post_comment_error(box: Sandbox) -> Verdict:
    box.server.add_pull(REPO, PR, base_sha="b" * 40, head_sha=RUN_HEAD)
    box.server.fail("GET", r".*/pulls/\d+", 404, times=None, message=f"no such pull for {TOKEN}")
    box.server.fail("GET", r".*/issues/\d+/comments", 422, times=None, message=f"token {TOKEN}")
    work = box.tmp / "work"
    work.mkdir()
    (work / "c.json").write_text(json.dumps(saved_file()))
    event = {"workflow_run": {"id": 99, "head_sha": RUN_HEAD, "pull_requests": []}}
    result = box.action(Repo(work, "b" * 40, RUN_HEAD), {"mode": "post-comment", "comment-file": "c.json"}, event=event,
                        event_name="workflow_run")
    return judge(token_places(box, result), f"not shown ({how(result)})")


def token_crash_output(box: Sandbox) -> Verdict:
    repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": TRIGGERED})
    result = box.action(repo, GATE_INPUTS, path_first=box.fake_dafny("crash-env", trigger="HostileTrigger"),
                        private_cache=True, extra_env={"GITHUB_TOKEN": TOKEN})
    return judge(token_places(box, result) + ran(result), f"not shown ({how(result)})")


add("token", "normal-run-output", token_normal_run)
add("token", "dafny-child-environment", token_child_env, cost=20)
add("token", "github-errors-quoting-token", token_in_github_errors, cost=15)
add("token", "post-comment-errors-quoting-token", token_post_comment_error, cost=10)
add("token", "verifier-crash-printing-its-env", token_crash_output, cost=25)


# 7. CLI `python3 -m bot score`. Handled: exit code 0, 1 or 2 within 60 s, no traceback, and a message
#    naming the file or option at fault (for --output, creating the missing folder also counts).


@dataclass(frozen=True)
class CliCase:
    files: Mapping[str, Content]
    args: Sequence[str]
    names: Sequence[str]  # the file or the option: one of these must appear in the output when it is at fault
    expect: str  # "named": the input is at fault, so it must be named; "any": a valid input, named if exit code 2
    writes: str = ""  # a file whose creation also counts as handling the input (a folder made for --output)


def cli_scenario(case: CliCase, fifo: str = "") -> Scenario:
    def run(box: Sandbox) -> Verdict:
        cwd = box.tmp / "cli"
        cwd.mkdir()
        write_files(cwd, case.files)
        if fifo:
            os.mkfifo(cwd / fifo)
        defaults = [x for k, v in (("--mutants", "1"), ("--time-limit", "10"), ("--jobs", "1")) if k not in case.args
                    for x in (k, v)]
        proc = box.cli([*case.args, *defaults], cwd)
        problems = []
        if proc.timed_out:
            return Verdict(False, f"still running after {CLI_TIMEOUT:g} s (killed)")
        if proc.code not in (0, 1, 2):
            problems.append(f"exit code {proc.code}")
        if "Traceback (most recent call last)" in proc.stderr:
            tail = [line for line in proc.stderr.splitlines() if line.strip()][-1:]
            problems.append(f"traceback: {brief(tail[0] if tail else '', 120)}")
        written = bool(case.writes) and (cwd / case.writes).is_file()
        named = any(n in proc.stdout + proc.stderr for n in case.names)
        if (case.expect == "named" or proc.code == 2) and not named and not written:
            problems.append(f"exit code {proc.code}, and no message names any of {list(case.names)}: "
                            f"{brief(proc.stderr, 120)!r}")
        lines = (proc.stdout + proc.stderr).splitlines()[::-1]  # the last line naming it: argparse's error, not usage
        said = brief(next((line for line in lines if any(n in line for n in case.names)), proc.stderr), 110)
        return judge(problems, f"exit {proc.code}" + (f", {case.writes} written" if written else f": {said!r}"))

    return run


BIG = "7" * 5000
NESTED = 3000
CLI_INPUTS: dict[str, tuple[CliCase, str]] = {
    "malformed-dafny": (CliCase({"bad.dfy": "method M( {\n  ensures\n"}, ["bad.dfy"], ["bad.dfy"], "named"), ""),
    "non-utf8-spec": (CliCase({"bin.dfy": ID.encode() + b"// \xff\xfe\n"}, ["bin.dfy"], ["bin.dfy"], "named"), ""),
    "fifo-as-spec": (CliCase({}, ["pipe.dfy"], ["pipe.dfy"], "named"), "pipe.dfy"),
    "fifo-as-tests": (CliCase({"id.dfy": ID}, ["id.dfy", "--tests", "pipe.toml"], ["pipe.toml"], "named"), "pipe.toml"),
    "directory-as-spec": (CliCase({"dir.dfy/x": "x"}, ["dir.dfy"], ["dir.dfy"], "named"), ""),
    "missing-spec": (CliCase({}, ["nowhere.dfy"], ["nowhere.dfy"], "named"), ""),
    "5000-digit-literal-in-test": (CliCase(
        {"big.dfy": ID.replace("Id(5)", f"Id({BIG})").replace("r == 5", f"r == {BIG}")}, ["big.dfy"],
        ["big.dfy"], "any"), ""),
    "deeply-nested-toml-arrays": (CliCase(
        {"id.dfy": ID, "cases.toml": 'method = "Id"\n[[case]]\nargs = [' + "[" * NESTED + "]" * NESTED
         + ']\nexpected = "1"\n'}, ["id.dfy", "--tests", "cases.toml"], ["cases.toml"], "named"), ""),
    "deeply-nested-dafny-literal-in-toml": (CliCase(
        {"seq.dfy": SEQ_ID, "cases.toml": f'method = "SeqId"\n[[case]]\nargs = ["{"[" * NESTED + "]" * NESTED}"]\n'
         'expected = "[]"\n'}, ["seq.dfy", "--tests", "cases.toml"], ["cases.toml"], "named"), ""),
    "deeply-nested-parens-in-ensures": (CliCase(
        {"deep.dfy": ID.replace("ensures r == x", "ensures r == " + "(" * NESTED + "x" + ")" * NESTED)},
        ["deep.dfy"], ["deep.dfy"], "any"), ""),
    "malformed-mbpp-json": (CliCase({"task_id_1.dfy": ID, "t.json": '{"1": {"test_cases": [[['},
                                    ["task_id_1.dfy", "--tests", "t.json"], ["t.json"], "named"), ""),
    "time-limit-0": (CliCase({"id.dfy": ID}, ["id.dfy", "--time-limit", "0"], ["--time-limit"], "named"), ""),
    "tolerance-nan": (CliCase({"id.dfy": ID}, ["id.dfy", "--tolerance", "nan"], ["--tolerance"], "named"), ""),
    "tolerance-negative": (CliCase({"id.dfy": ID}, ["id.dfy", "--tolerance", "-1"], ["--tolerance"], "named"), ""),
    "tolerance-inf": (CliCase({"id.dfy": ID}, ["id.dfy", "--tolerance", "inf"], ["--tolerance"], "named"), ""),
    "output-into-missing-folder": (CliCase({"id.dfy": ID}, ["id.dfy", "--output", "no/such/dir/report.txt"],
                                           ["no/such/dir", "--output"], "named", "no/such/dir/report.txt"), ""),
    "output-under-a-regular-file": (CliCase({"id.dfy": ID, "plain": "x"}, ["id.dfy", "--output", "plain/report.txt"],
                                            ["plain/report.txt", "--output"], "named"), ""),
    "output-is-a-directory": (CliCase({"id.dfy": ID, "outdir/x": "x"}, ["id.dfy", "--output", "outdir"],
                                      ["outdir", "--output"], "named"), ""),
    "cache-dir-is-a-file": (CliCase({"id.dfy": ID, "cachefile": "x"}, ["id.dfy", "--cache-dir", "cachefile"],
                                    ["cachefile", "--cache-dir"], "named"), ""),
    "seed-5000-digits": (CliCase({"id.dfy": ID}, ["id.dfy", "--seed", BIG], ["--seed"], "named"), ""),
}
for _label, (_case, _fifo) in CLI_INPUTS.items():
    add("cli", _label, cli_scenario(_case, _fifo), cost=8)


# 8. GitHub faults. Handled: exit code 0, 1 or 2 not from a crash (no traceback, nothing caught by the last
#    line of defence), the step summary holds the scores when there are any, at most one comment of ours,
#    nobody else's comment edited.


@dataclass(frozen=True)
class Fault:
    setup: Callable[[Any], None]
    event: Callable[[Repo], bytes] | None = None  # raw event file; None: the normal one
    scored: bool = True  # scores exist, so the step summary must hold them


def fault_scenario(fault: Fault) -> Scenario:
    def run(box: Sandbox) -> Verdict:
        repo = pr_sandbox_repo(box, {"specs/add.dfy": ADD}, {"specs/add.dfy": WEAK_ADD})
        fault.setup(box.server)
        before = {c.id: c.body for c in box.comments()}
        result = box.action(repo, GATE_INPUTS, raw_event=fault.event(repo) if fault.event else None)
        problems = []
        if result.proc.timed_out:
            problems.append("timed out")
        elif result.code not in (0, 1, 2):
            problems.append(f"exit code {result.code}")
        if crash := crashed(result.log):
            problems.append(crash)
        if fault.scored and "Dafny Spec Score" not in result.summary:
            problems.append("no scores in the step summary")
        after = box.comments()
        new = [c for c in after if c.id not in before]
        bots = (BOT, "github-actions[bot]")
        changed_others = [c.id for c in after if c.id in before and c.user not in bots and c.body != before[c.id]]
        ours = [c for c in after if c.user in bots and MARKER in c.body]
        if len(new) > 1 or len(ours) > 1:
            problems.append(f"{len(new)} new comment(s), {len(ours)} of ours in all")
        if changed_others:
            problems.append(f"edited someone else's comment(s) {changed_others}")
        return judge(problems, f"exit {result.code}, {len(new)} new comment(s)")

    return run


def _page_two(server: Any) -> None:
    server.page_size = 1
    server.add_comment(REPO, PR, "someone", "first")
    server.add_comment(REPO, PR, BOT, f"{MARKER}\nold scores")


def _actions_bot(server: Any) -> None:
    server.login = None
    server.add_comment(REPO, PR, "github-actions[bot]", f"{MARKER}\nold scores")


def _own_comment_patch_fails(server: Any) -> None:
    server.add_comment(REPO, PR, BOT, f"{MARKER}\nold scores")
    server.fail("PATCH", r".*/issues/comments/\d+", 500, times=None)


def _api_down(server: Any) -> None:
    for verb in ("GET", "POST", "PATCH"):
        server.fail(verb, r".*", 500, times=None)


def _event_head_null(repo: Repo) -> bytes:
    event = pr_event(repo.base, repo.head)
    event["pull_request"]["head"] = None
    return json.dumps(event).encode()


def _event_number_string(repo: Repo) -> bytes:
    event = pr_event(repo.base, repo.head)
    event["number"] = event["pull_request"]["number"] = str(PR)
    return json.dumps(event).encode()


FAULTS: dict[str, tuple[Fault, float]] = {
    "files-500-then-ok": (Fault(lambda s: s.fail("GET", r".*/pulls/\d+/files", 500, times=1)), 10),
    "files-wrong-shape": (Fault(lambda s: s.mangle("GET", r".*/pulls/\d+/files", lambda d: {"files": d}, times=None)),
                          10),
    "comments-list-not-json": (Fault(lambda s: s.mangle("GET", r".*/issues/\d+/comments",
                                                        lambda d: b"<html>proxy error</html>", times=None)), 10),
    "comments-list-null-items": (Fault(lambda s: s.mangle("GET", r".*/issues/\d+/comments",
                                                          lambda d: [None, 5, "x"], times=None)), 10),
    "slow-post-comment": (Fault(lambda s: s.lose_answer("POST", r".*/issues/\d+/comments", None, delay=35)), 60),
    "post-502-after-write": (Fault(lambda s: s.lose_answer("POST", r".*/issues/\d+/comments", 502)), 10),
    "deleted-user-comment-with-marker": (Fault(lambda s: s.add_comment(REPO, PR, None, f"{MARKER}\nghost")), 10),
    "own-comment-on-page-two": (Fault(_page_two), 10),
    "user-403-actions-bot-comment": (Fault(_actions_bot), 10),
    "patch-500-forever": (Fault(_own_comment_patch_fails), 15),
    "api-down": (Fault(_api_down), 15),
    "event-head-null": (Fault(lambda s: None, _event_head_null, scored=False), 5),
    "event-not-json": (Fault(lambda s: None, lambda r: b"{{{ not json", scored=False), 5),
    "event-number-string": (Fault(lambda s: None, _event_number_string, scored=False), 10),
}
for _label, (_fault, _cost) in FAULTS.items():
    add("github", _label, fault_scenario(_fault), cost=_cost)


# -- running and reporting ----------------------------------------------------------------------------------


def run_one(item: Input, tree: Path, root: Path, real_dafny: str, shared_cache: Path, fakegithub: ModuleType) -> Result:
    tmp = Path(tempfile.mkdtemp(prefix=f"{item.category}-{item.name}-"[:60], dir=root))
    server = fakegithub.FakeGitHub(token=TOKEN)
    start = time.monotonic()
    try:
        box = Sandbox(tree, tmp, server, real_dafny, shared_cache, fakegithub)
        verdict = item.run(box)
        log = "\n".join(box.logs)
        return Result(item.category, item.name, verdict.handled, verdict.detail, time.monotonic() - start,
                      log=log if len(log) <= LOG_TAIL else "...\n" + log[-LOG_TAIL:])
    except Exception as e:  # a defect of the battery, not of the tree: reported as such
        detail = f"BATTERY ERROR {type(e).__name__}: {e} | {traceback.format_exc(limit=3)[-300:]}"
        return Result(item.category, item.name, False, brief(detail, 400), time.monotonic() - start, True)
    finally:
        server.close()


def snapshot(tree: Path, dest: Path) -> Path:
    """Copy the tree's code (bot/, entrypoint.py), so edits made while the battery runs do not mix in, and
    check that it imports."""
    dest.mkdir()
    shutil.copytree(tree / "bot", dest / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(tree / "entrypoint.py", dest / "entrypoint.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"PYTHONPATH": str(dest)}
    probe = run_proc([sys.executable, "-c", "import bot.github.action, bot.cli"], dest.parent, env, 60)
    if probe.code != 0:
        raise SystemExit(f"{tree}: its code does not import, so no input can be judged:\n{probe.stderr[-1500:]}")
    return dest


def run_battery(items: Sequence[Input], tree: Path, workers: int, verbose: bool) -> Iterator[Result]:
    real_dafny = shutil.which("dafny")
    if real_dafny is None:
        raise SystemExit("dafny is not on PATH (scripts/setup.sh installs it)")
    fakegithub = load_fakegithub()
    with tempfile.TemporaryDirectory(prefix="hostile-battery-") as tmp:
        root = Path(tmp)
        shared_cache = root / "cache"
        code = snapshot(tree, root / "tree")
        ordered = sorted(items, key=lambda i: -i.cost)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(run_one, i, code, root, real_dafny, shared_cache, fakegithub) for i in ordered]
            for future in futures:
                result = future.result()
                if verbose:
                    mark = "ok " if result.handled else "NO "
                    print(f"  {mark} {result.category}/{result.name} ({result.seconds:.0f} s): {result.detail}",
                          file=sys.stderr, flush=True)
                yield result


def summarize(results: Sequence[Result]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for category in CATEGORIES:
        rows = [r for r in results if r.category == category]
        if rows:
            table[category] = {"inputs": len(rows), "handled": sum(r.handled for r in rows),
                               "unhandled": [r.name for r in rows if not r.handled]}
    return table


def print_table(tree: Path, table: Mapping[str, Mapping[str, Any]], results: Sequence[Result], seconds: float) -> None:
    print(f"Hostile battery against {tree} ({seconds:.0f} s)\n")
    print(f"{'category':<13} {'inputs':>6} {'handled':>7}  unhandled")
    print(f"{'-' * 13} {'-' * 6} {'-' * 7}  {'-' * 9}")
    for category, row in table.items():
        names = ", ".join(row["unhandled"]) or "-"
        print(f"{category:<13} {row['inputs']:>6} {row['handled']:>7}  {names}")
    total = sum(r["inputs"] for r in table.values())
    handled = sum(r["handled"] for r in table.values())
    print(f"{'total':<13} {total:>6} {handled:>7}")
    unhandled = [r for r in results if not r.handled]
    if unhandled:
        print("\nWhat happened instead:")
        for r in unhandled:
            print(textwrap.fill(f"{r.category}/{r.name}: {r.detail}", width=118, subsequent_indent="    "))
    errors = [r for r in results if r.battery_error]
    if errors:
        print(f"\n{len(errors)} input(s) failed inside the battery itself (counted as unhandled): "
              + ", ".join(f"{r.category}/{r.name}" for r in errors))


def tree_commit(tree: Path) -> str:
    """The commit checked out at `tree` ("" when it is not the top of a git checkout, e.g. an archive)."""
    try:
        if Path(git(tree, "rev-parse", "--show-toplevel")).resolve() != tree.resolve():
            return ""
        changed = git(tree, "status", "--porcelain", "--", "bot", "entrypoint.py")
        return git(tree, "rev-parse", "HEAD") + (" (with uncommitted changes)" if changed else "")
    except (subprocess.CalledProcessError, OSError):
        return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=HERE, help="checkout whose code runs (default: this one)")
    parser.add_argument("--json", type=Path, default=None, help="also write the table and every result here")
    parser.add_argument("--only", default="", help="run only inputs whose category/name contains this text")
    parser.add_argument("--workers", type=int, default=3, help="inputs run at once (default 3)")
    parser.add_argument("--verbose", action="store_true", help="print each result as it comes")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    if not (tree / "entrypoint.py").is_file() or not (tree / "bot").is_dir():
        parser.error(f"--tree {tree}: not a checkout of this project (no entrypoint.py and bot/)")
    items = [i for i in BATTERY if args.only in f"{i.category}/{i.name}"]
    if not items:
        parser.error(f"--only {args.only!r} matches no input")
    start = time.monotonic()
    results = list(run_battery(items, tree, max(args.workers, 1), args.verbose))
    results.sort(key=lambda r: (CATEGORIES.index(r.category), r.name))
    seconds = time.monotonic() - start
    table = summarize(results)
    print_table(tree, table, results, seconds)
    if args.json is not None:
        args.json.write_text(json.dumps({
            "tree": str(tree), "commit": tree_commit(tree), "seconds": round(seconds, 1), "categories": table,
            "results": [{"category": r.category, "name": r.name, "handled": r.handled, "detail": r.detail,
                         "seconds": round(r.seconds, 1), "battery_error": r.battery_error, "log": r.log}
                        for r in results],
        }, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
