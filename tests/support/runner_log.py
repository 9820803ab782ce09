"""The Action's log as GitHub's runner reads it: which lines it takes as workflow commands.

Shared by tests/e2e/test_hostile_pr.py and tests/hostile/battery.py (which loads it by path when run as a script, as
it loads tests/support/fakegithub.py). It follows actions/runner's ActionCommandManager: `::name k=v,...::data`
commands, the legacy `##[name k=v;...]data` form, their escapes, and `::stop-commands::TOKEN` suspending every
command until `::TOKEN::`."""

from __future__ import annotations

import re
from collections.abc import Sequence

RUNNER_COMMANDS = {"error", "warning", "notice", "debug", "group", "endgroup", "set-output", "save-state",
                   "add-mask", "add-path", "set-env", "stop-commands", "echo", "add-matcher", "remove-matcher"}


def _unescape(text: str, prop: bool) -> str:
    text = text.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%25", "%")


def _legacy_unescape(text: str) -> str:
    for token, escaped in ((";", "%3B"), ("\r", "%0D"), ("\n", "%0A"), ("]", "%5D"), ("%", "%25")):
        text = text.replace(escaped, token)
    return text


def _parse_command(line: str, registered: set[str]) -> tuple[str, dict[str, str], str] | None:
    """A line as actions/runner's ActionCommandManager reads it: `ActionCommand.TryParseV2` (`::name k=v,...::data`
    at the start after leading blanks), else the legacy `TryParse` (`##[name k=v;...]data` ANYWHERE in the line)."""
    props: dict[str, str] = {}
    v2 = line.lstrip()
    end = v2.find("::", 2) if v2.startswith("::") else -1
    if end >= 0:
        name, _, props_text = v2[2:end].partition(" ")
        if name in registered:
            for item in props_text.strip().split(","):
                key, eq, value = item.partition("=")
                if eq and key and value:
                    props[key] = _unescape(value, prop=True)
            return name, props, _unescape(v2[end + 2 :], prop=False)
    start = line.find("##[")
    end = line.find("]", start) if start >= 0 else -1
    if end < 0:
        return None
    name, _, props_text = line[start + 3 : end].partition(" ")
    if name not in registered:
        return None
    for item in props_text.split(";"):
        key, eq, value = item.partition("=")
        if eq and key and value:
            props[key] = _legacy_unescape(value)
    return name, props, _legacy_unescape(line[end + 1 :])


def runner_commands(stream: str) -> list[tuple[str, dict[str, str], str, str]]:
    """(name, properties, data, line) of every line the Actions runner would take as a command.

    Lines end at LF, CR or CRLF (as .NET reads them); `stop-commands` with a token suspends every command
    until a command named by the token (`::TOKEN::`)."""
    found: list[tuple[str, dict[str, str], str, str]] = []
    stop = ""
    for raw in re.split(r"\r\n|\r|\n", stream):
        parsed = _parse_command(raw, RUNNER_COMMANDS | ({stop} if stop else set()))
        if parsed is None:
            continue
        if stop:
            if parsed[0].lower() == stop.lower():
                stop = ""
            continue
        if parsed[0] == "stop-commands" and parsed[2]:
            stop = parsed[2]
        found.append((*parsed, raw))
    return found


def injected(log_streams: Sequence[str], word: str = "pwned") -> list[str]:
    """Commands the payload wrote: its word opens the data, a property (key or value) or the name."""
    hits = []
    for stream in log_streams:
        for name, props, data, line in runner_commands(stream):
            if word in name or any(f.startswith(word) for f in (data, *props.keys(), *props.values())):
                hits.append(line[:160])
    return hits
