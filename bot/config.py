"""The only reader of environment variables, action inputs and the TOML config file.

`Config.from_environ(env)` turns the Action's environment into one validated, frozen `Config`, or raises one
`ConfigError` that lists every bad field with what is wrong and what is allowed.

Where a value comes from, highest precedence first:

1. the action input, when the workflow sets it to something other than its documented default
   (GitHub passes every input to a Docker action, defaults included, so "set" cannot be detected otherwise);
2. the TOML config file (`.dafny-spec-score.toml` by default), whose keys are the input names;
3. the documented default.

`action.yml` maps each input `some-name` to the environment variable `INPUT_SOME_NAME` under `runs.env`
(see `input_env_name`): POSIX-friendly names that a plain `docker run -e` can set too, unlike the runner's own
`INPUT_SOME-NAME`.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.options import (
    DEFAULT_CONFIG_FILE,
    CommentMode,
    FailOn,
    GateScope,
    Invalid,
    Mode,
    Option,
    Use,
    input_env_name,
    options_for,
    show_value,
)
from bot.settings import Settings, SettingsOverlay
from bot.symbolic.results import Gate
from bot.testcases.textfiles import MAX_TOML_NESTING, TOML_TOO_DEEP, read_regular, toml_nesting_line
from bot.verifier.version import default_jobs, default_z3


def default_cache_dir(env: Mapping[str, str]) -> str:
    if env.get("DAFNY_SPEC_SCORE_CACHE"):
        return env["DAFNY_SPEC_SCORE_CACHE"]
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "dafny-spec-score")


DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"

# the Action's inputs and the file's keys, from the one table of options
INPUTS: tuple[Option, ...] = options_for(Use.ACTION)
INPUT_NAMES: tuple[str, ...] = tuple(i.name for i in INPUTS)
INPUT_DEFAULTS: Mapping[str, str] = {i.name: i.default for i in INPUTS}
FILE_KEYS: tuple[str, ...] = tuple(i.name for i in INPUTS if i.in_file)
_INPUTS_BY_NAME: Mapping[str, Option] = {i.name: i for i in INPUTS}
_PLACED = ("github-token", "config", "working-directory")  # read before the others, or not a Config field as is

# user-facing text
CONFIG_INVALID = "the action configuration has {count} problem{s}; fix the workflow's `with:` inputs or {file}:"
FROM_INPUT = "input `{name}` ({env})"
FROM_FILE = "`{name}` in {file}"
FROM_DEFAULT = "the default of `{name}`"
FROM_ENV = "environment variable {env}"
UNKNOWN_KEY = "unknown key `{key}`{hint}; the keys are the input names: {keys}"
DID_YOU_MEAN = " (did you mean `{key}`?)"
NOT_IN_FILE = "`{key}` cannot be set in the config file; set the action input `{key}` in the workflow instead"
BAD_TOML = "{path}:{line}: not valid TOML: {reason}"
MISSING_FILE = "{path}: no such file (the `config` input names it; remove the input to run without a file)"
TOKEN_MISSING = (
    "missing: mode `{mode}` talks to GitHub; pass `github-token` (the default `${{{{ github.token }}}}` needs "
    "`permissions: pull-requests: write`)"
)
ISSUE_TOKEN_MISSING = (
    "missing: `audit-issue` writes an issue; pass `github-token` (the default `${{{{ github.token }}}}` needs "
    "`permissions: issues: write`), or leave `audit-issue` empty"
)
CONTEXT_MISSING = "missing: mode `{mode}` reads it; it is set when the Action runs in GitHub Actions"


@dataclass(frozen=True)
class Problem:
    field: str  # the input name, or the environment variable for the GitHub context
    message: str
    source: str  # where the bad value came from

    def __str__(self) -> str:
        return f"{self.field}: {self.message} (from {self.source})"


class ConfigError(Exception):
    """Every problem of the configuration at once, so one run shows everything to fix."""

    def __init__(self, problems: tuple[Problem, ...], config_file: str = DEFAULT_CONFIG_FILE) -> None:
        self.problems = problems
        n = len(problems)
        head = CONFIG_INVALID.format(count=n, s="" if n == 1 else "s", file=config_file)
        super().__init__("\n".join([head, *(f"  - {p}" for p in problems)]))


# ---- the config file


def _under(base: Path, text: str) -> Path:
    path = Path(text)
    return Path(os.path.normpath(path if path.is_absolute() else base / path))


_TOML_LINE = re.compile(r"at line (\d+)")


def read_config_file(path: Path, explicit: bool, text: str | None = None) -> dict[str, object]:
    """The file's `key = value` pairs; {} when the default file is absent. Raises Invalid.

    `text`, when given, is the file's content taken elsewhere (the base branch's, in pull-request mode)."""
    if text is None:
        if not path.exists():
            if explicit:
                raise Invalid(MISSING_FILE.format(path=path))
            return {}
        try:
            text = read_regular(path).decode("utf-8")  # a FIFO or a device is refused, never read
        except (OSError, UnicodeDecodeError) as e:
            raise Invalid(f"{path}: cannot read: {e}") from None
    too_deep = TOML_TOO_DEEP.format(limit=MAX_TOML_NESTING)
    deep = toml_nesting_line(text)  # tomllib recurses once per level: about 500 exhaust the stack
    if deep is not None:
        raise Invalid(BAD_TOML.format(path=path, line=deep, reason=too_deep))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # Python 3.11's TOMLDecodeError has no line attribute; the message ends "(at line L, column C)"
        found = _TOML_LINE.search(str(e))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)$", "", str(e))
        raise Invalid(BAD_TOML.format(path=path, line=found.group(1) if found else "?", reason=reason)) from None
    except ValueError:  # tomllib lets int() refuse an integer of more than 4,300 digits
        raise Invalid(BAD_TOML.format(path=path, line="?", reason="an integer with too many digits")) from None
    except RecursionError:  # a backstop: the nesting check stops far earlier
        raise Invalid(BAD_TOML.format(path=path, line="?", reason=too_deep)) from None
    return dict(data)


def _file_problems(path: Path, data: Mapping[str, object]) -> list[Problem]:
    out = []
    for key in data:
        if key not in _INPUTS_BY_NAME:
            close = difflib.get_close_matches(key, FILE_KEYS, n=1)
            hint = DID_YOU_MEAN.format(key=close[0]) if close else ""
            message = UNKNOWN_KEY.format(key=key, hint=hint, keys=", ".join(FILE_KEYS))
        elif not _INPUTS_BY_NAME[key].in_file:
            message = NOT_IN_FILE.format(key=key)
        else:
            continue
        out.append(Problem(key, message, str(path)))
    return out


# ---- the configuration


@dataclass(frozen=True)
class Config:
    """Everything the Action needs to know, validated. Defaults are the documented ones."""

    token: str = field(default="", repr=False)
    specs: tuple[str, ...] = ("**/*.dfy",)
    tests: tuple[str, ...] = ()
    min_correctness: float = 1.0
    min_completeness: float = 0.0
    fail_on_unknown: bool = False
    allow_axioms: bool = False  # verdicts relative to trusted axioms warn instead of failing
    allow_unscored: bool = False  # new or never-scored methods that cannot be scored warn instead of failing
    fail_on_weakening: bool = True  # a spec proved weaker than base's on some input fails the check
    require_determined: bool = False  # a judged method's spec must be proved to determine its outputs
    gate_scope: GateScope = GateScope.METHODS  # the changed methods and regressions, or every touched file's methods
    mutants: int = 5
    pin: bool = True
    suggest: bool = True
    server: bool = True  # Dafny 2.x: one kept-alive verifier per worker (see bot/verifier/server.py)
    seed: int = 0
    time_limit: int = 20
    jobs: int = field(default_factory=default_jobs)
    tolerance: float | None = None  # None: the mode's default (see Settings.of)
    # mode audit: the `audit` command's options (paths as given, relative to the working directory)
    audit_tests: str = "dfy"
    audit_label_file: str = ""
    audit_json: str = ""
    audit_out: str = "audit-out"
    weak_below: float = 0.8
    audit_only: tuple[str, ...] = ()
    audit_shard: tuple[int, int] | None = None
    audit_baseline: str = ""  # a previous run's results.json; "" for none
    audit_fail_on: FailOn = FailOn.NEVER
    audit_issue: str = ""  # the tracking issue's title; "" for none
    audit_labels: tuple[str, ...] = ()  # given to the tracking issue when it is created
    comment: CommentMode = CommentMode.ALWAYS
    comment_id: str = "default"
    review: bool = True  # place findings as review comments on the changed lines
    config_file: Path | None = None  # the file that was read, if any
    config_path: Path | None = None  # the file the `config` input names, whether or not it exists
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)  # to read it again
    mode: Mode = Mode.PR
    audit_root: Path | None = None
    comment_file: Path | None = None
    working_directory: Path = field(default_factory=Path.cwd)
    # the GitHub context
    repository: str = ""  # "owner/name"
    event_name: str = ""
    event_path: Path | None = None
    workspace: Path = field(default_factory=Path.cwd)
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    run_id: str = ""
    sha: str = ""
    output_file: Path | None = None  # GITHUB_OUTPUT
    summary_file: Path | None = None  # GITHUB_STEP_SUMMARY
    debug: bool = False  # RUNNER_DEBUG=1
    # the verifier's environment
    cache_dir: str = field(default_factory=lambda: default_cache_dir(os.environ))
    z3: str | None = None

    @property
    def settings(self) -> Settings:
        given = SettingsOverlay(mutants=self.mutants, seed=self.seed, time_limit=self.time_limit,
                                tolerance=self.tolerance, pin=self.pin, jobs=self.jobs, server=self.server,
                                suggest=self.suggest)
        return Settings.defaults(audit=self.mode is Mode.AUDIT).overlay(given)

    def path(self, text: str) -> Path:
        """A path input, relative to the working directory."""
        return _under(self.working_directory, text)

    @property
    def gate(self) -> Gate:
        return Gate(self.min_correctness, self.min_completeness, self.fail_on_unknown, self.allow_axioms,
                    self.require_determined)

    @property
    def run_url(self) -> str:
        """This workflow run's page, or "" outside Actions."""
        if not (self.repository and self.run_id):
            return ""
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @classmethod
    def from_environ(cls, env: Mapping[str, str], file_text: str | None = None) -> Config:
        """Read the inputs, the config file they name and the GitHub context. Raises ConfigError.

        `file_text` replaces the config file's content (the base branch's: a pull request must not
        set the thresholds that judge it)."""
        return _Reader(env, file_text).config()


class _Reader:
    """Collects problems instead of stopping at the first."""

    def __init__(self, env: Mapping[str, str], file_text: str | None = None) -> None:
        self.env = env
        self.file_text = file_text
        self.problems: list[Problem] = []
        self.file_values: Mapping[str, object] = {}
        self.file_label = DEFAULT_CONFIG_FILE

    def _pick(self, name: str) -> tuple[object, str]:
        spec = _INPUTS_BY_NAME[name]
        text = self.env.get(spec.env, "").strip()  # like core.getInput: trimmed, "" when unset
        if text and text != spec.default:
            return text, FROM_INPUT.format(name=name, env=spec.env)
        if spec.in_file and name in self.file_values:
            return self.file_values[name], FROM_FILE.format(name=name, file=self.file_label)
        if text:
            return text, FROM_INPUT.format(name=name, env=spec.env)
        return spec.default, FROM_DEFAULT.format(name=name)

    def get(self, name: str) -> Any:
        option = _INPUTS_BY_NAME[name]
        raw, source = self._pick(name)
        try:
            return option.clean(raw)
        except Invalid as e:
            self.problems.append(Problem(name, str(e), source))
            return option.clean(option.default)  # never used: a problem means from_environ raises

    def problem(self, name: str, message: str, source: str) -> None:
        self.problems.append(Problem(name, message, source))

    def config(self) -> Config:
        env = self.env
        workspace = Path(env.get("GITHUB_WORKSPACE") or Path.cwd())
        workdir_text = self.get("working-directory")
        workdir = _under(workspace, workdir_text)
        config_text = self.get("config")
        mode = self.get("mode")  # an input only (never the file's), so it is known before the file is read
        config_path = _under(workdir, config_text)
        self.file_label = str(config_path)
        config_file: Path | None = None
        if not workdir.is_dir():
            self.problem(
                "working-directory",
                f"{workdir}: no such directory",
                FROM_INPUT.format(name="working-directory", env=input_env_name("working-directory")),
            )
        elif mode is Mode.POST_COMMENT:
            # The posting workflow's workspace holds a fork run's artifact: nothing in it is configuration.
            pass
        else:
            try:
                explicit = config_text != DEFAULT_CONFIG_FILE
                self.file_values = read_config_file(config_path, explicit, self.file_text)
                config_file = config_path if config_path.is_file() or self.file_text else None
            except Invalid as e:
                self.problem("config", str(e), FROM_INPUT.format(name="config", env=input_env_name("config")))
            self.problems += _file_problems(config_path, self.file_values)

        # every input whose Config field holds its cleaned value as is
        values = {o.field: self.get(o.name) for o in INPUTS if o.name not in _PLACED and o.name != "mode"}
        jobs = values.pop("jobs")
        audit_root_text = values.pop("audit_root")
        comment_file_text = values.pop("comment_file")
        cfg = Config(
            **values,
            mode=mode,
            token=self.get("github-token"),
            jobs=jobs if jobs is not None else default_jobs(),
            config_file=config_file,
            config_path=config_path,
            environ=dict(env),
            audit_root=_under(workdir, audit_root_text) if audit_root_text else None,
            comment_file=_under(workdir, comment_file_text) if comment_file_text else None,
            working_directory=workdir,
            repository=env.get("GITHUB_REPOSITORY", "").strip(),
            event_name=env.get("GITHUB_EVENT_NAME", "").strip(),
            event_path=Path(env["GITHUB_EVENT_PATH"]) if env.get("GITHUB_EVENT_PATH") else None,
            workspace=workspace,
            api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            server_url=(env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
            run_id=env.get("GITHUB_RUN_ID", "").strip(),
            sha=env.get("GITHUB_SHA", "").strip(),
            output_file=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            summary_file=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
            debug=env.get("RUNNER_DEBUG") == "1",
            cache_dir=default_cache_dir(env),
            z3=default_z3(env),
        )
        self._check_mode(cfg)
        self._check_urls(cfg)
        if self.problems:
            raise ConfigError(tuple(self.problems), self.file_label)
        return cfg

    def _check_mode(self, cfg: Config) -> None:
        """What each mode needs beyond valid fields."""
        mode = cfg.mode.value
        if cfg.mode in (Mode.PR, Mode.POST_COMMENT):
            if not cfg.token:
                self.problem(
                    "github-token",
                    TOKEN_MISSING.format(mode=mode),
                    FROM_INPUT.format(name="github-token", env=input_env_name("github-token")),
                )
            if not cfg.repository:
                self.problem(
                    "GITHUB_REPOSITORY", CONTEXT_MISSING.format(mode=mode), FROM_ENV.format(env="GITHUB_REPOSITORY")
                )
            elif not re.fullmatch(r"[^/\s]+/[^/\s]+", cfg.repository):
                self.problem(
                    "GITHUB_REPOSITORY",
                    f"{show_value(cfg.repository)} is not `owner/name`",
                    FROM_ENV.format(env="GITHUB_REPOSITORY"),
                )
            if cfg.event_path is None:
                self.problem(
                    "GITHUB_EVENT_PATH", CONTEXT_MISSING.format(mode=mode), FROM_ENV.format(env="GITHUB_EVENT_PATH")
                )
            elif not cfg.event_path.is_file():
                self.problem(
                    "GITHUB_EVENT_PATH", f"{cfg.event_path}: no such file", FROM_ENV.format(env="GITHUB_EVENT_PATH")
                )
        if cfg.mode is Mode.AUDIT:
            source = FROM_INPUT.format(name="audit-root", env=input_env_name("audit-root"))
            if cfg.audit_root is None:
                self.problem("audit-root", "missing: mode `audit` needs the dataset directory", source)
            elif not cfg.audit_root.is_dir():
                self.problem("audit-root", f"{cfg.audit_root}: no such directory", source)
            if cfg.audit_issue and not cfg.token:
                self.problem("github-token", ISSUE_TOKEN_MISSING,
                             FROM_INPUT.format(name="github-token", env=input_env_name("github-token")))
            if cfg.audit_issue and not re.fullmatch(r"[^/\s]+/[^/\s]+", cfg.repository):
                self.problem("GITHUB_REPOSITORY", "missing or not `owner/name`: `audit-issue` writes an issue in it",
                             FROM_ENV.format(env="GITHUB_REPOSITORY"))
        if cfg.mode is Mode.POST_COMMENT:
            source = FROM_INPUT.format(name="comment-file", env=input_env_name("comment-file"))
            if cfg.comment_file is None:
                self.problem(
                    "comment-file",
                    "missing: mode `post-comment` needs the saved comment file "
                    "(download the artifact of the pull request's run first)",
                    source,
                )
            elif not cfg.comment_file.is_file():
                self.problem("comment-file", f"{cfg.comment_file}: no such file", source)

    def _check_urls(self, cfg: Config) -> None:
        for var, url in (("GITHUB_API_URL", cfg.api_url), ("GITHUB_SERVER_URL", cfg.server_url)):
            if not re.fullmatch(r"https?://\S+", url):
                self.problem(var, f"{show_value(url)} is not an http(s) URL", FROM_ENV.format(env=var))
