"""The verifier's environment: the token (and anything like it) never reaches a verifier process."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from bot.symbolic.program import Outcome
from bot.verifier import UTF8_LOCALE, Dafny2Backend, Dafny4Backend, child_environment, detect, make_backend

TOKEN = "ghs_s3cr3tT0kenValue0123456789"

# Everything the Action's process may hold that the verifier must not see.
SECRETS = {
    "INPUT_GITHUB_TOKEN": TOKEN,
    "GITHUB_TOKEN": TOKEN,
    "ACTIONS_RUNTIME_TOKEN": TOKEN + "-runtime",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.example/" + TOKEN,
    "GITHUB_WORKSPACE": "/github/workspace",
    "INPUT_SPECS": "**/*.dfy",
    "AWS_SECRET_ACCESS_KEY": "aws-" + TOKEN,
    "NPM_AUTH_TOKEN": "npm-" + TOKEN,
    "DB_PASSWORD": "pw-" + TOKEN,
    "MONO_API_KEY": "mono-" + TOKEN,  # an allowed prefix does not let a secret-looking name through
    "RUNNER_TEMP": "/home/runner/work/_temp",
    "UNRELATED": "not needed by the verifier",
}
# What the verifier may need, set to recognisable values.
NEEDED = {
    "MONO_ENV_OPTIONS": "--gc=sgen",
    "MONO_PATH": "/opt/mono/lib",
    "DOTNET_ROOT": "/usr/share/dotnet",
    "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
}

# A stand-in `dafny` (Dafny 2.3 or 4 by its first line) that appends its environment to a file named in its
# own text (not in the environment, which is what is being tested) and answers like the real one.
FAKE = """\
import json, os, re, sys
from pathlib import Path

MAJOR = {major}
with open({dump!r}, "a", encoding="utf-8") as out:
    out.write(json.dumps({{"argv": sys.argv[1:], "env": dict(os.environ)}}) + "\\n")
args = sys.argv[1:]
if args == ["--version"]:
    if MAJOR == 2:
        print("Dafny: Error: unknown switch: --version")
        sys.exit(1)
    print("4.4.0")
    sys.exit(0)
if args == ["/version"]:
    print("Dafny 2.3.0.10506")
    sys.exit(1)
if args == ["verify", "--help"]:
    print("Options:\\n  --filter-symbol\\n  --verification-time-limit\\n  --log-format\\n  --allow-warnings")
    sys.exit(0)
names = re.findall(r"^method (\\w+)", Path("batch.dfy").read_text(), re.M)
if MAJOR == 2:
    done = '<conclusion outcome="correct" duration="0.1"/></method>'
    xml = "".join(f'<method name="Impl$$_module.__default.{{n.replace("_", "__")}}">' + done for n in names)
    xml_name = next(a for a in args if a.startswith("/xml:"))[len("/xml:"):]
    Path(xml_name).write_text("<root><file>" + xml + "</file></root>")
else:
    log = args[args.index("--log-format") + 1].split("LogFileName=", 1)[1]
    results = [{{"name": f"{{n}} (correctness)", "outcome": "Correct", "runTime": "00:00:00.1"}} for n in names]
    Path(log).write_text(json.dumps({{"verificationResults": results}}))
sys.exit(0)
"""


def install_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, major: int) -> Path:
    """A `dafny` first on PATH; returns the file its environments are appended to."""
    dump = tmp_path / "environments.jsonl"
    script = tmp_path / "fake_dafny.py"
    script.write_text(FAKE.format(major=major, dump=str(dump)))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "dafny"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    for name, value in {**SECRETS, **NEEDED}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "en_US.ISO-8859-1")  # not UTF-8: the verifier gets C.UTF-8
    monkeypatch.delenv("LC_ALL", raising=False)
    return dump


def recorded(dump: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]


def assert_clean(runs: list[dict[str, object]]) -> None:
    for run in runs:
        env = run["env"]
        assert isinstance(env, dict)
        leaked = {k: v for k, v in env.items() if TOKEN in v or k in SECRETS}
        assert leaked == {}, f"{run['argv']}: {leaked}"
        for name, value in NEEDED.items():
            assert env.get(name) == value
        assert env["LANG"] == env["LC_ALL"] == UTF8_LOCALE
        assert env["PATH"] == os.environ["PATH"]
        allowed = {*NEEDED, "PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LD_LIBRARY_PATH", "LANG", "LC_ALL"}
        assert set(env) - {"PWD", "SHLVL", "_"} <= allowed  # the wrapper's /bin/sh sets PWD (dash), SHLVL, _


@pytest.mark.parametrize("major", [2, 4])
def test_token_never_reaches_the_verifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, major: int) -> None:
    dump = install_fake(tmp_path, monkeypatch, major)

    info = detect()  # runs `dafny --version` (and `dafny /version` for 2.x)
    backend = make_backend(info)  # 4.x: runs `dafny verify --help`
    assert isinstance(backend, Dafny2Backend if major == 2 else Dafny4Backend)
    methods = [("SpecScore_h1", "method SpecScore_h1() {}"), ("SpecScore_h2", "method SpecScore_h2() {}")]
    results = backend.verify_batch("function F(): int { 1 }\n", methods, 5)

    assert {r.outcome for r in results.values()} == {Outcome.VERIFIED}
    runs = recorded(dump)
    assert len(runs) == 3  # `--version` and `/version`, or `--version` and `verify --help`; then the batch
    assert_clean(runs)
    assert detect() == info and len(recorded(dump)) == 3  # read once per process while the file is unchanged


def test_a_verifier_replaced_on_disk_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake(tmp_path, monkeypatch, 2)
    assert detect().major == 2
    newer = tmp_path / "dafny4.py"
    newer.write_text(FAKE.format(major=4, dump=str(tmp_path / "newer.jsonl")))
    (tmp_path / "bin" / "dafny").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{newer}" "$@"\n')  # the same path
    assert detect().major == 4
    # two names of one file are two commands: each is returned as found
    (tmp_path / "bin" / "dafny-again").symlink_to(tmp_path / "bin" / "dafny")
    assert detect("dafny-again").command == (str(tmp_path / "bin" / "dafny-again"),)


def test_child_environment_keeps_a_utf8_locale_and_drops_everything_else() -> None:
    parent = {
        "PATH": "/usr/bin",
        "HOME": "/home/me",
        "TMPDIR": "/tmp/x",
        "LANG": "de_DE.UTF-8",
        "LC_ALL": "",
        "MONO_GC_PARAMS": "major=marksweep",
        "DOTNET_ROOT": "/opt/dotnet",
        "GITHUB_TOKEN": TOKEN,
        "github_token": TOKEN,  # names are compared case-insensitively for the refused parts
        "DOTNET_API_SECRET": TOKEN,
        "MONO_PASSWORD": TOKEN,
        "SSH_AUTH_SOCK": "/tmp/agent",
        "PYTHONPATH": "/somewhere",
    }
    assert child_environment(parent) == {
        "PATH": "/usr/bin",
        "HOME": "/home/me",
        "TMPDIR": "/tmp/x",
        "LANG": "de_DE.UTF-8",
        "LC_ALL": "de_DE.UTF-8",
        "MONO_GC_PARAMS": "major=marksweep",
        "DOTNET_ROOT": "/opt/dotnet",
    }
    assert child_environment({"LC_ALL": "C.utf8", "LANG": "C"})["LANG"] == "C.utf8"
    assert child_environment({"LANG": "POSIX"}) == {"LANG": UTF8_LOCALE, "LC_ALL": UTF8_LOCALE}


# ---------------------------------------------------------------------------------------------------
# The real verifier still works with the minimal environment

SPEC = """\
// spéc: non-ASCII text in the program (the verifier reads it as UTF-8)
function Twice(x: int): int { 2 * x }
"""


@pytest.mark.dafny
def test_real_verifier_with_minimal_environment(dafny_command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "POSIX")
    monkeypatch.delenv("LC_ALL", raising=False)
    backend = make_backend(detect(dafny_command))
    methods = [
        ("SpecScore_ok", "method SpecScore_ok() {\n  assert Twice(3) == 6;\n}"),
        ("SpecScore_bad", "method SpecScore_bad() {\n  assert Twice(3) == 7;\n}"),
    ]
    results = backend.verify_batch(SPEC, methods, 10)
    assert results["SpecScore_ok"].outcome is Outcome.VERIFIED, results["SpecScore_ok"]
    assert results["SpecScore_bad"].outcome is Outcome.REFUTED, results["SpecScore_bad"]
    assert "assertion violation" in results["SpecScore_bad"].message or "might not hold" in (
        results["SpecScore_bad"].message
    )
