"""Config.from_environ: defaults, the TOML file, inputs over the file, every problem at once, the token kept out."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from bot.config import (
    CONFIG_INVALID,
    DEFAULT_API_URL,
    INPUT_DEFAULTS,
    INPUT_NAMES,
    NOT_IN_FILE,
    CommentMode,
    Config,
    ConfigError,
    Mode,
    Problem,
    default_cache_dir,
    input_env_name,
)
from bot.options import (
    clean_comment,
    clean_comment_id,
    clean_fraction,
    clean_jobs,
    clean_mode,
    clean_mutants,
    clean_specs,
    clean_time_limit,
)
from bot.symbolic.results import Gate
from bot.verifier.version import default_jobs, default_z3

TOKEN = "ghs_s3cr3tTOKENvalue0123456789"


def action_env(workspace: Path, **inputs: str) -> dict[str, str]:
    """What the runner gives the container: every input (defaults included) and the GitHub context."""
    event = workspace / "event.json"
    event.write_text("{}", encoding="utf-8")
    env = {input_env_name(name): default for name, default in INPUT_DEFAULTS.items()}
    env[input_env_name("github-token")] = TOKEN
    env.update(
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_REPOSITORY="octo/specs",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(event),
        GITHUB_RUN_ID="42",
        GITHUB_SHA="abc123",
        GITHUB_SERVER_URL="https://github.com",
    )
    for key, value in inputs.items():
        env[input_env_name(key.replace("_", "-"))] = value
    return env


def problems(env: Mapping[str, str]) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env)
    return {p.field: p.message for p in info.value.problems}


def test_input_env_names_are_posix() -> None:
    assert input_env_name("min-correctness") == "INPUT_MIN_CORRECTNESS"
    assert input_env_name("github-token") == "INPUT_GITHUB_TOKEN"
    assert all(input_env_name(n).replace("_", "").isalnum() for n in INPUT_NAMES)


def test_defaults(tmp_path: Path) -> None:
    cfg = Config.from_environ(action_env(tmp_path))
    assert cfg.token == TOKEN
    assert cfg.specs == ("**/*.dfy",)
    assert cfg.tests == ()
    assert (cfg.min_correctness, cfg.min_completeness) == (1.0, 0.0)
    assert cfg.gate == Gate(1.0, 0.0)
    assert (cfg.mutants, cfg.seed, cfg.time_limit, cfg.jobs) == (5, 0, 20, default_jobs())
    assert cfg.comment is CommentMode.ALWAYS
    assert cfg.comment_id == "default"
    assert cfg.mode is Mode.PR
    assert cfg.config_file is None  # the default file is absent, which is fine
    assert cfg.working_directory == tmp_path
    assert cfg.audit_root is None and cfg.comment_file is None
    assert cfg.repository == "octo/specs"
    assert cfg.event_path == tmp_path / "event.json"
    assert cfg.api_url == DEFAULT_API_URL
    assert cfg.run_url == "https://github.com/octo/specs/actions/runs/42"
    assert cfg.output_file is None and cfg.summary_file is None


def test_defaults_match_the_dataclass(tmp_path: Path) -> None:
    # Config() is what other code constructs in tests; it must agree with the documented defaults
    cfg = Config.from_environ(action_env(tmp_path, mode="audit", audit_root="."))
    plain = Config()
    for name in (
        "specs",
        "tests",
        "min_correctness",
        "min_completeness",
        "fail_on_unknown",
        "allow_axioms",
        "allow_unscored",
        "mutants",
        "seed",
        "time_limit",
        "comment",
        "comment_id",
    ):
        assert getattr(cfg, name) == getattr(plain, name), name


def test_the_command_lines_gate_has_the_actions_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`score --help` states the option table's defaults; without a flag, those are the gate applied, as in the
    Action (whose action.yml defaults tests/unit/test_action_yml.py checks against the same table)."""
    from bot.cli import build_parser, gate_of  # the command line is a front end: imported here only

    def gate(*flags: str) -> Gate | None:
        return gate_of(build_parser().parse_args(["score", "x.dfy", *flags]))

    action = Config.from_environ(action_env(tmp_path)).gate
    assert gate() == action == Gate() == Gate(1.0, 0.0, False, False)
    assert gate("--min-completeness", "0.8") == Gate(1.0, 0.8)  # another flag leaves the correctness default on
    assert gate("--min-correctness", "0.5") == Gate(0.5, 0.0)
    assert gate("--report-only") is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["score", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "before the check fails. (default: 1.0)" in help_text and "--report-only only report" in help_text


def test_nothing_set_at_all_uses_the_defaults(tmp_path: Path) -> None:
    # outside Actions no INPUT_* variable exists; mode audit needs no token or GitHub context
    cfg = Config.from_environ(
        {"GITHUB_WORKSPACE": str(tmp_path), input_env_name("mode"): "audit", input_env_name("audit-root"): "."}
    )
    assert cfg.specs == ("**/*.dfy",) and cfg.token == "" and cfg.mutants == 5
    assert cfg.audit_root == tmp_path


def test_github_context(tmp_path: Path) -> None:
    env = action_env(tmp_path)
    env.update(
        GITHUB_API_URL="https://ghe.example.com/api/v3/",
        GITHUB_OUTPUT=str(tmp_path / "out"),
        GITHUB_STEP_SUMMARY=str(tmp_path / "sum"),
        RUNNER_DEBUG="1",
        DAFNY_SPEC_SCORE_Z3="/opt/z3",
    )
    cfg = Config.from_environ(env)
    assert cfg.api_url == "https://ghe.example.com/api/v3"
    assert cfg.output_file == tmp_path / "out" and cfg.summary_file == tmp_path / "sum"
    assert cfg.debug and cfg.z3 == "/opt/z3"
    assert cfg.sha == "abc123" and cfg.event_name == "pull_request"


def test_toml_values_apply(tmp_path: Path) -> None:
    (tmp_path / ".dafny-spec-score.toml").write_text(
        'specs = ["src/**/*.dfy", "lib/*.dfy"]\n'
        'tests = "t/*.toml, t/*.dfy"\n'
        "min-correctness = 0.9\n"
        "min-completeness = 1\n"
        "mutants = 3\n"
        "seed = 7\n"
        "time-limit = 60\n"
        "jobs = 2\n"
        'comment = "on-change"\n'
        'comment-id = "nightly"\n'
        'audit-root = "data"\n',
        encoding="utf-8",
    )
    cfg = Config.from_environ(action_env(tmp_path))
    assert cfg.config_file == tmp_path / ".dafny-spec-score.toml"
    assert cfg.specs == ("src/**/*.dfy", "lib/*.dfy")
    assert cfg.tests == ("t/*.toml", "t/*.dfy")
    assert (cfg.min_correctness, cfg.min_completeness) == (0.9, 1.0)
    assert (cfg.mutants, cfg.seed, cfg.time_limit, cfg.jobs) == (3, 7, 60, 2)
    assert cfg.comment is CommentMode.ON_CHANGE
    assert cfg.comment_id == "nightly"
    assert cfg.audit_root == tmp_path / "data"


def test_inputs_set_to_other_than_default_override_the_file(tmp_path: Path) -> None:
    (tmp_path / ".dafny-spec-score.toml").write_text(
        "min-correctness = 0.9\nmutants = 3\nseed = 7\nspecs = ['a/*.dfy']\n", encoding="utf-8"
    )
    env = action_env(tmp_path, min_correctness="0.5", mutants="8", specs="b/*.dfy\nc/*.dfy")
    cfg = Config.from_environ(env)
    assert cfg.min_correctness == 0.5 and cfg.mutants == 8
    assert cfg.specs == ("b/*.dfy", "c/*.dfy")
    assert cfg.seed == 7  # the input kept its default, so the file's value applies


def test_an_input_equal_to_its_default_does_not_override_the_file(tmp_path: Path) -> None:
    # GitHub passes defaults to Docker actions, so "1.0" is indistinguishable from "not set"
    (tmp_path / ".dafny-spec-score.toml").write_text("min-correctness = 0.9\n", encoding="utf-8")
    assert Config.from_environ(action_env(tmp_path, min_correctness="1.0")).min_correctness == 0.9
    assert Config.from_environ(action_env(tmp_path, min_correctness=" ")).min_correctness == 0.9
    # another spelling of the same number is a deliberate choice and wins
    assert Config.from_environ(action_env(tmp_path, min_correctness="1")).min_correctness == 1.0


def test_config_and_working_directory(tmp_path: Path) -> None:
    sub = tmp_path / "proj"
    (sub / "conf").mkdir(parents=True)
    (sub / "conf" / "score.toml").write_text("mutants = 9\n", encoding="utf-8")
    cfg = Config.from_environ(action_env(tmp_path, working_directory="proj", config="conf/score.toml"))
    assert cfg.working_directory == sub
    assert cfg.config_file == sub / "conf" / "score.toml"
    assert cfg.mutants == 9


def test_every_invalid_field_is_reported_at_once(tmp_path: Path) -> None:
    env = action_env(
        tmp_path,
        min_correctness="1.5",
        min_completeness="high",
        mutants="-1",
        seed="x",
        time_limit="0",
        jobs="-2",
        comment="sometimes",
        comment_id="a--b",
        mode="review",
        specs=" , ",
    )
    found = problems(env)
    assert set(found) == {
        "min-correctness",
        "min-completeness",
        "mutants",
        "seed",
        "time-limit",
        "jobs",
        "comment",
        "comment-id",
        "mode",
        "specs",
    }
    assert "at least one glob" in found["specs"]
    assert "from 0 to 1" in found["min-correctness"]
    assert "`always`, `on-change`, `off`" in found["comment"]
    assert "`pr`, `audit`, `post-comment`" in found["mode"]
    assert "from 1 to" in found["time-limit"]


def test_error_text_lists_each_problem_with_its_source(tmp_path: Path) -> None:
    env = action_env(tmp_path, mutants="many")
    (tmp_path / ".dafny-spec-score.toml").write_text("seed = -3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env)
    text = str(info.value)
    head = CONFIG_INVALID.format(count=2, s="s", file=tmp_path / ".dafny-spec-score.toml")
    assert text.splitlines()[0] == head
    assert "  - mutants: 'many' is not a whole number" in text
    assert "(from input `mutants` (INPUT_MUTANTS))" in text
    assert f"(from `seed` in {tmp_path / '.dafny-spec-score.toml'})" in text


def test_unknown_toml_key_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".dafny-spec-score.toml").write_text("mutant = 3\n[tool]\nx = 1\n", encoding="utf-8")
    found = problems(action_env(tmp_path))
    assert found["mutant"].startswith("unknown key `mutant` (did you mean `mutants`?)")
    assert "min-correctness" in found["mutant"]  # the known keys are listed
    assert "unknown key `tool`" in found["tool"]


def test_inputs_that_belong_to_the_workflow_cannot_be_in_the_file(tmp_path: Path) -> None:
    (tmp_path / ".dafny-spec-score.toml").write_text(f'github-token = "{TOKEN}"\nmode = "audit"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        Config.from_environ(action_env(tmp_path))
    found = {p.field: p.message for p in info.value.problems}
    assert found["github-token"] == NOT_IN_FILE.format(key="github-token")
    assert found["mode"] == NOT_IN_FILE.format(key="mode")
    assert TOKEN not in str(info.value)


def test_toml_types_are_checked(tmp_path: Path) -> None:
    (tmp_path / ".dafny-spec-score.toml").write_text(
        'mutants = 2.5\nmin-correctness = true\nspecs = [1, 2]\ncomment = false\njobs = "-1"\n', encoding="utf-8"
    )
    found = problems(action_env(tmp_path))
    assert set(found) == {"mutants", "min-correctness", "specs", "comment", "jobs"}


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / ".dafny-spec-score.toml"
    path.write_text("mutants = 3\nseed = = 4\n", encoding="utf-8")
    found = problems(action_env(tmp_path, min_correctness="2"))
    assert found["config"].startswith(f"{path}:2: not valid TOML: ")
    assert "min-correctness" in found  # the other problems are still reported


def test_missing_named_config_file_is_an_error(tmp_path: Path) -> None:
    found = problems(action_env(tmp_path, config="nope.toml"))
    assert found["config"].startswith(f"{tmp_path / 'nope.toml'}: no such file")


def test_missing_working_directory(tmp_path: Path) -> None:
    assert "no such directory" in problems(action_env(tmp_path, working_directory="gone"))["working-directory"]


def test_mode_requirements(tmp_path: Path) -> None:
    env = action_env(tmp_path, github_token="")
    del env["GITHUB_REPOSITORY"], env["GITHUB_EVENT_PATH"]
    found = problems(env)
    assert set(found) == {"github-token", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"}
    assert "pull-requests: write" in found["github-token"]
    assert "no such directory" in problems(action_env(tmp_path, mode="audit", audit_root="none"))["audit-root"]
    assert "missing" in problems(action_env(tmp_path, mode="audit"))["audit-root"]
    assert "missing" in problems(action_env(tmp_path, mode="post-comment"))["comment-file"]
    (tmp_path / "comment.md").write_text("hi", encoding="utf-8")
    cfg = Config.from_environ(action_env(tmp_path, mode="post_comment", comment_file="comment.md"))
    assert cfg.mode is Mode.POST_COMMENT and cfg.comment_file == tmp_path / "comment.md"


def test_bad_github_context(tmp_path: Path) -> None:
    env = action_env(tmp_path)
    env.update(GITHUB_REPOSITORY="just-a-name", GITHUB_API_URL="ftp://x", GITHUB_EVENT_PATH=str(tmp_path / "no"))
    assert set(problems(env)) == {"GITHUB_REPOSITORY", "GITHUB_API_URL", "GITHUB_EVENT_PATH"}


def test_token_never_shown(tmp_path: Path) -> None:
    cfg = Config.from_environ(action_env(tmp_path))
    assert TOKEN not in repr(cfg) and TOKEN not in str(cfg)
    env = action_env(tmp_path, mutants="x", github_token=f"{TOKEN} extra")
    with pytest.raises(ConfigError) as info:
        Config.from_environ(env)
    assert {p.field for p in info.value.problems} == {"mutants", "github-token"}
    assert TOKEN not in str(info.value) and TOKEN not in repr(info.value)
    assert all(TOKEN not in str(p) and TOKEN not in repr(p) for p in info.value.problems)


@pytest.mark.parametrize(
    ("clean", "raw", "expected"),
    [
        (clean_fraction, " 0.25 ", 0.25),
        (clean_fraction, 1, 1.0),
        (clean_mutants, "0", 0),
        (clean_time_limit, 30, 30),
        (clean_jobs, "", None),
        (clean_jobs, "3", 3),
        (clean_jobs, "0", None),
        (clean_comment, "ON_CHANGE", CommentMode.ON_CHANGE),
        (clean_mode, "Audit", Mode.AUDIT),
        (clean_comment_id, "job-1.a_b", "job-1.a_b"),
        (clean_specs, "a/*.dfy,\n b/*.dfy ,", ("a/*.dfy", "b/*.dfy")),
    ],
)
def test_clean_accepts(clean: object, raw: object, expected: object) -> None:
    assert callable(clean)
    assert clean(raw) == expected


@pytest.mark.parametrize(
    ("clean", "raw"),
    [
        (clean_fraction, "nan"),
        (clean_fraction, "inf"),
        (clean_fraction, -0.1),
        (clean_mutants, "5.0"),
        (clean_mutants, True),
        (clean_comment_id, "x>y"),
        (clean_comment_id, ""),
        (clean_specs, []),
    ],
)
def test_clean_rejects(clean: object, raw: object) -> None:
    assert callable(clean)
    with pytest.raises(ValueError):
        clean(raw)


def test_problem_text() -> None:
    assert str(Problem("seed", "bad", "input `seed`")) == "seed: bad (from input `seed`)"


def test_environment_helpers_kept() -> None:
    assert default_cache_dir({"DAFNY_SPEC_SCORE_CACHE": "/c"}) == "/c"
    assert default_cache_dir({"XDG_CACHE_HOME": "/x"}) == "/x/dafny-spec-score"
    assert default_z3({}) is None and default_z3({"DAFNY_SPEC_SCORE_Z3": "/z"}) == "/z"
    assert default_jobs() >= 1


def test_post_comment_reads_no_config_file_from_the_workspace(tmp_path: Path) -> None:
    # the posting workflow's workspace holds a fork run's artifact: a config file in it is the fork's
    (tmp_path / ".dafny-spec-score.toml").write_text('comment = "on-change"\ncomment-id = "forked"\n')
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "c.json").write_text("{}")
    pr = Config.from_environ(action_env(tmp_path))
    assert pr.comment is CommentMode.ON_CHANGE and pr.comment_id == "forked"  # the file is real and read in `pr`
    cfg = Config.from_environ(action_env(tmp_path, mode="post-comment", comment_file="saved/c.json"))
    assert cfg.config_file is None
    assert cfg.comment is CommentMode.ALWAYS and cfg.comment_id == "default"
    # nor does a broken one stop the posting
    (tmp_path / ".dafny-spec-score.toml").write_text("not = [toml")
    assert Config.from_environ(action_env(tmp_path, mode="post-comment", comment_file="saved/c.json")).mode \
        is Mode.POST_COMMENT
