"""action.yml agrees with the code: the inputs it declares are the ones Config reads, the outputs the ones written."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from bot.config import INPUT_DEFAULTS, INPUT_NAMES, input_env_name
from bot.github.action_yml import TOKEN_DEFAULT_EXPRESSION, rewrite
from bot.github.commands import OUTPUT_NAMES
from bot.options import OPTIONS, Use
from support.paths import ROOT

ACTION = ROOT / "action.yml"


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_docker_action(action: dict[str, Any]) -> None:
    assert action["runs"]["using"] == "docker"
    # main builds from source; a release commit pulls by digest (tests/integration/test_release.py)
    assert action["runs"]["image"] == "Dockerfile"
    assert action["name"] and action["description"]
    assert set(action["branding"]) == {"icon", "color"}


def test_every_declared_input_is_read(action: dict[str, Any]) -> None:
    assert set(action["inputs"]) <= set(INPUT_NAMES)


def test_every_read_input_is_declared(action: dict[str, Any]) -> None:
    assert set(INPUT_NAMES) <= set(action["inputs"])


def test_inputs_have_descriptions_and_the_codes_defaults(action: dict[str, Any]) -> None:
    for name, spec in action["inputs"].items():
        assert spec["description"].strip(), name
        assert "default" in spec, name
        expected = TOKEN_DEFAULT_EXPRESSION if name == "github-token" else INPUT_DEFAULTS[name]
        # YAML may read an unquoted default as a number; the runner passes its text
        assert str(spec["default"]) == expected, name


def test_each_input_is_mapped_to_the_variable_config_reads(action: dict[str, Any]) -> None:
    env = action["runs"]["env"]
    assert env == {input_env_name(name): f"${{{{ inputs.{name} }}}}" for name in INPUT_NAMES}


def test_declared_outputs_are_the_written_ones(action: dict[str, Any]) -> None:
    assert set(action["outputs"]) == set(OUTPUT_NAMES)
    for name, spec in action["outputs"].items():
        assert spec["description"].strip(), name


def test_action_yml_is_written_from_the_table_of_options() -> None:
    text = ACTION.read_text(encoding="utf-8")
    assert rewrite(text) == text, "action.yml is out of date: run python3 scripts/action_inputs.py"


def test_descriptions_are_the_tables_help(action: dict[str, Any]) -> None:
    helps = {o.name: o.help for o in OPTIONS if Use.ACTION in o.uses}
    for name, spec in action["inputs"].items():
        assert " ".join(spec["description"].split()) == " ".join(helps[name].split()), name
