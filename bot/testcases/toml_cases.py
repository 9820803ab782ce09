"""Test cases in a TOML file beside the spec, read with the standard library's `tomllib`.

Pure code: the caller reads the file and passes its text. The format:

```toml
# spec.tests.toml next to spec.dfy
method = "SharedElements"        # default for cases that don't name one
[[case]]
name = "two shared"              # optional
method = "SharedElements"        # optional when the top-level method is set
args = ["new int[] [3, 4, 5, 6]", "[5, 7, 4, 10]"]   # Dafny literal text, one per parameter
expected = "[4, 5]"              # one out-parameter; a list of texts when there are several
# post = { a = "[1, 2, 3]" }    # in-place methods: expected state of array parameters after the call
```

A TOML string is always Dafny literal text: a Dafny string is written `'"abc"'`, a char `"'a'"`.
Where that is unambiguous, TOML values stand for themselves: integers (`args = [3, 5]`), booleans
(`expected = true`), floats for reals (`expected = 2.5`, read exactly from the decimal text, never
rounded through binary floating point) and arrays of these (`args = [[1, 2, 3], 2]`). An array
parameter takes a sequence literal (`"[1, 2]"`, `[1, 2]`) as well as `"new int[] [1, 2]"`.
Cases without a name are called `case_1`, `case_2`, ... by their place in the file.

A file nested more than `MAX_TOML_NESTING` arrays deep, or with an integer too long for Python to read,
is one problem naming its line, never an exception.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from bot.dafny.decls import DafnyFile, Decl, Param
from bot.dafny.types import ArrayT
from bot.dafny.values import LITERAL_TOO_LONG, MAX_LITERAL_DIGITS, Value, ValueParseError
from bot.testcases.bindings import as_array, parse_at
from bot.testcases.cases import CaseProblem, ReadResult, TestCase
from bot.testcases.textfiles import MAX_TOML_NESTING, TOML_TOO_DEEP, toml_nesting_line

CASE_KEYS = ("name", "method", "args", "expected", "post")
TOP_KEYS = ("method", "case")


@dataclass(frozen=True)
class _Real:
    """A TOML float kept as its text, so `0.1` means exactly one tenth."""

    text: str


class _CaseError(ValueError):
    """What is wrong with one case; the message says what to fix."""


def read_toml_cases(text: str, path: str, file: DafnyFile) -> ReadResult:
    """The cases of a tests TOML file, for the methods of `file`."""
    deep = toml_nesting_line(text)
    if deep is not None:
        return _fail(path, deep, f"not read: {TOML_TOO_DEEP.format(limit=MAX_TOML_NESTING)}")
    try:
        doc = tomllib.loads(text, parse_float=_Real)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        return _fail(path, int(m.group(1)) if m else 0, f"not valid TOML: {e}")
    except ValueError:
        # tomllib lets Python's int() refuse an integer of more than 4,300 digits
        line, digits = _longest_number(text)
        too_long = LITERAL_TOO_LONG.format(digits=digits, limit=MAX_LITERAL_DIGITS)
        return _fail(path, line, f"not read: a TOML integer {too_long}")
    except RecursionError:  # a backstop: the nesting check stops far earlier
        return _fail(path, 0, f"not read: {TOML_TOO_DEEP.format(limit=MAX_TOML_NESTING)}")
    problems: list[CaseProblem] = []
    for key in doc:
        if key not in TOP_KEYS:
            problems.append(
                CaseProblem(
                    path,
                    _key_line(text, key),
                    f"unknown top-level key `{key}` "
                    f"(known: {', '.join(TOP_KEYS)}); cases go in [[case]] tables",
                )
            )
    default = doc.get("method")
    if default is not None and not isinstance(default, str):
        return _fail(path, _key_line(text, "method"), "the top-level `method` must be a method name")
    entries = doc.get("case")
    if entries is None:
        problems.append(CaseProblem(path, 0, "no [[case]] tables: add one per test case"))
        return ReadResult((), tuple(problems))
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        problems.append(CaseProblem(path, _key_line(text, "case"), "`case` must be [[case]] tables"))
        return ReadResult((), tuple(problems))
    headers = _header_lines(text)
    if len(headers) != len(entries):
        headers = [0] * len(entries)  # written as an inline array: no line per case
    lines = text.splitlines()
    cases: list[TestCase] = []
    names: set[tuple[str, str]] = set()
    for k, entry in enumerate(entries, start=1):
        line = headers[k - 1]
        name = entry.get("name")
        label = f'case "{name}"' if isinstance(name, str) else f"case {k}"
        try:
            case = _case(entry, k, default, file)
        except _CaseError as e:
            method = entry.get("method", default)
            problems.append(
                CaseProblem(
                    path,
                    line,
                    f"{label}: {e}",
                    method=method if isinstance(method, str) else "",
                    name=name if isinstance(name, str) else f"case_{k}",
                )
            )
            continue
        if (case.method, case.name) in names:
            reason = f"{label}: another case of `{case.method}` has this name; give each case its own `name`"
            problems.append(CaseProblem(path, line, reason, method=case.method, name=case.name))
            continue
        names.add((case.method, case.name))
        cases.append(
            TestCase(
                name=case.name,
                method=case.method,
                inputs=case.inputs,
                expected=case.expected,
                post=case.post,
                source=path,
                line=line,
                text=_case_text(lines, headers, k - 1),
            )
        )
    return ReadResult(tuple(cases), tuple(problems))


def _longest_number(text: str) -> tuple[int, int]:
    """(line, digits) of the longest run of digits in text."""
    best = max(re.finditer(r"[0-9][0-9_]*", text), key=lambda m: len(m.group(0)), default=None)
    if best is None:
        return 0, 0
    return text.count("\n", 0, best.start()) + 1, len(best.group(0).replace("_", ""))


def _fail(path: str, line: int, reason: str) -> ReadResult:
    return ReadResult((), (CaseProblem(path, line, reason),))


def _case(entry: Mapping[str, object], k: int, default: str | None, file: DafnyFile) -> TestCase:
    unknown = [key for key in entry if key not in CASE_KEYS]
    if unknown:
        raise _CaseError(f"unknown key `{unknown[0]}` (known: {', '.join(CASE_KEYS)})")
    name = entry.get("name", f"case_{k}")
    if not isinstance(name, str) or not name:
        raise _CaseError("`name` must be a non-empty string")
    method_name = entry.get("method", default)
    if method_name is None:
        raise _CaseError('names no method: set `method = "..."` in the case or at the top of the file')
    if not isinstance(method_name, str):
        raise _CaseError("`method` must be a string (a method name)")
    # a qualified name (`A.Add`) picks one of same-named methods in different modules
    matches = [d for d in file.methods() if method_name in (d.qualified, d.name)]
    exact = [d for d in matches if d.qualified == method_name]
    if len(matches) > 1 and not exact:
        names = ", ".join(f"`{d.qualified}`" for d in matches)
        raise _CaseError(f"`{method_name}` is ambiguous in {file.path} ({names}): give the qualified name")
    target = (exact or matches)[0] if matches else None
    if target is None:
        known = ", ".join(d.qualified for d in file.methods()) or "none"
        raise _CaseError(f"no method `{method_name}` in {file.path} (methods there: {known})")
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise _CaseError(f"`args` must be a list with one entry per parameter of `{target.name}`")
    if len(args) != len(target.params):
        raise _CaseError(
            f"`args` has {len(args)} entries, `{target.name}` takes {len(target.params)} "
            f"({_params(target.params)})"
        )
    pairs = enumerate(zip(args, target.params, strict=True))
    inputs = tuple(_value(a, p, f"argument {i + 1}") for i, (a, p) in pairs)
    expected = _expected(entry, target)
    post = _post(entry, target)
    if not expected and not post:
        raise _CaseError("gives neither `expected` nor `post`")
    return TestCase(name=name, method=target.qualified, inputs=inputs, expected=expected, post=post)


def _expected(entry: Mapping[str, object], target: Decl) -> tuple[Value, ...]:
    if "expected" not in entry:
        if target.returns:
            raise _CaseError(f"`expected` is missing: `{target.name}` returns {_params(target.returns)}")
        return ()
    raw = entry["expected"]
    outs = target.returns
    if not outs:
        raise _CaseError(f"`{target.name}` has no out-parameter: give the arrays it changes in `post`")
    if len(outs) == 1:
        return (_value(raw, outs[0], "the expected value"),)
    if not isinstance(raw, list) or len(raw) != len(outs):
        raise _CaseError(
            f"`expected` must be a list of {len(outs)} values, one per out-parameter ({_params(outs)})"
        )
    pairs = enumerate(zip(raw, outs, strict=True))
    return tuple(_value(r, p, f"expected value {i + 1}") for i, (r, p) in pairs)


def _post(entry: Mapping[str, object], target: Decl) -> tuple[tuple[int, Value], ...]:
    raw = entry.get("post")
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise _CaseError('`post` must be a table such as `post = { a = "[1, 2]" }`')
    out: list[tuple[int, Value]] = []
    for key, text in raw.items():
        idx = next((i for i, p in enumerate(target.params) if p.name == key), -1)
        if idx < 0:
            raise _CaseError(
                f"`post` names `{key}`, which is no parameter of `{target.name}` ({_params(target.params)})"
            )
        param = target.params[idx]
        if not isinstance(param.type, ArrayT):
            raise _CaseError(f"`post` names `{key}` of type {param.type_text}: only array parameters change")
        out.append((idx, _value(text, param, f"`post.{key}`")))
    return tuple(sorted(out, key=lambda p: p[0]))


def _value(raw: object, param: Param, what: str) -> Value:
    text = _literal(raw, what)
    try:
        v = parse_at(text, param.type)
    except ValueParseError as e:
        raise _CaseError(f"{what} (`{param.name}`: {param.type_text}): cannot read `{_short(text)}`: {e}") from e
    return as_array(v) if isinstance(param.type, ArrayT) else v


def _literal(raw: object, what: str) -> str:
    """Dafny literal text for a TOML value."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        try:
            return str(raw)
        except ValueError:  # a hexadecimal TOML integer of more than 4,300 decimal digits
            raise _CaseError(f"{what}: the integer has too many digits (at most {MAX_LITERAL_DIGITS})") from None
    if isinstance(raw, _Real):
        return _real_text(raw.text, what)
    if isinstance(raw, list):
        return "[" + ", ".join(_literal(x, what) for x in raw) + "]"
    kind = {"dict": "table", "datetime": "date-time"}.get(type(raw).__name__, type(raw).__name__)
    raise _CaseError(f"{what}: a TOML {kind} is no Dafny literal; write it as a string")


def _real_text(text: str, what: str) -> str:
    try:
        d = Decimal(text.replace("_", ""))
    except InvalidOperation as e:
        raise _CaseError(f"{what}: cannot read the number `{text}`") from e
    if not d.is_finite():
        raise _CaseError(f"{what}: `{_short(text)}` is no real number Dafny can write")
    # written out in full (`1e999999999` would be a billion digits): count them first
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)  # finite
    written = max(len(digits) + exponent, 1) + max(-exponent, 0)
    if written > MAX_LITERAL_DIGITS:
        too_long = LITERAL_TOO_LONG.format(digits=written, limit=MAX_LITERAL_DIGITS)
        raise _CaseError(f"{what}: `{_short(text)}`: {too_long}")
    s = format(d, "f")
    return s if "." in s else s + ".0"


_MAX_SHOWN = 60


def _short(text: str) -> str:
    """Text for a message: one line, at most _MAX_SHOWN characters."""
    one = " ".join(text.split())
    return one if len(one) <= _MAX_SHOWN else one[: _MAX_SHOWN - 3] + "..."


def _params(params: Sequence[Param]) -> str:
    return ", ".join(f"{p.name}: {p.type_text}" for p in params) or "nothing"


def _header_lines(text: str) -> list[int]:
    header = re.compile(r"\s*\[\[\s*case\s*\]\]")
    return [i for i, line in enumerate(text.splitlines(), start=1) if header.match(line)]


def _key_line(text: str, key: str) -> int:
    for i, line in enumerate(text.splitlines(), start=1):
        if re.match(r"\s*" + re.escape(key) + r"\s*=", line):
            return i
    return 0


def _case_text(lines: Sequence[str], headers: Sequence[int], k: int) -> str:
    start = headers[k]
    if not start:
        return ""
    end = headers[k + 1] - 1 if k + 1 < len(headers) else len(lines)
    return "\n".join(lines[start - 1 : end]).strip()
