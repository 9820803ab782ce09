"""Fuzzing every reader of untrusted text: each gives a result or its own documented error, never another
exception.

Inputs are random text and mutations of real inputs (tests/data, examples and, when present, the MBPP-DFY
dataset): truncated, brackets unbalanced, strings and comments left open, huge and deeply nested literals,
invalid UTF-8 and NUL bytes spliced in. Runs are seeded (`derandomize=True`), so every run tries the same
inputs; `DAFNY_SPEC_SCORE_FUZZ=K` multiplies the number of inputs by K for a longer hunt.

| component | documented error |
|---|---|
| lexer `tokenize` | `LexError` (line, column) |
| structural parser `parse_file` | `DafnyParseError` (`file:line:col`) |
| value parser `parse_value` | `ValueParseError` |
| test readers (Dafny test methods, MBPP JSON, TOML) | none: problems naming the file and line |
| dialect rewrite `to_dialect` / `detect_syntax` | `LexError`, `UnreadableConstruct` |
| expression parser `parse_expr` | `ExprError` |
| config reader `Config.from_environ` | `ConfigError` listing every problem |
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.config import INPUT_NAMES, Config, ConfigError
from bot.dafny.decls import DafnyFile
from bot.dafny.dialect import Dialect, UnreadableConstruct, detect_syntax, to_dialect
from bot.dafny.expr import ExprError, parse_expr
from bot.dafny.lexer import LexError, tokenize
from bot.dafny.parser import DafnyParseError, parse_file
from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    DafnyType,
    IntT,
    NatT,
    RealT,
    SeqT,
    StringT,
    TupleT,
    Unsupported,
)
from bot.dafny.values import ValueParseError, parse_value, show, to_dafny, type_check
from bot.testcases.cases import ReadResult
from bot.testcases.dfy_methods import read_dfy_tests
from bot.testcases.discover import SourceKind, TestSource, cases_for_spec, read_source
from bot.testcases.splitting import parse_statements
from support.paths import DATA, ROOT

DATASET = Path(os.environ.get("DAFNY_SPEC_SCORE_DATASET") or ROOT.parent / "shared" / "mbpp-dfy")
SCALE = max(1, int(os.environ.get("DAFNY_SPEC_SCORE_FUZZ", "1")))


def fuzz(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(
        derandomize=True,
        database=None,
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )


# ---- real inputs


def _files(*patterns: str) -> list[Path]:
    roots = [DATA, ROOT / "examples"] + ([DATASET] if DATASET.is_dir() else [])
    return sorted({p for root in roots for pattern in patterns for p in root.rglob(pattern) if p.is_file()})


DFY_FILES = _files("*.dfy")
TOML_FILES = _files("*.toml")
JSON_FILES = [p for p in _files("*.json") if "tagged" not in p.name]
DFY_BYTES = [p.read_bytes() for p in DFY_FILES]
TOML_BYTES = [p.read_bytes() for p in TOML_FILES]
JSON_BYTES = [p.read_bytes() for p in JSON_FILES]


def _clauses() -> list[str]:
    out: list[str] = []
    for data in DFY_BYTES:
        try:
            file = parse_file(data.decode("utf-8"))
        except (DafnyParseError, UnicodeDecodeError):
            continue
        out += [c.text for d in file.decls for c in d.clauses]
    return sorted(set(out))


CLAUSES = _clauses()


@functools.cache
def _spec(path: Path) -> DafnyFile:
    """The spec at path, parsed once: the readers under test take it as it is (a frozen DafnyFile), and the tests
    draw it again for most inputs (the parser's own fuzzing is test_structural_parser)."""
    return parse_file(path.read_text(encoding="utf-8"), str(path))


FORMS = _spec(DATA / "tests_io" / "forms.dfy")
INPLACE = _spec(DATA / "tests_io" / "inplace.dfy")
# each case file with the spec it tests: `X.tests.toml` -> `X.dfy`, else forms.dfy (the bad_*.toml files)
TOML_PAIRS = [
    (raw, _spec(p.with_name(p.name.removesuffix(".tests.toml") + ".dfy"))
     if p.with_name(p.name.removesuffix(".tests.toml") + ".dfy").is_file() else FORMS)
    for p, raw in zip(TOML_FILES, TOML_BYTES, strict=True)
]
# (spec, test file) pairs whose cases really test the spec, so mutations reach deep into the readers
DFY_PAIRS = [
    (p, p.parent.parent / "test" / p.name)
    for p in DFY_FILES
    if p.parent.name == "src" and (p.parent.parent / "test" / p.name).is_file()
]
JSON_TASKS: list[tuple[bytes, str, DafnyFile]] = []
for _path, _data in zip(JSON_FILES, JSON_BYTES, strict=True):
    _doc = json.loads(_data)
    for _src in sorted(_path.parent.rglob("src/task_id_*.dfy")):
        _task = _src.stem.removeprefix("task_id_")
        if isinstance(_doc, dict) and _task in _doc:
            JSON_TASKS.append((_data, _task, _spec(_src)))


def test_the_real_inputs_are_there() -> None:
    assert DFY_FILES and TOML_FILES and JSON_FILES and DFY_PAIRS and JSON_TASKS and CLAUSES


# ---- mutations


PIECES = [
    b"(", b")", b"[", b"]", b"{", b"}", b"{:", b"<", b">", b">>", b'"', b"'", b'@"', b"/*", b"*/", b"//", b"\\",
    b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\r", b"\n", b"\t", b"'\\U{", b"}'", b"'\\u12",
    b"0x",
    b"method ", b"returns ", b"ensures ", b"requires ", b"modifies ", b"var ", b":= ", b"assert ", b"expect ",
    b"==", b"!=", b"&&", b"==>", b"module M {", b"class C {", b"datatype D = A | B", b"function ", b"predicate ",
    b"ghost ", b"lemma ", b"new int[] ", b"new int[3]", b";", b",", b"..", b"|", b"::", b"forall ", b"exists ",
    b"if ", b"then ", b"else ", b"while ", b"for ", b"by method", b"old(", b"@Attr(", b"//expected ", b"//assert ",
    b"[[case]]\n", b"args = ", b"expected = ", b"post = ", b'method = "', b'"test_1": ', b"\xc2\xb2", b"\xd9\xa1",
    b"1.", b".5", b"-", b"1e999999999", b"nan", b"inf", b"true", b"'a'", b'"ab"', b"(1, 2)", b"bv8", b"bv99999999999",
    b"seq<", b"array<", b"int", b"real", b"string", b"char", b"nat", b"bool", b"as real", b"/ 0.0", b"&", b"#",
]


def _huge(kind: str, n: int) -> bytes:
    return {
        "digits": b"9" * n,
        "hex": b"0x" + b"f" * n,
        "real": b"1." + b"5" * n,
        "nested": b"[" * n + b"1" + b"]" * n,
        "parens": b"(" * n + b"1" + b")" * n,
        "minus": b"-" * n + b"1",
        "open": b"[" * n,
        "braces": b"{" * n + b"}" * n,
        "modules": b"module A {\n" * n + b"}" * n,
        "tables": b"{a = " * n + b"1" + b"}" * n,
        "comments": b"/*" * n + b"*/" * n,
        "seq type": b"seq<" * n + b"int" + b">" * n,
    }[kind]


HUGE_KINDS = ["digits", "hex", "real", "nested", "parens", "minus", "open", "braces", "modules", "tables", "comments",
              "seq type"]


def mutate(data: st.DataObject, raw: bytes, most: int = 4) -> bytes:
    """raw with 0 to `most` mutations drawn from `data`."""
    for _ in range(data.draw(st.integers(0, most), label="mutations")):
        at = data.draw(st.integers(0, len(raw)), label="at")
        kind = data.draw(
            st.sampled_from(["truncate", "insert", "huge", "delete", "duplicate", "byte", "swap"]), label="kind"
        )
        if kind == "truncate":
            raw = raw[:at]
        elif kind == "insert":
            raw = raw[:at] + data.draw(st.sampled_from(PIECES)) + raw[at:]
        elif kind == "huge":
            n = data.draw(st.sampled_from([60, 101, 150, 500, 1001, 1200, 4301, 5000]), label="size")
            raw = raw[:at] + _huge(data.draw(st.sampled_from(HUGE_KINDS)), n) + raw[at:]
        elif kind == "delete":
            raw = raw[:at] + raw[at + data.draw(st.integers(1, 200)) :]
        elif kind == "duplicate":
            raw = raw[:at] + raw[at : at + data.draw(st.integers(1, 200))] * 2 + raw[at + 200 :]
        elif kind == "byte":
            raw = raw[:at] + bytes([data.draw(st.integers(0, 255))]) + raw[at + 1 :]
        else:  # swap two ranges: brackets and quotes end up out of order
            other = data.draw(st.integers(0, len(raw)))
            lo, hi = sorted((at, other))
            raw = raw[hi:] + raw[lo:hi] + raw[:lo]
    return raw


def decode(data: st.DataObject, raw: bytes) -> str:
    """Text as a reader of str sees it: invalid UTF-8 replaced, or kept as lone surrogates."""
    return raw.decode("utf-8", data.draw(st.sampled_from(["replace", "surrogateescape"]), label="decode"))


DAFNY_ALPHABET = st.sampled_from(list("()[]{}<>:;,.=!&|+-*/%'\"@\\ \n\t_0123456789abcxyzAEUnu") + ["\x00", "é", "²"])
RANDOM_TEXT = st.one_of(st.text(DAFNY_ALPHABET, max_size=300), st.text(max_size=100))


def text_input(data: st.DataObject, sources: list[bytes]) -> str:
    """Random text, or a mutated real input."""
    if data.draw(st.integers(0, 4), label="random?") == 0:
        return data.draw(RANDOM_TEXT)
    return decode(data, mutate(data, data.draw(st.sampled_from(sources), label="source")))


# ---- lexer, parser, dialect


@fuzz(300)
@given(st.data())
def test_lexer(data: st.DataObject) -> None:
    text = text_input(data, DFY_BYTES)
    try:
        toks = tokenize(text, keep_comments=data.draw(st.booleans()))
    except LexError as e:
        event("LexError")
        assert e.line >= 1 and e.col >= 1
        return
    event("tokens")
    for t in toks:
        assert text[t.start : t.end] == t.text
        # positions are what messages name: the line and column of the token's first character
        assert (t.line, t.col) == (text.count("\n", 0, t.start) + 1, t.start - text.rfind("\n", 0, t.start)), t


@fuzz(300)
@given(st.data())
def test_structural_parser(data: st.DataObject) -> None:
    text = text_input(data, DFY_BYTES)
    try:
        file = parse_file(text, "fuzz.dfy")
    except DafnyParseError as e:
        event("DafnyParseError")
        assert str(e).startswith("fuzz.dfy:") and e.line >= 1
        return
    event("declarations")
    for d in file.decls:
        assert 0 <= d.start <= d.end <= len(text) and d.line >= 1


@fuzz(200)
@given(st.data())
def test_dialect_rewrite(data: st.DataObject) -> None:
    text = text_input(data, DFY_BYTES)
    target = data.draw(st.sampled_from(list(Dialect)))
    try:
        detect_syntax(text)
        rewrite = to_dialect(text, target)
    except LexError:
        event("LexError")
        return
    except UnreadableConstruct:  # documented: an `expect` in ghost code is not read
        event("UnreadableConstruct")
        return
    event("rewritten" if rewrite.changes else "unchanged")
    assert rewrite.text.count("\n") == text.count("\n")  # documented: line numbers never move


@fuzz(300)
@given(st.data())
def test_expression_parser(data: st.DataObject) -> None:
    if data.draw(st.booleans(), label="clause?"):
        clause = data.draw(st.sampled_from(CLAUSES)).encode("utf-8")
        text = decode(data, mutate(data, clause, most=3))
    else:
        text = text_input(data, DFY_BYTES)
    try:
        parse_expr(text)
    except ExprError:
        event("ExprError")
        return
    event("expression")


# ---- values


SCALARS: list[DafnyType] = [IntT(), NatT(), BoolT(), CharT(), StringT(), RealT(), BvT(8), BvT(64), BvT(99999999999)]
TYPES: list[DafnyType] = [
    *SCALARS,
    SeqT(IntT()),
    SeqT(SeqT(IntT())),
    SeqT(CharT()),
    SeqT(StringT()),
    ArrayT(IntT()),
    ArrayT(SeqT(CharT())),
    ArrayT(BoolT()),
    SeqT(ArrayT(IntT())),
    TupleT((IntT(), BoolT())),
    TupleT((SeqT(IntT()), RealT(), TupleT((CharT(), NatT())))),
    SeqT(TupleT((IntT(), StringT()))),
    Unsupported("set<int>"),
]


def literal(t: DafnyType) -> st.SearchStrategy[str]:
    """Dafny literal text of type t (mostly well-formed: mutations break it)."""
    if isinstance(t, IntT | NatT | BvT):
        return st.one_of(st.integers(-(10**30), 10**30).map(str), st.integers(0, 2**64).map(hex))
    if isinstance(t, BoolT):
        return st.sampled_from(["true", "false"])
    if isinstance(t, CharT):
        return st.sampled_from(["'a'", "'\\n'", "'\\''", "'\\u00e9'", "'\\U{1F600}'", "'é'", "'\\0'"])
    if isinstance(t, StringT):
        return st.one_of(st.text(max_size=20).map(json.dumps), st.sampled_from(['@"a""b"', '"\\U{1F600}"']))
    if isinstance(t, RealT):
        return st.one_of(
            st.decimals(allow_nan=False, allow_infinity=False, places=3).map(lambda d: f"{d:f}" if "." in f"{d:f}"
                                                                             else f"{d:f}.0"),
            st.sampled_from(["(1.0 / 3.0)", "-2.5", "5 as real", "(-(1.5))"]),
        )
    if isinstance(t, SeqT | ArrayT):
        elems = st.lists(literal(t.elem), max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
        if isinstance(t, ArrayT):
            return st.one_of(elems, elems.map(lambda s: f"new {t.elem}[] {s}"))
        return elems
    if isinstance(t, TupleT):
        return st.tuples(*(literal(e) for e in t.elems)).map(lambda xs: "(" + ", ".join(xs) + ")")
    return st.just("{1, 2}")


@fuzz(600)
@given(st.data())
def test_value_parser_with_every_type(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(TYPES), label="type")
    if data.draw(st.integers(0, 3), label="random?") == 0:
        text = data.draw(RANDOM_TEXT)
    else:
        text = decode(data, mutate(data, data.draw(literal(t)).encode("utf-8"), most=3))
    try:
        v = parse_value(text, t)
    except ValueParseError:
        event("ValueParseError")
        return
    event("value")
    # whatever is read can be printed and read back (reports and harnesses print every value)
    assert type_check(v, t)
    shown = show(v, t)
    assert isinstance(shown, str)
    assert parse_value(to_dafny(v, t), t) == v


# ---- test readers


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return False
    return True


def _check(read: ReadResult, path: str, text: str = "") -> None:
    """Problems and cases name the file; when the input is Unicode text, so is everything reports print."""
    event("cases" if read.cases else "problems only" if read.problems else "nothing")
    printable = _encodable(text)
    for p in read.problems:
        assert p.source == path and p.line >= 0 and p.reason, p
        assert _encodable(str(p)) or not printable, p
    for c in read.cases:
        assert c.source == path and c.line >= 0, c
        assert _encodable(c.name + c.text + c.note + c.method) or not printable, c


@fuzz(250)
@given(st.data())
def test_dafny_test_method_reader(data: st.DataObject) -> None:
    spec_path, test_path = data.draw(st.sampled_from(DFY_PAIRS), label="pair")
    spec = _spec(spec_path)
    if data.draw(st.booleans(), label="in the spec?"):
        text = text_input(data, DFY_BYTES)
        try:
            file = parse_file(text, "fuzz.dfy")
        except DafnyParseError:
            return
        _check(read_dfy_tests(file), "fuzz.dfy", text)
    else:
        text = decode(data, mutate(data, test_path.read_bytes()))
        _check(read_source(TestSource(SourceKind.DFY, "test.dfy"), text, spec), "test.dfy", text)
    # the statement splitter alone, on any text
    with suppress(LexError):
        parse_statements(text)


def _mutated_json(data: st.DataObject, raw: bytes, task: str) -> str:
    if data.draw(st.booleans(), label="as text?"):
        return decode(data, mutate(data, raw))
    # keep the JSON valid and mutate the Dafny inside it: the signature and the case strings
    doc = json.loads(raw)
    entry = doc[task]
    entry["method_signature"] = decode(data, mutate(data, str(entry.get("method_signature", "")).encode(), most=2))
    cases = entry.get("test_cases", {})
    for name in sorted(cases):
        if data.draw(st.booleans()):
            cases[name] = decode(data, mutate(data, str(cases[name]).encode(), most=3))
    if data.draw(st.integers(0, 5)) == 0:
        cases["test_x"] = data.draw(st.one_of(st.integers(), st.none(), st.lists(st.integers()), st.floats()))
    return json.dumps(doc)


@fuzz(250)
@given(st.data())
def test_mbpp_json_reader(data: st.DataObject) -> None:
    raw, task, spec = data.draw(st.sampled_from(JSON_TASKS), label="task")
    text = _mutated_json(data, raw, task)
    # json.dumps writes lone surrogates as `\\udc80` escapes: the text is ASCII, its strings need not be Unicode
    _check(read_source(TestSource(SourceKind.MBPP_JSON, "tests.json", task), text, spec), "tests.json", text)


TOML_VALUE = st.recursive(
    st.one_of(
        st.integers(-(10**40), 10**40),
        st.booleans(),
        st.floats(),
        st.text(max_size=10),
        st.sampled_from(["[1, 2]", "new int[] [3]", '"ab"', "'c'", "2.5", "x"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=8,
)


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == float("inf") else "-inf" if v == float("-inf") else repr(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return str(v)


@st.composite
def toml_cases(draw: st.DrawFn) -> str:
    lines = [f'method = "{draw(st.sampled_from(["Cube", "Shared", "Split", "Lasts", "Volume", "Inc", "Nope"]))}"']
    for _ in range(draw(st.integers(0, 3))):
        lines.append("[[case]]")
        keys = st.lists(st.sampled_from(["name", "method", "args", "expected", "post", "other"]), unique=True)
        for key in draw(keys):
            lines.append(f"{key} = {_toml_value(draw(TOML_VALUE))}")
    return "\n".join(lines) + "\n"


@fuzz(250)
@given(st.data())
def test_toml_case_reader(data: st.DataObject) -> None:
    if data.draw(st.booleans(), label="generated?"):
        spec = data.draw(st.sampled_from([FORMS, INPLACE]), label="spec")
        text = decode(data, mutate(data, data.draw(toml_cases()).encode("utf-8"), most=2))
    else:
        raw, spec = data.draw(st.sampled_from(TOML_PAIRS), label="file")
        text = decode(data, mutate(data, raw))
    _check(read_source(TestSource(SourceKind.TOML, "cases.tests.toml"), text, spec), "cases.tests.toml", text)


@contextmanager
def _scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fuzz-") as d:
        yield Path(d)


@fuzz(120)
@given(st.data())
def test_test_files_on_disk(data: st.DataObject) -> None:
    """Every reader through the file system: undecodable bytes, and each kind chosen by the extension."""
    kind = data.draw(st.sampled_from(["dfy", "toml", "json"]), label="kind")
    with _scratch() as d:
        if kind == "dfy":
            spec_path, test_path = data.draw(st.sampled_from(DFY_PAIRS))
            spec, raw = _spec(spec_path), test_path.read_bytes()
            name = "t.dfy"
        elif kind == "toml":
            spec, raw, name = FORMS, data.draw(st.sampled_from(TOML_BYTES)), "t.tests.toml"
        else:
            raw, task, spec = data.draw(st.sampled_from(JSON_TASKS))
            spec = DafnyFile(f"task_id_{task}.dfy", spec.source, spec.decls)
            name = "t.json"
        path = d / name
        path.write_bytes(mutate(data, raw))
        _check(cases_for_spec(spec, str(path)), str(path))


# ---- config


CONFIG_VALUE = st.one_of(
    TOML_VALUE,
    st.sampled_from(["0.5", "1.0", "-1", "1e999", "**/*.dfy", "on-change", "always", "a--b", "0x10", "20", ""]),
)


@st.composite
def config_toml(draw: st.DrawFn) -> str:
    keys = st.one_of(st.sampled_from(INPUT_NAMES), st.sampled_from(["min_correctness", "colour", "Specs"]))
    pairs = draw(st.dictionaries(keys, CONFIG_VALUE, max_size=6))
    return "".join(f'"{k}" = {_toml_value(v)}\n' for k, v in pairs.items())


@fuzz(200)
@given(st.data())
def test_config_reader(data: st.DataObject) -> None:
    text = data.draw(config_toml()).encode("utf-8")
    raw = mutate(data, text, most=2) if data.draw(st.booleans(), label="mutate?") else text
    env_value = st.one_of(st.sampled_from(["", "0", "1", "-5", "nan", "true", "x", "9" * 5000]), st.text(max_size=20))
    with _scratch() as d:
        (d / ".dafny-spec-score.toml").write_bytes(raw)
        env = {"GITHUB_WORKSPACE": str(d), "INPUT_MODE": "audit", "INPUT_AUDIT_ROOT": "."}
        for name in data.draw(st.lists(st.sampled_from(INPUT_NAMES), max_size=3, unique=True)):
            if name not in ("mode", "audit-root", "working-directory", "config"):
                env["INPUT_" + name.replace("-", "_").upper()] = data.draw(env_value).replace("\0", "")
        try:
            Config.from_environ(env)
        except ConfigError as e:
            event("ConfigError")
            assert e.problems
            return
        event("config")


# ---- a large input


def test_a_large_file_is_read_in_full() -> None:
    """A megabyte of test methods: the lexer, the parser and the test reader finish and count everything."""
    methods, calls = 2500, 6
    parts = ["method Add(a: int, b: seq<int>) returns (r: int)\n  ensures r == a + |b|\n\n"]
    for m in range(methods):
        body = []
        for c in range(calls):
            body.append(f"  var x{c} := Add({m}, [{c}, {m}, 1_000]);  // call {c}\n  assert x{c} == {m + 3};\n")
        parts.append(f"/* test {m} */\nmethod Test{m}()\n{{\n{''.join(body)}}}\n\n")
    source = "".join(parts)
    assert len(source) > 1_000_000  # bytes
    tokens = tokenize(source)
    # the spec: 28 tokens; per method: `method TestM ( ) { }`, 6 tokens, and per call 21:
    # `var xC := Add ( M , [ C , M , 1_000 ] ) ;` and `assert xC == N ;` (comments are no tokens)
    assert len(tokens) == 28 + methods * (6 + calls * 21)
    file = parse_file(source, "large.dfy")
    assert len(file.decls) == methods + 1
    read = read_dfy_tests(file)
    assert not read.problems
    assert len(read.cases) == methods * calls
    assert read.cases[-1].expected[0].v == methods - 1 + 3  # type: ignore[union-attr]
