"""Every option of the tool in one table: the Action's inputs, the TOML config file's keys and the CLI's flags.

Each `Option` says its name, its default (as `action.yml` writes it), the function that checks and converts
a raw value (`clean_*`: a string from the environment or the command line, or a TOML value), its help text
and where it applies. `bot.config` (the Action and its file), `bot.cli` (argparse) and `action.yml` (checked
by a test, written by `scripts/action_inputs.py`) are all built from `OPTIONS`, so a default, a limit or
a help text is written once. Pure code: no I/O.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_CONFIG_FILE = ".dafny-spec-score.toml"
AUDIT_TOLERANCE = 1e-3  # MBPP's reals are printed rounded; a pull request's tests compare exactly
AUDIT_TEST_SOURCES = ("dfy", "json", "both")


class CommentMode(Enum):
    ALWAYS = "always"
    ON_CHANGE = "on-change"  # post or update only when the scores differ from the previous comment
    OFF = "off"


class GateScope(Enum):
    METHODS = "methods"  # the methods a pull request changed (clauses, tests, or what they reach), and regressions
    FILES = "files"  # every method of every file the pull request touched


class Mode(Enum):
    PR = "pr"
    AUDIT = "audit"
    POST_COMMENT = "post-comment"  # second workflow of the fork recipe: post a comment saved by a fork PR's run


class FailOn(Enum):
    """When an audit with a baseline fails (`bot.audit.changes.should_fail`)."""

    NEW_DISAGREEMENT = "new-disagreement"  # a task disagrees with its label and did not at the baseline
    VERDICT_CHANGE = "verdict-change"  # a task's verdict differs from the baseline's
    NEVER = "never"


class Use(Enum):
    """Where an option can be given."""

    ACTION = "action input"
    FILE = "config file key"
    SCORE = "`score` flag"
    AUDIT = "`audit` flag"


class Invalid(ValueError):
    """One field's value is not allowed; the message says what is wrong and what is allowed."""



def show_value(value: object) -> str:
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
            f"{show_value(value)} is not {what}; allowed: globs separated by commas or newlines, "
            "or a TOML list of strings"
        )
    globs = tuple(p.strip() for p in parts if p.strip())
    for g in globs:
        if "\0" in g:
            raise Invalid(f"{show_value(g)} contains a NUL character")
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


def clean_fraction(value: object) -> float:
    allowed = "allowed: a number from 0 to 1, e.g. 0.9"
    if isinstance(value, bool):
        raise Invalid(f"{show_value(value)} is not a number; {allowed}")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            raise Invalid(f"{show_value(value)} is out of range; {allowed}") from None
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise Invalid(f"{show_value(value)} is not a number; {allowed}") from None
    else:
        raise Invalid(f"{show_value(value)} is not a number; {allowed}")
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise Invalid(f"{show_value(value)} is out of range; {allowed}")
    return number


def clean_flag(value: object) -> bool:
    """A true/false option (`true`, `yes`, `1`, `on`; `false`, `no`, `0`, `off` or empty)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off", ""):
        return False
    raise Invalid(f"{show_value(value)} is not a boolean; allowed: true or false")


_INT = re.compile(r"[+-]?[0-9]{1,30}")
MAX_INTEGER = 2**63 - 1  # any larger count or seed is a mistake (and may not even print)
MAX_TIME_LIMIT = 86_400  # a day per program


def _integer(value: object, minimum: int, example: str, maximum: int = MAX_INTEGER) -> int:
    allowed = f"allowed: a whole number >= {minimum}, e.g. {example}"
    if maximum != MAX_INTEGER:
        allowed = f"allowed: a whole number from {minimum} to {maximum}, e.g. {example}"
    too_large = f"{show_value(value)} is too large; {allowed.replace(f'>= {minimum}', f'from {minimum} to {maximum}')}"
    if isinstance(value, bool):
        raise Invalid(f"{show_value(value)} is not a whole number; {allowed}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _INT.fullmatch(value.strip()):
        number = int(value.strip())
    elif isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        too_small = f"{show_value(value)} is too small; {allowed}"
        raise Invalid(too_large if not value.strip().startswith("-") else too_small)
    else:
        raise Invalid(f"{show_value(value)} is not a whole number; {allowed}")
    if number < minimum:
        raise Invalid(f"{show_value(value)} is too small; {allowed}")
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
    """None: one job per available core (empty or 0)."""
    if isinstance(value, str) and not value.strip():
        return None
    number = _integer(value, 0, "4 (0 or empty for one per core)")
    return number or None


def _choice(value: object, choices: Mapping[str, T]) -> T:
    allowed = "allowed: " + ", ".join(f"`{c}`" for c in choices)
    if not isinstance(value, str):
        raise Invalid(f"{show_value(value)} is not a string; {allowed}")
    key = value.strip().lower().replace("_", "-")
    if key not in choices:
        raise Invalid(f"{show_value(value)} is not one of the choices; {allowed}")
    return choices[key]


def clean_gate_scope(value: object) -> GateScope:
    return _choice(value, {m.value: m for m in GateScope})


def clean_comment(value: object) -> CommentMode:
    return _choice(value, {m.value: m for m in CommentMode})


_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def clean_comment_id(value: object) -> str:
    # it goes into a hidden HTML marker, so nothing that could close the comment (`--`, `>`)
    if not isinstance(value, str) or not _COMMENT_ID.fullmatch(value.strip()) or "--" in value:
        raise Invalid(
            f"{show_value(value)} is not allowed; allowed: 1 to 64 letters, digits, `.`, `_` or `-` "
            "(no `--`), starting with a letter or digit"
        )
    return value.strip()


def _path_text(value: object, what: str, allow_empty: bool) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{show_value(value)} is not a path; allowed: {what}")
    text = value.strip()
    if not text and not allow_empty:
        raise Invalid(f"is empty; allowed: {what}")
    if "\0" in text or "\n" in text:
        raise Invalid(f"{show_value(value)} is not a path; allowed: {what}")
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




def _optional_number(value: object, allowed: str) -> float | None:
    """A finite number >= 0; None for an empty string (the command's own default)."""
    if isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, bool):
        raise Invalid(f"{show_value(value)} is not a number; {allowed}")
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise Invalid(f"{show_value(value)} is not a number; {allowed}") from None
    if not (math.isfinite(number) and number >= 0.0):  # nan would silently make every real output unknown
        raise Invalid(f"{show_value(value)} is out of range; {allowed}")
    return number


def clean_tolerance(value: object) -> float | None:
    """None: the command's default (exact for pull requests and `score`, AUDIT_TOLERANCE for audits)."""
    return _optional_number(value, "a finite number >= 0, e.g. 1e-3 (empty: the mode's default)")


def clean_weak_below(value: object) -> float:
    return clean_fraction(value)


def clean_audit_tests(value: object) -> str:
    return _choice(value, {s: s for s in AUDIT_TEST_SOURCES})


def clean_audit_label_file(value: object) -> str:
    return _path_text(value, "a tagged review JSON file, `none`, or empty to find one in the dataset",
                      allow_empty=True)


def clean_audit_json(value: object) -> str:
    return _path_text(value, "an MBPP-style test JSON file, or empty to find one in the dataset", allow_empty=True)


def clean_audit_out(value: object) -> str:
    return _path_text(value, "the folder for the audit's reports", allow_empty=False)


_TASK_ID = re.compile(r"\w{1,64}")


def clean_audit_only(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        parts = [str(v) for v in value]
    elif isinstance(value, str):
        parts = value.split(",")
    else:
        raise Invalid(f"{show_value(value)} is not a list of task ids; allowed: ids separated by commas, e.g. 2,17")
    ids = tuple(p.strip() for p in parts if p.strip())
    for i in ids:
        if not _TASK_ID.fullmatch(i):
            raise Invalid(f"{show_value(i)} is not a task id; allowed: letters, digits and `_`, e.g. 2,17")
    return ids


def clean_audit_shard(value: object) -> tuple[int, int] | None:
    """`K/N`: shard K of N (1 <= K <= N); empty: all tasks."""
    if isinstance(value, str) and not value.strip():
        return None
    text = value.strip() if isinstance(value, str) else ""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and len(k) <= 6 and len(n) <= 6 and 1 <= int(k) <= int(n)):
        raise Invalid(f"{show_value(value)} is not a shard; allowed: K/N with 1 <= K <= N, e.g. 2/4")
    return int(k), int(n)


def clean_audit_baseline(value: object) -> str:
    return _path_text(value, "a previous audit's results.json, or empty for no baseline", allow_empty=True)


def clean_audit_fail_on(value: object) -> FailOn:
    return _choice(value, {f.value: f for f in FailOn})


MAX_ISSUE_TITLE = 256  # GitHub's limit for an issue title
MAX_LABEL = 50  # GitHub's limit for a label name
MAX_LABELS = 10


def _printable(text: str) -> bool:
    return all(c.isprintable() for c in text)


def clean_audit_issue(value: object) -> str:
    """The tracking issue's title; empty: no issue."""
    allowed = f"allowed: one line of at most {MAX_ISSUE_TITLE} characters, or empty for no issue"
    if not isinstance(value, str):
        raise Invalid(f"{show_value(value)} is not an issue title; {allowed}")
    title = value.strip()
    if len(title) > MAX_ISSUE_TITLE or not _printable(title):
        raise Invalid(f"{show_value(value)} is not an issue title; {allowed}")
    return title


def clean_audit_labels(value: object) -> tuple[str, ...]:
    """Label names for the tracking issue, separated by commas (or a TOML list); duplicates dropped."""
    allowed = (f"allowed: up to {MAX_LABELS} label names of at most {MAX_LABEL} printable characters, "
               "separated by commas, e.g. `audit, nightly`")
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = [str(v) for v in value]
    else:
        raise Invalid(f"{show_value(value)} is not a list of labels; {allowed}")
    labels: list[str] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if len(part) > MAX_LABEL or "," in part or not _printable(part):
            raise Invalid(f"{show_value(part)} is not a label name; {allowed}")
        if part.casefold() not in {x.casefold() for x in labels}:  # GitHub's label names ignore case
            labels.append(part)
    if len(labels) > MAX_LABELS:
        raise Invalid(f"{len(labels)} labels is too many; {allowed}")
    return tuple(labels)


# ---- the table

_SAME = object()  # marks "the CLI's default is the option's own"


@dataclass(frozen=True)
class Option:
    name: str  # input name, TOML key and (unless `flag`) the CLI flag `--name`
    default: str  # the text action.yml gives; empty means "the mode's default" for some options
    clean: Callable[[object], Any]
    help: str
    uses: frozenset[Use]
    flag: str = ""  # the CLI flag when it is not --name (the audit's short historical flags)
    cli_default: Any = _SAME  # the CLI's default value when it differs (None: not given)

    @property
    def field(self) -> str:
        return self.name.replace("-", "_")

    @property
    def env(self) -> str:
        return input_env_name(self.name)

    @property
    def in_file(self) -> bool:
        return Use.FILE in self.uses

    @property
    def cli_flag(self) -> str:
        return "--" + (self.flag or self.name)

    def cli_value(self) -> Any:
        """The value the CLI uses when the flag is not given."""
        return self.clean(self.default) if self.cli_default is _SAME else self.cli_default


def input_env_name(name: str) -> str:
    """`min-correctness` -> `INPUT_MIN_CORRECTNESS`: the variable action.yml's `runs.env` sets for an input.

    Like the runner's rule (upper case, spaces to `_`), but hyphens also become `_`.
    """
    return "INPUT_" + name.replace(" ", "_").replace("-", "_").upper()


_A, _F, _S, _U = Use.ACTION, Use.FILE, Use.SCORE, Use.AUDIT
_RUN = frozenset({_A, _F, _S, _U})  # how a run verifies: everywhere
_GATE = frozenset({_A, _F, _S})
_ACTION = frozenset({_A, _F})
_AUDIT = frozenset({_A, _F, _U})
_WORKFLOW = frozenset({_A})  # a token in a committed file would leak; the rest belongs to the workflow file

OPTIONS: tuple[Option, ...] = (
    Option("github-token", "", clean_github_token,
           "Token for the GitHub API (reading the pull request, posting the comment). Needs `pull-requests: "
           "write` for modes `pr` and `post-comment`, and `issues: write` for `audit-issue`. Cannot be set in "
           "the config file.", _WORKFLOW),
    Option("specs", "**/*.dfy", clean_specs,
           "Globs of the Dafny spec files to score, separated by newlines or commas.", _ACTION),
    Option("tests", "", clean_tests,
           "Globs of extra test files (.dfy test methods, .toml cases, MBPP .json), read for every spec scored; "
           "a change to one re-scores the specs whose methods it tests. The test methods in the spec files, "
           "`X.tests.toml` beside them and `../test/X.dfy` are always read.", _ACTION),
    Option("min-correctness", "1.0", clean_fraction,
           "Lowest correctness (0 to 1) a changed spec may have before the check fails.", _GATE, cli_default=None),
    Option("min-completeness", "0", clean_fraction,
           "Lowest completeness (0 to 1) a changed spec may have before the check fails.", _GATE,
           cli_default=None),
    Option("fail-on-unknown", "false", clean_flag,
           "Also fail the check when a case or mutant is unknown (the verifier proved neither acceptance nor "
           "rejection). Off by default, since unknowns count neither way.", _GATE),
    Option("allow-axioms", "false", clean_flag,
           "Let a changed method whose verdicts rest on trusted axioms (a body-less function or lemma with "
           "`ensures`, `{:verify false}`, `{:axiom}`, `{:extern}`, an `assume` in its helpers or spec) pass with a "
           "warning. A spec whose helpers do not verify always fails.", _GATE),
    Option("require-determined", "false", clean_flag,
           "Also fail unless every judged method's spec is proved to determine its outputs on every input its "
           "`requires` admits (up to order or as a set is not enough; unknown is not met); with `score`, a spec file "
           "without tests is then judged by this alone. Off by default: a spec may leave a choice on purpose.",
           _GATE),
    Option("allow-unscored", "false", clean_flag,
           "Let a changed method that cannot be scored (no readable test case, nothing decided) pass with a "
           "warning, when it is new or was not scored at base either. A method scored at base that cannot be "
           "scored at head always fails.", _ACTION),
    Option("gate-scope", "methods", clean_gate_scope,
           "What the check judges: `methods`, the methods the pull request changed (their clauses, their tests, or "
           "what their specs reach) and any regression against base; or `files`, every method of every touched "
           "file. Untouched methods are reported either way.", _ACTION),
    Option("fail-on-weakening", "true", clean_flag,
           "Fail the check when a pull request is proved to make a changed method's spec weaker on some input "
           "(head accepts an output base rejected, both proved on the concrete values), unless the weakening makes "
           "head accept a test case base rejected.", _ACTION),
    Option("mutants", "5", clean_mutants,
           "Wrong outputs tried per test case to measure completeness (0 skips completeness).", _RUN),
    Option("pin", "true", clean_flag,
           "Prove, per test case, whether the spec admits only the expected output (the pin check), and show "
           "another output it accepts when not. `false` skips it on very large runs.", _RUN),
    Option("suggest", "true", clean_flag,
           "For a weak spec, search for a stronger `ensures` clause and offer it only when the verifier proves it "
           "accepts every test, rejects every wrong output the spec accepted and is consistent on every case. "
           "`false` skips the search.", _RUN),
    Option("seed", "0", clean_seed, "Mutation seed; the same inputs and seed give the same report.", _RUN),
    Option("time-limit", "20", clean_time_limit, "Seconds the verifier may spend on one program.", _RUN),
    Option("jobs", "", clean_jobs, "Verifier processes run in parallel. Empty or 0: one per available core.",
           _RUN),
    Option("server", "true", clean_flag,
           "Keep one verifier process alive per worker (Dafny 2.x: its Dafny.exe, run per batch) instead of "
           "starting one per batch; `false` starts one per batch.", _RUN),
    Option("tolerance", "", clean_tolerance,
           "Relative tolerance for real outputs: a real output within it of the expected one counts as the "
           f"expected output. Empty: exact for pull requests and `score`, {AUDIT_TOLERANCE:g} for audits "
           "(MBPP prints reals rounded).", _RUN),
    Option("comment", "always", clean_comment,
           "When to post the pull-request comment: `always`, `on-change` (only when the scores changed since "
           "the last comment) or `off`.", _ACTION),
    Option("comment-id", "default", clean_comment_id,
           "Tells this action's comment apart from others it posts on the same pull request (e.g. one per job). "
           "Letters, digits, `.`, `_` and `-`.", _ACTION),
    Option("review", "true", clean_flag,
           "Also place each finding as a review comment on the changed `ensures` lines it concerns (with the "
           "verified suggestion as a one-click change, when one was found); earlier ones are edited or removed "
           "on later runs. Lines outside the diff stay in the summary comment. `false` (or `comment: off`): none.",
           _ACTION),
    # the file cannot name itself or the directory it is read from
    Option("config", DEFAULT_CONFIG_FILE, clean_config,
           "TOML config file, relative to `working-directory`. Its keys are the input names "
           "(`min-correctness = 0.9`, `specs = [\"src/**/*.dfy\"]`). A missing default file is fine.", _WORKFLOW),
    # one file serves both workflows of the fork recipe, so the mode and the artifact belong to the workflow
    Option("mode", "pr", clean_mode,
           "`pr` scores the specs a pull request changes (head against base); `audit` scores a dataset "
           "(`audit-root`); `post-comment` posts the comment a fork pull request's run saved (`comment-file`), "
           "from a second workflow that has a write token.", _WORKFLOW),
    Option("audit-root", "", clean_audit_root,
           "Dataset root directory for mode `audit`, relative to `working-directory`.", _ACTION),
    Option("audit-tests", "dfy", clean_audit_tests,
           "Mode `audit`: the test sources, `dfy` (test methods), `json` (the MBPP-style JSON) or `both`.",
           _AUDIT, flag="tests"),
    Option("audit-label-file", "", clean_audit_label_file,
           "Mode `audit`: the tagged review JSON with the human labels; empty finds a `*tagged*.json` in the "
           "dataset, `none` audits without labels.", _AUDIT, flag="labels"),
    Option("audit-json", "", clean_audit_json,
           "Mode `audit`: the MBPP-style test JSON (for `audit-tests` `json` or `both`); empty finds one in the "
           "dataset.", _AUDIT, flag="json"),
    Option("audit-out", "audit-out", clean_audit_out,
           "Mode `audit`: the folder the reports are written to (report.md, report.html, results.json, "
           "results.csv, mutation-report.json, and changes.json with a baseline).", _AUDIT,
           flag="out"),
    Option("weak-below", "0.8", clean_weak_below,
           "Mode `audit`: a spec whose completeness is below this is `weak`.", _AUDIT),
    Option("audit-only", "", clean_audit_only,
           "Mode `audit`: audit only these task ids (separated by commas); empty: every task.", _AUDIT,
           flag="only"),
    Option("audit-shard", "", clean_audit_shard,
           "Mode `audit`: audit only shard K/N (tasks in id order, every N-th from the K-th); merge the shards "
           "by auditing once more without a shard over their combined caches.", _AUDIT, flag="shard"),
    Option("audit-baseline", "", clean_audit_baseline,
           "Mode `audit`: a previous run's results.json; the report then starts with the changes since it, and "
           "changes.json lists them.", _AUDIT, flag="baseline"),
    Option("audit-fail-on", "never", clean_audit_fail_on,
           "Mode `audit`: when the run fails: `new-disagreement`, `verdict-change` or `never`.", _AUDIT,
           flag="fail-on"),
    Option("audit-issue", "", clean_audit_issue,
           "Mode `audit`: the title of one tracking issue, created on the first run and edited in place on every "
           "later one (found by the hidden marker of `comment-id` among the open issues the token's account "
           "wrote): coverage, agreement, the changes since `audit-baseline`, the histogram and the disagreements. "
           "Needs `issues: write`. Empty: no issue.", _ACTION),
    Option("audit-labels", "", clean_audit_labels,
           "Mode `audit`: labels given to the tracking issue when it is created, separated by commas.", _ACTION),
    Option("comment-file", "", clean_comment_file,
           "For mode `post-comment`, the comment file saved by the pull request's run (downloaded from its "
           "artifact), relative to `working-directory`.", _WORKFLOW),
    Option("working-directory", ".", clean_working_directory,
           "Directory to run in, relative to the repository root.", _WORKFLOW),
)
OPTIONS_BY_NAME: Mapping[str, Option] = {o.name: o for o in OPTIONS}


def options_for(use: Use) -> tuple[Option, ...]:
    return tuple(o for o in OPTIONS if use in o.uses)


def _argument_type(option: Option) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return option.clean(text)
        except Invalid as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert.__name__ = option.name  # argparse names the option in its message
    return convert


def add_arguments(parser: argparse.ArgumentParser, use: Use) -> None:
    """The flags of one command (`Use.SCORE` or `Use.AUDIT`), from the table; `dest` is the option's field."""
    for o in options_for(use):
        default = o.cli_value()
        shown = o.default or "none"
        if isinstance(default, bool):
            parser.add_argument(o.cli_flag, dest=o.field, action=argparse.BooleanOptionalAction, default=default,
                                help=f"{o.help} (default: {shown})")
        else:
            parser.add_argument(o.cli_flag, dest=o.field, type=_argument_type(o), default=default,
                                metavar=o.field.upper(), help=f"{o.help} (default: {shown})")
