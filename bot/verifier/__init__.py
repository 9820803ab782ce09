"""Run the Dafny verifier on batches of harness methods; the only package that starts a process.

Nothing here raises on a bad program: every method of a batch gets a `Result`. All methods of a batch
are verified as members of one file (prelude + methods), which is ~7x cheaper than one process per method.

Modules:

* `process`: starting the verifier (its environment, the wall-clock limit, killing its process group), the
  messages of results that say nothing about the program, and `is_transient`.
* `version`: finding `dafny`, reading its version (`VerifierInfo`) and the options of `dafny verify`.
* `output`: what both backends share: the batch file and where each method lies in it, running it, console
  diagnostics, Boogie `/xml` reports and `/mv:` models, results of runs that failed.
* `dafny2`: `Dafny2Backend`, the Dafny 2.x command line (`/proc:`, `/xml:`), with what was measured.
* `dafny4`: `Dafny4Backend`, `dafny verify` of Dafny 3.x/4.x (`--log-format json`), with what was checked.
* `server`: `DafnyServerBackend`, Dafny 2.x's Dafny.exe kept alive (one process per worker, `host.cs`), giving the
  same results as `Dafny2Backend`; what was measured is in its docstring.

This module holds the `Backend` protocol and `make_backend`, and re-exports what the rest of the bot uses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from bot.symbolic.program import Result
from bot.verifier.dafny2 import Dafny2Backend
from bot.verifier.dafny4 import MODERN_OPTIONS, Dafny4Backend, parse_json_log
from bot.verifier.output import (
    FILE_NAME,
    MODEL_FILE,
    MODEL_FILE_LIMIT,
    attribute_models,
    filter_noise,
    mangle,
    parse_boogie_xml,
)
from bot.verifier.process import (
    BAD_COMMAND_LINE,
    CRASHED,
    ENV_NAMES,
    ENV_PREFIXES,
    ENV_REFUSED_PARTS,
    ENV_REFUSED_PREFIXES,
    INCLUDE_LEFT,
    KILLED,
    NO_RESULT,
    NOT_RUN,
    OUT_OF_MEMORY,
    UTF8_LOCALE,
    child_environment,
    is_transient,
)
from bot.verifier.server import DafnyServerBackend, find_server
from bot.verifier.version import (
    DETECT_TIMEOUT,
    INSTALL_HINT,
    VerifierInfo,
    VerifierNotFound,
    detect,
    parse_version,
    probe_verify_options,
)

__all__ = [
    "BAD_COMMAND_LINE",
    "CRASHED",
    "DETECT_TIMEOUT",
    "ENV_NAMES",
    "ENV_PREFIXES",
    "ENV_REFUSED_PARTS",
    "ENV_REFUSED_PREFIXES",
    "FILE_NAME",
    "INCLUDE_LEFT",
    "INSTALL_HINT",
    "KILLED",
    "MODEL_FILE",
    "MODEL_FILE_LIMIT",
    "MODERN_OPTIONS",
    "NOT_RUN",
    "NO_RESULT",
    "OUT_OF_MEMORY",
    "UTF8_LOCALE",
    "Backend",
    "Dafny2Backend",
    "Dafny4Backend",
    "DafnyServerBackend",
    "VerifierInfo",
    "VerifierNotFound",
    "parse_boogie_xml",
    "attribute_models",
    "child_environment",
    "detect",
    "filter_noise",
    "find_server",
    "is_transient",
    "make_backend",
    "mangle",
    "parse_json_log",
    "parse_version",
    "probe_verify_options",
]


class Backend(Protocol):
    @property
    def info(self) -> VerifierInfo: ...

    def flags_id(self, time_limit: int) -> str:
        """Everything besides the program text that decides a result: part of every cache key."""
        ...

    def verify_batch(
        self,
        prelude: str,
        methods: Sequence[tuple[str, str]],
        time_limit: int,
        models: Collection[str] = frozenset(),
        *,
        checks: Sequence[str] = (),
        wall: float | None = None,
        background: str = "",
    ) -> dict[str, Result]:
        """Verify `methods` ((name, text) pairs) as members of one file after `prelude`.

        Every name gets a Result; never raises because of the program. The methods named in `models`
        want the counterexample models of their failures in `Result.model` (when the backend can read
        them); with none named, the command line is the same as without the argument. `checks`: these
        declarations of the prelude are verified too (a function against its `ensures` and for termination, a
        lemma's proof), and each name's result stands for all of them (`bot.verifier.output.whole_file_result`);
        the engine passes it only when there are some. `wall`: seconds the whole batch may take when fewer than the
        backend's own wall-clock limit (a method's budget, bot/symbolic/allowance.py); the engine passes it only
        then, and a batch stopped there answers what it concluded and `KILLED` for the rest, as at the own limit.
        `background` (with `checks`): the one method whose result stands for the checks; every other gets its own
        result, as in a batch without checks. The engine passes it only to a backend whose `mixed_checks` is true
        (read with getattr: a backend without the attribute gets a background check's batch of its own).
        """
        ...


def make_backend(info: VerifierInfo, z3_path: str | None = None, server: bool = True, reuse: bool = True) -> Backend:
    """The backend for this Dafny: up to 2.x, the Dafny.exe the `dafny` command runs kept alive when `server` (and
    it and mcs are found, see `find_server`), else the 2.x command line (/xml); `dafny verify` from 3 on (always
    one process per batch). `reuse`: the server's z3 keeps the prelude from one check to the next
    (bot/verifier/prelude_reuse.py)."""
    if info.major <= 2:
        command = find_server(info) if server else None
        if command is not None:
            return DafnyServerBackend(info, command, z3_path=z3_path, reuse=reuse)
        return Dafny2Backend(info, z3_path=z3_path)
    return Dafny4Backend(info, z3_path=z3_path, options=probe_verify_options(info))
