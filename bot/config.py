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
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TypeVar

from bot.scoring import Gate
from bot.tests_io.textfiles import MAX_TOML_NESTING, TOML_TOO_DEEP, read_regular, toml_nesting_line

T = TypeVar("T")


def default_cache_dir(env: Mapping[str, str]) -> str:
    if env.get("DAFNY_SPEC_SCORE_CACHE"):
        return env["DAFNY_SPEC_SCORE_CACHE"]
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "dafny-spec-score")


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def default_z3(env: Mapping[str, str]) -> str | None:
    """A z3 binary for Dafny 2.x to use instead of its own (scripts/setup.sh can provide one)."""
    return env.get("DAFNY_SPEC_SCORE_Z3") or None


class CommentMode(Enum):
    ALWAYS = "always"
    ON_CHANGE = "on-change"  # post or update only when the scores differ from the previous comment
    OFF = "off"


class Mode(Enum):
    PR = "pr"
    AUDIT = "audit"
    POST_COMMENT = "post-comment"  # second workflow of the fork recipe: post a comment saved by a fork PR's run


@dataclass(frozen=True)
class Input:
    """One action input as declared in action.yml."""

    name: str
    default: str  # the value used when the input is unset or empty; equal to action.yml's default
    in_file: bool  # whether the TOML config file may set it

    @property
    def env(self) -> str:
        return input_env_name(self.name)


def input_env_name(name: str) -> str:
    """`min-correctness` -> `INPUT_MIN_CORRECTNESS`: the variable action.yml's `runs.env` sets for an input.

    Like the runner's rule (upper case, spaces to `_`), but hyphens also become `_`.
    """
    return "INPUT_" + name.replace(" ", "_").replace("-", "_").upper()


DEFAULT_CONFIG_FILE = ".dafny-spec-score.toml"
TOKEN_DEFAULT_EXPRESSION = "${{ github.token }}"  # action.yml's default for github-token
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"

INPUTS: tuple[Input, ...] = (
    # a token in a committed file would leak, so only the workflow may give it
    Input("github-token", "", in_file=False),
    Input("specs", "**/*.dfy", in_file=True),
    Input("tests", "", in_file=True),
    Input("min-correctness", "1.0", in_file=True),
    Input("min-completeness", "0", in_file=True),
    Input("fail-on-unknown", "false", in_file=True),
    Input("allow-unscored", "false", in_file=True),
    Input("mutants", "5", in_file=True),
    Input("pin", "true", in_file=True),
    Input("seed", "0", in_file=True),
    Input("time-limit", "20", in_file=True),
    Input("jobs", "", in_file=True),
    Input("comment", "always", in_file=True),
    Input("comment-id", "default", in_file=True),
    # the file cannot name itself or the directory it is read from
    Input("config", DEFAULT_CONFIG_FILE, in_file=False),
    # one file serves both workflows of the fork recipe, so the mode and the artifact belong to the workflow
    Input("mode", "pr", in_file=False),
    Input("audit-root", "", in_file=True),
    Input("comment-file", "", in_file=False),
    Input("working-directory", ".", in_file=False),
)
INPUT_NAMES: tuple[str, ...] = tuple(i.name for i in INPUTS)
INPUT_DEFAULTS: Mapping[str, str] = {i.name: i.default for i in INPUTS}
FILE_KEYS: tuple[str, ...] = tuple(i.name for i in INPUTS if i.in_file)
_INPUTS_BY_NAME: Mapping[str, Input] = {i.name: i for i in INPUTS}

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
CONTEXT_MISSING = "missing: mode `{mode}` reads it; it is set when the Action runs in GitHub Actions"


class Invalid(ValueError):
    """One field's value is not allowed; the message says what is wrong and what is allowed."""


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


def _show(value: object) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int of more than 4,300 digits (a hexadecimal TOML integer) cannot be printed
        text = "a number too long to print"
    return text if len(text) <= 80 else text[:77] + "..."


# ---- clean_<field>: raw value (a string from the environment, or a TOML value) -> typed value


def _split_globs(value: object, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        parts = re.split(r"[,\n]", value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = [str(v) for v in value]
    else:
        raise Invalid(
            f"{_show(value)} is not {what}; allowed: globs separated by commas or newlines, or a TOML list of strings"
        )
    globs = tuple(p.strip() for p in parts if p.strip())
    for g in globs:
        if "\0" in g:
            raise Invalid(f"{_show(g)} contains a NUL character")
    return globs


def clean_github_token(value: object) -> str:
    # never echo the value: it is a secret
    if not isinstance(value, str):
        raise Invalid("must be a string")
    token = value.strip()
    if any(c.isspace() for c in token):
        raise Invalid("contains white space; pass the token alone (e.g. `${{ secrets.GITHUB_TOKEN }}`)")
    return token


def clean_specs(value: object) -> tuple[str, ...]:
    globs = _split_globs(value, "a list of globs")
    if not globs:
        raise Invalid("is empty; give at least one glob for the spec files, e.g. `**/*.dfy`")
    return globs


def clean_tests(value: object) -> tuple[str, ...]:
    return _split_globs(value, "a list of globs")


def _fraction(value: object) -> float:
    allowed = "allowed: a number from 0 to 1, e.g. 0.9"
    if isinstance(value, bool):
        raise Invalid(f"{_show(value)} is not a number; {allowed}")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            raise Invalid(f"{_show(value)} is out of range; {allowed}") from None
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise Invalid(f"{_show(value)} is not a number; {allowed}") from None
    else:
        raise Invalid(f"{_show(value)} is not a number; {allowed}")
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise Invalid(f"{_show(value)} is out of range; {allowed}")
    return number


def clean_min_correctness(value: object) -> float:
    return _fraction(value)


def clean_min_completeness(value: object) -> float:
    return _fraction(value)


def clean_pin(value: object) -> bool:
    return clean_fail_on_unknown(value)


def clean_allow_unscored(value: object) -> bool:
    return clean_fail_on_unknown(value)


def clean_fail_on_unknown(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off", ""):
        return False
    raise Invalid(f"{_show(value)} is not a boolean; allowed: true or false")


_INT = re.compile(r"[+-]?[0-9]{1,30}")
MAX_INTEGER = 2**63 - 1  # any larger count or seed is a mistake (and may not even print)
MAX_TIME_LIMIT = 86_400  # a day per program


def _integer(value: object, minimum: int, example: str, maximum: int = MAX_INTEGER) -> int:
    allowed = f"allowed: a whole number >= {minimum}, e.g. {example}"
    if maximum != MAX_INTEGER:
        allowed = f"allowed: a whole number from {minimum} to {maximum}, e.g. {example}"
    too_large = f"{_show(value)} is too large; {allowed.replace(f'>= {minimum}', f'from {minimum} to {maximum}')}"
    if isinstance(value, bool):
        raise Invalid(f"{_show(value)} is not a whole number; {allowed}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _INT.fullmatch(value.strip()):
        number = int(value.strip())
    elif isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        raise Invalid(too_large if not value.strip().startswith("-") else f"{_show(value)} is too small; {allowed}")
    else:
        raise Invalid(f"{_show(value)} is not a whole number; {allowed}")
    if number < minimum:
        raise Invalid(f"{_show(value)} is too small; {allowed}")
    if number > maximum:
        raise Invalid(too_large)
    return number


def clean_mutants(value: object) -> int:
    return _integer(value, 0, "5 (0 skips completeness)")


def clean_seed(value: object) -> int:
    return _integer(value, 0, "0")


def clean_time_limit(value: object) -> int:
    return _integer(value, 1, "20 (seconds per program)", MAX_TIME_LIMIT)


def clean_jobs(value: object) -> int | None:
    """None: one job per available core."""
    if isinstance(value, str) and not value.strip():
        return None
    return _integer(value, 1, "4 (or empty for one per core)")


def _choice(value: object, choices: Mapping[str, T]) -> T:
    allowed = "allowed: " + ", ".join(f"`{c}`" for c in choices)
    if not isinstance(value, str):
        raise Invalid(f"{_show(value)} is not a string; {allowed}")
    key = value.strip().lower().replace("_", "-")
    if key not in choices:
        raise Invalid(f"{_show(value)} is not one of the choices; {allowed}")
    return choices[key]


def clean_comment(value: object) -> CommentMode:
    return _choice(value, {m.value: m for m in CommentMode})


_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def clean_comment_id(value: object) -> str:
    # it goes into a hidden HTML marker, so nothing that could close the comment (`--`, `>`)
    if not isinstance(value, str) or not _COMMENT_ID.fullmatch(value.strip()) or "--" in value:
        raise Invalid(
            f"{_show(value)} is not allowed; allowed: 1 to 64 letters, digits, `.`, `_` or `-` "
            "(no `--`), starting with a letter or digit"
        )
    return value.strip()


def _path_text(value: object, what: str, allow_empty: bool) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{_show(value)} is not a path; allowed: {what}")
    text = value.strip()
    if not text and not allow_empty:
        raise Invalid(f"is empty; allowed: {what}")
    if "\0" in text or "\n" in text:
        raise Invalid(f"{_show(value)} is not a path; allowed: {what}")
    return text


def clean_config(value: object) -> str:
    return _path_text(value, "a TOML file, relative to the working directory", allow_empty=False)


def clean_mode(value: object) -> Mode:
    return _choice(value, {m.value: m for m in Mode})


def clean_audit_root(value: object) -> str:
    return _path_text(value, "a dataset directory, relative to the working directory", allow_empty=True)


def clean_comment_file(value: object) -> str:
    return _path_text(value, "the saved comment file, relative to the working directory", allow_empty=True)


def clean_working_directory(value: object) -> str:
    return _path_text(value, "a directory, relative to the workspace", allow_empty=False)


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
    allow_unscored: bool = False  # new or never-scored methods that cannot be scored warn instead of failing
    mutants: int = 5
    pin: bool = True
    seed: int = 0
    time_limit: int = 20
    jobs: int = field(default_factory=default_jobs)
    comment: CommentMode = CommentMode.ALWAYS
    comment_id: str = "default"
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
    def gate(self) -> Gate:
        return Gate(self.min_correctness, self.min_completeness, self.fail_on_unknown)

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

    def get(self, name: str, clean: Callable[[object], T], fallback: T) -> T:
        raw, source = self._pick(name)
        try:
            return clean(raw)
        except Invalid as e:
            self.problems.append(Problem(name, str(e), source))
            return fallback  # never used: a problem means from_environ raises

    def problem(self, name: str, message: str, source: str) -> None:
        self.problems.append(Problem(name, message, source))

    def config(self) -> Config:
        env = self.env
        workspace = Path(env.get("GITHUB_WORKSPACE") or Path.cwd())
        workdir_text = self.get("working-directory", clean_working_directory, ".")
        workdir = _under(workspace, workdir_text)
        config_text = self.get("config", clean_config, DEFAULT_CONFIG_FILE)
        config_path = _under(workdir, config_text)
        self.file_label = str(config_path)
        config_file: Path | None = None
        if not workdir.is_dir():
            self.problem(
                "working-directory",
                f"{workdir}: no such directory",
                FROM_INPUT.format(name="working-directory", env=input_env_name("working-directory")),
            )
        else:
            try:
                explicit = config_text != DEFAULT_CONFIG_FILE
                self.file_values = read_config_file(config_path, explicit, self.file_text)
                config_file = config_path if config_path.is_file() or self.file_text else None
            except Invalid as e:
                self.problem("config", str(e), FROM_INPUT.format(name="config", env=input_env_name("config")))
            self.problems += _file_problems(config_path, self.file_values)

        token = self.get("github-token", clean_github_token, "")
        mode = self.get("mode", clean_mode, Mode.PR)
        jobs = self.get("jobs", clean_jobs, None)
        audit_root_text = self.get("audit-root", clean_audit_root, "")
        comment_file_text = self.get("comment-file", clean_comment_file, "")
        cfg = Config(
            token=token,
            specs=self.get("specs", clean_specs, ("**/*.dfy",)),
            tests=self.get("tests", clean_tests, ()),
            min_correctness=self.get("min-correctness", clean_min_correctness, 1.0),
            min_completeness=self.get("min-completeness", clean_min_completeness, 0.0),
            fail_on_unknown=self.get("fail-on-unknown", clean_fail_on_unknown, False),
            allow_unscored=self.get("allow-unscored", clean_allow_unscored, False),
            mutants=self.get("mutants", clean_mutants, 5),
            pin=self.get("pin", clean_pin, True),
            seed=self.get("seed", clean_seed, 0),
            time_limit=self.get("time-limit", clean_time_limit, 20),
            jobs=jobs if jobs is not None else default_jobs(),
            comment=self.get("comment", clean_comment, CommentMode.ALWAYS),
            comment_id=self.get("comment-id", clean_comment_id, "default"),
            config_file=config_file,
            config_path=config_path,
            environ=dict(env),
            mode=mode,
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
                    f"{_show(cfg.repository)} is not `owner/name`",
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
                self.problem(var, f"{_show(url)} is not an http(s) URL", FROM_ENV.format(env=var))
