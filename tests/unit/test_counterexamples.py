"""bot.symbolic.counterexamples: output values read out of real Dafny 2.3 counterexample models
(tests/data/models/), and
out of Dafny 3/4 console counterexamples in their documented shape."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.dafny.decls import DafnyFile
from bot.dafny.parser import parse_file
from bot.dafny.types import DafnyType, parse_type
from bot.dafny.values import ArrayV, BoolV, BvV, CharV, IntV, RealV, SeqV, TupleV, Value, parse_value
from bot.symbolic.counterexamples import MAX_LENGTH, decode, decode_all, parse_model, readings
from bot.symbolic.modeltext import console_counterexamples, split_boogie_models, split_models
from bot.verifier import attribute_models, parse_boogie_xml
from support.paths import DATA

MODELS = DATA / "models"


@pytest.fixture(scope="module")
def saved() -> dict[str, str]:
    """The saved batch's models per method (tests/data/models/README.md says how they were made)."""
    report = (MODELS / "batch.xml").read_bytes()
    text = (MODELS / "batch.model.txt").read_text(encoding="utf-8")
    found = attribute_models(parse_boogie_xml(report), text)
    return {name.replace("__", "_"): models for name, models in found.items()}


def s(text: str) -> SeqV:
    return SeqV(tuple(CharV(c) for c in text))


def ints(*values: int) -> tuple[IntV, ...]:
    return tuple(IntV(v) for v in values)


# What each saved method's model gives (values measured once; each is a second output its spec accepts).
EXPECTED: list[tuple[str, list[tuple[str, str]], tuple[Value, ...] | None]] = [
    ("int", [("r", "int")], (IntV(1003),)),
    ("neg", [("r", "int")], (IntV(-1003),)),
    ("bool", [("b", "bool")], (BoolV(False),)),
    ("char", [("c", "char")], (CharV("b"),)),
    ("seq", [("result", "seq<int>")], (SeqV(ints(5)),)),
    ("seq2", [("result", "seq<int>")], (SeqV(ints(5, 3)),)),
    ("string", [("t", "string")], (s("bb"),)),
    ("string", [("t", "seq<char>")], (s("bb"),)),
    ("two", [("a", "int"), ("b", "int")], ints(0, 3)),
    ("both", [("a", "int"), ("b", "int")], ints(6, -3)),
    ("real", [("r", "real")], (RealV(Fraction(-3, 7)),)),
    ("tuple", [("r", "(int, bool)")], (TupleV((IntV(2), BoolV(True))),)),
    ("bv", [("r", "bv8")], (BvV(8, 103),)),
    ("bools", [("r", "seq<bool>")], (SeqV((BoolV(False), BoolV(True))),)),
    ("array", [("r", "array<int>")], (ArrayV(ints(7, 2, 11)),)),
    ("inplace", [("a", "array<int>")], (ArrayV(ints(2, 1, 2)),)),  # the final heap, after the havoc
    # An int element whose universal element the model types as a sequence: inconsistent, so nothing.
    ("nested", [("r", "seq<seq<int>>")], None),
]


@pytest.mark.parametrize(("method", "outputs", "expected"), EXPECTED, ids=[f"{e[0]}:{e[1]}" for e in EXPECTED])
def test_decode_saved_models(
    saved: dict[str, str], method: str, outputs: list[tuple[str, str]], expected: tuple[Value, ...] | None
) -> None:
    typed: list[tuple[str, DafnyType]] = [(name, parse_type(t)) for name, t in outputs]
    assert decode_all(saved[f"SpecScore_{method}"], typed) == expected
    if len(typed) == 1:
        assert decode(saved[f"SpecScore_{method}"], *typed[0]) == (None if expected is None else expected[0])


def test_saved_models_are_attributed_in_error_order(saved: dict[str, str]) -> None:
    # 17 models for 18 errors: the time-out's error has none; the proved method has no model.
    text = (MODELS / "batch.model.txt").read_text(encoding="utf-8")
    assert len(split_boogie_models(text)) == 17
    assert "SpecScore_proved" not in saved and "SpecScore_timeout" not in saved
    assert len(saved) == 16
    assert [len(split_models(saved[f"SpecScore_{m}"])) for m in ("both", "two", "int")] == [2, 1, 1]
    # each model is that method's: its input constant holds that method's input
    assert "x#0@@1 -> (- 3)" in saved["SpecScore_neg"] and "x#0@@1 -> (- 3)" not in saved["SpecScore_int"]


def test_attribution_refuses_to_guess_when_counts_differ() -> None:
    report = parse_boogie_xml((MODELS / "batch.xml").read_bytes())
    models = split_boogie_models((MODELS / "batch.model.txt").read_text(encoding="utf-8"))
    assert attribute_models(report, "".join(models[:-1])) == {}  # one model missing
    assert attribute_models(report, "") == {}
    # the first three methods (int, proved, bool) have two errors between them
    assert set(attribute_models(report[:3], "".join(models[:2]))) == {"SpecScore__int", "SpecScore__bool"}


def test_both_models_of_a_method_are_read(saved: dict[str, str]) -> None:
    typed: list[tuple[str, DafnyType]] = [("a", parse_type("int")), ("b", parse_type("int"))]
    found = readings(saved["SpecScore_both"], typed)
    assert found[0] == ints(6, -3) and len(found) == len(set(found)) >= 1


def test_missing_or_unknown_names_and_types_give_none(saved: dict[str, str]) -> None:
    model = saved["SpecScore_int"]
    assert decode(model, "nope", parse_type("int")) is None
    assert decode(model, "r", parse_type("bool")) is None  # 1003 is no bool
    assert decode(model, "r", parse_type("set<int>")) is None
    assert decode(model, "r", parse_type("char")) is None
    assert decode("", "r", parse_type("int")) is None
    assert decode(model[: len(model) // 2], "r", parse_type("int")) is None  # cut short
    assert decode_all(model, []) is None


# ---------------------------------------------------------------------------------------------------
# Synthetic models: the rules, one at a time


def model(*lines: str) -> str:
    return "*** MODEL\n" + "\n".join(lines) + "\n*** END_MODEL\n"


def test_final_state_is_the_highest_incarnation() -> None:
    text = model("r#0 -> 5", "r#0@0 -> 6", "r#0@2 -> 13", "r#0@1 -> 7", "r#1@0 -> (- 1)")
    assert decode(text, "r", parse_type("int")) == IntV(13)
    # two spellings (z3's @@ renaming) of the same constant must agree
    assert decode(model("r#0 -> 5", "r#0@@2 -> 5"), "r", parse_type("int")) == IntV(5)
    assert decode(model("r#0 -> 5", "r#0@@2 -> 6"), "r", parse_type("int")) is None
    # a bound variable (#1) is not the output; `rr` is not `r`
    assert decode(model("r#1 -> 5", "rr#0 -> 6"), "r", parse_type("int")) is None


def test_literals() -> None:
    assert decode(model("r#0 -> (- 42)"), "r", parse_type("int")) == IntV(-42)
    assert decode(model("r#0 -> (- 1)"), "r", parse_type("nat")) is None
    assert decode(model("r#0 -> (/ 3.0 4.0)"), "r", parse_type("real")) == RealV(Fraction(3, 4))
    assert decode(model("r#0 -> (- 2.5)"), "r", parse_type("real")) == RealV(Fraction(-5, 2))
    assert decode(model("r#0 -> 7bv8"), "r", parse_type("bv16")) is None  # another width
    assert decode(model("r#0 -> 300bv8"), "r", parse_type("bv8")) is None


SEQ = [
    "BoxType -> T@T!val!10",
    "intType -> T@T!val!0",
    "charType -> T@T!val!11",
    "result#0 -> T@U!val!54",
    "Seq#Length -> {",
    "  T@U!val!54 -> 2",
    "  else -> 0",
    "}",
    "Seq#Index -> {",
    "  T@U!val!54 0 -> T@U!val!66",
    "  else -> T@U!val!67",
    "}",
    "$Unbox -> {",
    "  T@T!val!0 T@U!val!66 -> 15",
    "  T@T!val!0 T@U!val!67 -> T@U!val!70",
    "  else -> T@U!val!71",
    "}",
    "U_2_int -> {",
    "  else -> 4",
    "}",
]


def test_sequence_elements_are_unboxed_through_else_values() -> None:
    assert decode(model(*SEQ), "result", parse_type("seq<int>")) == SeqV(ints(15, 4))


def test_a_typed_leaf_of_another_type_gives_none() -> None:
    typed = [*SEQ, "type -> {", "  T@U!val!70 -> T@T!val!17", "  else -> T@T!val!5", "}"]
    assert decode(model(*typed), "result", parse_type("seq<int>")) is None


def test_absurd_lengths_give_none() -> None:
    long = [line.replace("T@U!val!54 -> 2", f"T@U!val!54 -> {MAX_LENGTH + 1}") for line in SEQ]
    assert decode(model(*long), "result", parse_type("seq<int>")) is None
    negative = [line.replace("T@U!val!54 -> 2", "T@U!val!54 -> (- 1)") for line in SEQ]
    assert decode(model(*negative), "result", parse_type("seq<int>")) is None


def test_else_expressions_of_the_arguments() -> None:
    bools = [
        "BoxType -> T@T!val!10",
        "boolType -> T@T!val!2",
        "r#0 -> T@U!val!55",
        "Seq#Length -> {",
        "  else -> 2",
        "}",
        "Seq#Index -> {",
        "  T@U!val!55 0 -> T@U!val!63",
        "  else -> T@U!val!65",
        "}",
        "$Unbox -> {",
        "  T@T!val!2 T@U!val!63 -> T@U!val!67",
        "  T@T!val!2 T@U!val!65 -> T@U!val!59",
        "  else -> T@U!val!61",
        "}",
        "U_2_bool -> {",
        "  else -> (= (:var 0) T@U!val!59)",
        "}",
    ]
    assert decode(model(*bools), "r", parse_type("seq<bool>")) == SeqV((BoolV(False), BoolV(True)))
    odd = [line.replace("(= (:var 0) T@U!val!59)", "(bvadd (:var 0) T@U!val!59)") for line in bools]
    assert decode(model(*odd), "r", parse_type("seq<bool>")) is None


def test_sequences_built_explicitly_are_read_along_the_build() -> None:
    built = [
        "BoxType -> T@T!val!10",
        "charType -> T@T!val!11",
        "s#0 -> T@U!val!65",
        "Seq#Build -> {",
        "  T@U!val!58 T@U!val!66 -> T@U!val!62",
        "  T@U!val!62 T@U!val!64 -> T@U!val!65",
        "  else -> T@U!val!58",
        "}",
        "Seq#Length -> {",
        "  T@U!val!58 -> 0",
        "  else -> 3",  # the build says 2: the build wins over an else value
        "}",
        "Seq#Index -> {",
        "  else -> T@U!val!66",
        "}",
        "$Unbox -> {",
        "  T@T!val!11 T@U!val!66 -> T@U!val!61",
        "  T@T!val!11 T@U!val!64 -> T@U!val!63",
        "  else -> T@U!val!63",
        "}",
        "char#ToInt -> {",
        "  T@U!val!61 -> 97",
        "  T@U!val!63 -> 98",
        "  else -> 99",
        "}",
    ]
    assert decode(model(*built), "s", parse_type("string")) == s("ab")


def test_tuple_selectors_must_agree_with_the_constructor() -> None:
    tup = [
        "DatatypeTypeType -> T@T!val!13",
        "intType -> T@T!val!0",
        "r#0 -> T@U!val!70",
        "#_System._tuple#2._#Make2 -> {",
        "  T@U!val!68 T@U!val!69 -> T@U!val!70",
        "  else -> T@U!val!60",
        "}",
        "_System.Tuple2._0 -> {",
        "  else -> T@U!val!68",
        "}",
        "_System.Tuple2._1 -> {",
        "  T@U!val!70 -> T@U!val!69",
        "  else -> T@U!val!1",
        "}",
        "$Unbox -> {",
        "  T@T!val!0 T@U!val!68 -> 1",
        "  T@T!val!0 T@U!val!69 -> 2",
        "  else -> 0",
        "}",
    ]
    assert decode(model(*tup), "r", parse_type("(int, int)")) == TupleV(ints(1, 2))
    disagree = [line.replace("  T@U!val!70 -> T@U!val!69", "  T@U!val!70 -> T@U!val!68") for line in tup]
    assert decode(model(*disagree), "r", parse_type("(int, int)")) is None


def test_parse_model_rejects_malformed_text() -> None:
    assert parse_model("no model here") is None
    assert parse_model(model("r#0 -> 1", "f -> {", "  1 -> 2")) is None  # table not closed
    assert parse_model(model("garbage line")) is None
    parsed = parse_model(model("r#0 -> 1", "f -> {", "  (- 1) T@U!val!3 -> 2", "  else -> 0", "}"))
    assert parsed is not None and parsed.functions["f"].entries == {("(- 1)", "T@U!val!3"): "2"}
    # captured states, if Boogie ever writes them, are skipped
    states = model("r#0 -> 1", "*** STATE <initial>", "  r -> T@U!val!1", "*** END_STATE", "x#0 -> 2")
    assert decode(states, "x", parse_type("int")) == IntV(2)
    assert parse_model(model("r#0 -> 1", "*** STATE <initial>", "  r -> 1")) is None


# ---------------------------------------------------------------------------------------------------
# Dafny 3/4 console counterexamples


WARNING = (
    "WARNING: the following counterexample may be inconsistent or invalid."
    " See dafny.org/dafny/DafnyRef/DafnyRef#sec-counterexamples"
)
DAFNY4_OUTPUT = """\
batch.dfy(4,0): Error: a postcondition could not be proved on this return path
 Related counterexample:
 WARNING_LINE
 batch.dfy(2,0): initial state:
 assume 3 == x;
 batch.dfy(6,18):
 assume 3 == x && 1003 == r && "a'&&b" == t && [1, -2] == q && 'c' == c && 7 == r' && '&' == d;
 \n\
  |
4 | {
  | ^

batch.dfy(2,26): Related location: this is the postcondition that could not be proved

Dafny program verifier finished with 0 verified, 1 error
""".replace("WARNING_LINE", WARNING)

DAFNY3_OUTPUT = """\
batch.dfy(8,16): Error: This loop invariant might not be maintained by the loop.

Dafny program verifier finished with 1 verified, 1 error
Counterexample for first failing assertion: \n\
batch.dfy(2,2): initial state:
\tn : int = 1237
batch.dfy(6,14):
\tn : int = 1237
\ti : int = 0
\ts : seq<int> = [1, 2]
"""


def test_console_counterexamples_dafny4() -> None:
    blocks = console_counterexamples(DAFNY4_OUTPUT, "batch.dfy")
    assert [lines for lines, _ in blocks] == [[2, 6]]
    text = blocks[0][1]
    assert decode(text, "r", parse_type("int")) == IntV(1003)
    assert decode(text, "x", parse_type("int")) == IntV(3)
    assert decode(text, "t", parse_type("string")) == s("a'&&b")
    assert decode(text, "r'", parse_type("int")) == IntV(7)
    assert decode(text, "d", parse_type("char")) == CharV("&")
    assert decode(text, "q", parse_type("seq<int>")) == SeqV(ints(1, -2))
    assert decode(text, "c", parse_type("char")) == CharV("c")
    assert decode(text, "r", parse_type("bool")) is None
    assert decode(text, "missing", parse_type("int")) is None
    assert console_counterexamples(DAFNY4_OUTPUT, "other.dfy") == []


def test_console_counterexamples_dafny3() -> None:
    blocks = console_counterexamples(DAFNY3_OUTPUT, "batch.dfy")
    assert [lines for lines, _ in blocks] == [[2, 6]]
    assert decode(blocks[0][1], "i", parse_type("int")) == IntV(0)
    assert decode(blocks[0][1], "s", parse_type("seq<int>")) == SeqV(ints(1, 2))
    assert decode(blocks[0][1], "s", parse_type("array<int>")) is None  # arrays print as no literal


@pytest.fixture(scope="module")
def saved_datatypes() -> tuple[dict[str, str], DafnyFile]:
    """The saved datatype batch's models per method, and its declarations (README.md says how they were made)."""
    report = (MODELS / "datatypes.xml").read_bytes()
    text = (MODELS / "datatypes.model.txt").read_text(encoding="utf-8")
    found = attribute_models(parse_boogie_xml(report), text)
    spec = parse_file((MODELS / "datatypes.dfy").read_text(encoding="utf-8"))
    return {name.replace("__", "_"): models for name, models in found.items()}, spec


DATATYPE_EXPECTED: list[tuple[str, str, str | None]] = [
    ("option", "Option<int>", "Some(4)"),
    # the string is built on a prefix the model gives only as a table's `else`: not read (as for sequences)
    ("optstr", "Option<string>", None),
    ("color", "Color", "Green"),
    ("list", "List", "Cons(1, Cons(2, Nil))"),
    ("res", "Res<int, string>", None),  # the same
    ("seqopt", "seq<Option<int>>", "[Some(3), None]"),
    ("none", "Option<int>", "None"),
    ("pair", "Pair", "Pair(3, false)"),
    # anonymous fields: their selectors are named by a program-wide counter, and the constructor's table gives
    # this value only as its `else`: not read
    ("apair", "APair", None),
]


@pytest.mark.parametrize(("method", "type_text", "expected"), DATATYPE_EXPECTED, ids=[e[0] for e in DATATYPE_EXPECTED])
def test_decode_saved_datatype_models(
    saved_datatypes: tuple[dict[str, str], DafnyFile], method: str, type_text: str, expected: str | None
) -> None:
    models, spec = saved_datatypes
    t = parse_type(type_text, spec.datatypes)
    want = None if expected is None else parse_value(expected, t)
    assert decode(models[f"SpecScore_{method}"], "r", t) == want


def test_a_datatype_constructor_the_model_does_not_pin_gives_none(
    saved_datatypes: tuple[dict[str, str], DafnyFile],
) -> None:
    models, spec = saved_datatypes
    # the Option model read as a Color: no `##_module.Color.*` constant matches its constructor id
    assert decode(models["SpecScore_option"], "r", parse_type("Color", spec.datatypes)) is None
