"""The `inputs:` and `runs.env` sections of action.yml, written from the table of options (bot/options.py).

`scripts/action_inputs.py` rewrites action.yml with them; a test checks the file is up to date. Pure code.
"""

from __future__ import annotations

import json
import re
import textwrap

from bot.options import Option, Use, options_for

TOKEN_DEFAULT_EXPRESSION = "${{ github.token }}"  # action.yml's default for github-token
WIDTH = 110
_PLAIN = re.compile(r"[A-Za-z0-9_.\-/]+")


def _default(option: Option) -> str:
    if option.name == "github-token":
        return TOKEN_DEFAULT_EXPRESSION
    text = option.default
    # quoted unless YAML would read it back as the same string
    return text if _PLAIN.fullmatch(text) and not re.fullmatch(r"[0-9.\-]+|true|false", text) else json.dumps(text)


def inputs_section(options: tuple[Option, ...] | None = None) -> str:
    lines = ["inputs:"]
    for o in options if options is not None else options_for(Use.ACTION):
        lines.append(f"  {o.name}:")
        lines.append("    description: >-")
        lines += ["      " + line for line in textwrap.wrap(o.help, WIDTH - 6, break_on_hyphens=False)]
        lines.append("    required: false")
        lines.append(f"    default: {_default(o)}")
    return "\n".join(lines) + "\n"


def env_section(options: tuple[Option, ...] | None = None) -> str:
    lines = ["  env:"]
    for o in options if options is not None else options_for(Use.ACTION):
        lines.append(f"    {o.env}: ${{{{ inputs.{o.name} }}}}")
    return "\n".join(lines) + "\n"


_INPUTS = re.compile(r"^inputs:\n(?:(?:  .*)?\n)*?(?=\S)", re.M)
_ENV = re.compile(r"^  env:\n(?:    .*\n)*", re.M)


def rewrite(action_yml: str) -> str:
    """action.yml with its inputs and runs.env sections written from the table; the rest kept."""
    out = _INPUTS.sub(lambda _: inputs_section() + "\n", action_yml, count=1)
    return _ENV.sub(lambda _: env_section(), out, count=1)
