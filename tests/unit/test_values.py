from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bot.dafny.types import (
    ArrayT,
    BoolT,
    BvT,
    CharT,
    IntT,
    NatT,
    RealT,
    SeqT,
    StringT,
    TupleT,
    Unsupported,
    parse_type,
)
from bot.dafny.values import (
    ArrayV,
    BoolV,
    BvV,
    CharV,
    IntV,
    RealV,
    SeqV,
    TupleV,
    Value,
    ValueParseError,
    parse_value,
    show,
    to_dafny,
    type_check,
)
from support.values import ROUND_TRIP_TYPES, random_value


def ints(*xs: int) -> tuple[Value, ...]:
    return tuple(IntV(x) for x in xs)


def chars(s: str) -> SeqV:
    return SeqV(tuple(CharV(c) for c in s))


def pv(text: str, type_text: str) -> Value:
    return parse_value(text, parse_type(type_text))


# -- scalars


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", 5),
        ("-5", -5),
        ("(-5)", -5),
        ("- 5", -5),
        ("-(5)", -5),
        ("((7))", 7),
        ("0x1F", 31),
        ("0X1f", 31),
        ("1_000", 1000),
        ("-0x10", -16),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("5 // a comment", 5),
    ],
)
def test_int(text: str, expected: int) -> None:
    assert parse_value(text, IntT()) == IntV(expected)


def test_nat() -> None:
    assert parse_value("0", NatT()) == IntV(0)
    assert parse_value("(12)", NatT()) == IntV(12)
    with pytest.raises(ValueParseError, match="expected nat literal, found negative number -3"):
        parse_value("-3", NatT())


def test_bool() -> None:
    assert parse_value("true", BoolT()) == BoolV(True)
    assert parse_value("(false)", BoolT()) == BoolV(False)
    with pytest.raises(ValueParseError, match="expected bool literal, found number '1'"):
        parse_value("1", BoolT())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'a'", "a"),
        ("'\\''", "'"),
        ("'\"'", '"'),
        ("'\\\"'", '"'),
        ("'\\n'", "\n"),
        ("'\\t'", "\t"),
        ("'\\r'", "\r"),
        ("'\\0'", "\0"),
        ("'\\\\'", "\\"),
        ("'\\u0041'", "A"),
        ("'\\u00e9'", "\u00e9"),
        ("'\\U{1F600}'", "\U0001f600"),
        ("(' ')", " "),
    ],
)
def test_char(text: str, expected: str) -> None:
    assert parse_value(text, CharT()) == CharV(expected)


def test_char_errors() -> None:
    with pytest.raises(ValueParseError, match="expected char literal, found string \"a\""):
        parse_value('"a"', CharT())
    with pytest.raises(ValueParseError, match="bad escape"):
        parse_value("'\\q'", CharT())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.14", Fraction("3.14")),
        ("-2.0", Fraction(-2)),
        ("5.0", Fraction(5)),
        ("5", Fraction(5)),  # test data writes ints for reals
        ("-5", Fraction(-5)),
        ("1.0/3.0", Fraction(1, 3)),
        ("(1.0 / 3.0)", Fraction(1, 3)),
        ("(-1.0 / 3.0)", Fraction(-1, 3)),
        ("-(1.0 / 3.0)", Fraction(-1, 3)),
        ("22 / 7", Fraction(22, 7)),
        ("1_000.5", Fraction("1000.5")),
        ("5 as real", Fraction(5)),
        ("314.15926535897927", Fraction("314.15926535897927")),
    ],
)
def test_real(text: str, expected: Fraction) -> None:
    assert parse_value(text, RealT()) == RealV(expected)


def test_real_errors() -> None:
    with pytest.raises(ValueParseError, match="division by zero"):
        parse_value("1.0 / 0.0", RealT())
    with pytest.raises(ValueParseError, match="expected end of real literal, found '\\*'"):
        parse_value("2.0 * 3.0", RealT())
    with pytest.raises(ValueParseError, match="expected real literal, found identifier 'pi'"):
        parse_value("pi", RealT())
    with pytest.raises(ValueParseError, match="expected int literal, found real number '3.0'"):
        parse_value("3.0", IntT())


def test_bv() -> None:
    assert parse_value("4294967295", BvT(32)) == BvV(32, 4294967295)
    assert parse_value("0xFF", BvT(8)) == BvV(8, 255)
    assert parse_value("0", BvT(1)) == BvV(1, 0)
    too_big = "expected bv32 literal, found out-of-range number '4294967296'"
    with pytest.raises(ValueParseError, match=too_big):
        parse_value("4294967296", BvT(32))
    with pytest.raises(ValueParseError, match="expected bv8 literal, found out-of-range number -1"):
        parse_value("-1", BvT(8))


# -- strings and sequences


@pytest.mark.parametrize("type_text", ["string", "seq<char>"])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"hello"', "hello"),
        ('""', ""),
        ('"a\\"b\\\\c\\n"', 'a"b\\c\n'),
        ('"it\'s"', "it's"),
        ('"\\u0041B"', "AB"),
        ('@"C:\\path"', "C:\\path"),
        ('@"say ""hi"""', 'say "hi"'),
        ("['i', 't', 'e', 'm', '1']", "item1"),
        ("[]", ""),
        ('("ab")', "ab"),
    ],
)
def test_string(type_text: str, text: str, expected: str) -> None:
    assert pv(text, type_text) == chars(expected)


def test_seq() -> None:
    assert pv("[]", "seq<int>") == SeqV(())
    assert pv("[1, -2, 3]", "seq<int>") == SeqV(ints(1, -2, 3))
    assert pv("[[1,2],[3]]", "seq<seq<int>>") == SeqV((SeqV(ints(1, 2)), SeqV(ints(3))))
    assert pv("[[], [[]]]", "seq<seq<seq<int>>>") == SeqV((SeqV(()), SeqV((SeqV(()),))))
    assert pv("[(1, 2), (3, 4)]", "seq<(int,int)>") == SeqV((TupleV(ints(1, 2)), TupleV(ints(3, 4))))
    assert pv('["ab", "", @"c"]', "seq<string>") == SeqV((chars("ab"), chars(""), chars("c")))
    assert pv("[true, false]", "seq<bool>") == SeqV((BoolV(True), BoolV(False)))
    assert pv("[1.5, 2, 1.0/4.0]", "seq<real>") == SeqV(
        (RealV(Fraction(3, 2)), RealV(Fraction(2)), RealV(Fraction(1, 4)))
    )
    assert pv("[0, 4294967295]", "seq<bv32>") == SeqV((BvV(32, 0), BvV(32, 4294967295)))


def test_seq_errors() -> None:
    with pytest.raises(ValueParseError, match="^expected seq<int> literal, found identifier 'x'$"):
        pv("x", "seq<int>")
    with pytest.raises(ValueParseError, match="expected ',' or ']' in seq<int> literal, found end of text"):
        pv("[1, 2", "seq<int>")
    with pytest.raises(ValueParseError, match="expected int literal, found ']'"):
        pv("[1, 2,]", "seq<int>")
    with pytest.raises(ValueParseError, match="expected end of seq<int> literal, found '\\+'"):
        pv("[1] + [2]", "seq<int>")
    with pytest.raises(ValueParseError, match="expected seq<int> literal, found string \"ab\""):
        pv('"ab"', "seq<int>")
    with pytest.raises(ValueParseError, match="expected nat literal, found negative number -1"):
        pv("[1, -1]", "seq<nat>")
    with pytest.raises(ValueParseError, match="expected int literal, found identifier 'f'"):
        pv("[f(1)]", "seq<int>")
    with pytest.raises(ValueParseError, match="expected seq<int> literal, found malformed text"):
        pv('["ab', "seq<int>")


# -- arrays


def test_array() -> None:
    a = ArrayV(ints(1, 2, 3))
    assert pv("new int[] [1,2,3]", "array<int>") == a
    assert pv("new int[3] [1, 2, 3]", "array<int>") == a
    assert pv("[1, 2, 3]", "array<int>") == a
    assert pv("(new int[] [1, 2, 3])", "array<int>") == a
    assert pv("new int[0]", "array<int>") == ArrayV(())
    assert pv("new int[] []", "array<int>") == ArrayV(())
    assert pv("[]", "array<int>") == ArrayV(())
    assert pv("new bool[] [true]", "array<bool>") == ArrayV((BoolV(True),))
    assert pv('"ab"', "array<char>") == ArrayV((CharV("a"), CharV("b")))
    assert pv("new char[] ['a', 'b']", "array<char>") == ArrayV((CharV("a"), CharV("b")))
    assert pv("new seq<int>[] [[1], []]", "array<seq<int>>") == ArrayV((SeqV(ints(1)), SeqV(())))
    assert pv("new seq<seq<int>>[] [[[1]]]", "array<seq<seq<int>>>") == ArrayV((SeqV((SeqV(ints(1)),)),))
    assert pv("new nat[] [1]", "array<nat>") == ArrayV(ints(1))
    assert pv("new string[] [\"a\"]", "array<seq<char>>") == ArrayV((chars("a"),))


def test_arrays_inside_seqs() -> None:
    expected = SeqV((ArrayV(ints(1)), ArrayV(ints(2, 3))))
    assert pv("[new int[] [1], new int[] [2,3]]", "seq<array<int>>") == expected
    assert pv("[[1], [2, 3]]", "seq<array<int>>") == expected


def test_array_errors() -> None:
    with pytest.raises(ValueParseError, match="expected 2 elements in array<int> literal, found 3"):
        pv("new int[2] [1, 2, 3]", "array<int>")
    with pytest.raises(ValueParseError, match="expected array<int> literal, found 'new bool\\[...\\]'"):
        pv("new bool[] [true]", "array<int>")
    with pytest.raises(ValueParseError, match="expected the initial elements of array<int> literal"):
        pv("new int[3]", "array<int>")
    with pytest.raises(ValueParseError, match="expected array<int> literal, found identifier 'a1'"):
        pv("a1", "array<int>")


# -- tuples


def test_tuple() -> None:
    t = TupleT((IntT(), StringT()))
    assert parse_value('(1, "a")', t) == TupleV((IntV(1), chars("a")))
    assert parse_value('((1, "a"))', t) == TupleV((IntV(1), chars("a")))
    assert parse_value('((-1), ("a"))', t) == TupleV((IntV(-1), chars("a")))
    nested = parse_type("(bool, (real, char))")
    assert parse_value("(true, (0.5, 'x'))", nested) == TupleV(
        (BoolV(True), TupleV((RealV(Fraction(1, 2)), CharV("x"))))
    )
    with pytest.raises(ValueParseError, match="expected ',' in \\(int, string\\) literal, found '\\)'"):
        parse_value("(1)", t)
    with pytest.raises(ValueParseError, match="expected \\(int, string\\) literal, found number '1'"):
        parse_value("1", t)


def test_unsupported_type() -> None:
    with pytest.raises(ValueParseError, match="cannot build values of type set<int>"):
        parse_value("{1}", Unsupported("set<int>"))


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(ValueParseError, ValueError)


# -- printing


@pytest.mark.parametrize(
    ("v", "type_text", "text"),
    [
        (IntV(-5), "int", "-5"),
        (IntV(0), "nat", "0"),
        (BoolV(True), "bool", "true"),
        (CharV("a"), "char", "'a'"),
        (CharV("'"), "char", "'\\''"),
        (CharV('"'), "char", "'\"'"),
        (CharV("\n"), "char", "'\\n'"),
        (CharV("\\"), "char", "'\\\\'"),
        (CharV("\0"), "char", "'\\0'"),
        (CharV("\x07"), "char", "'\\u0007'"),
        (CharV("\u00e9"), "char", "'\\u00E9'"),
        (CharV("\U0001f600"), "char", "'\\U{1F600}'"),
        (RealV(Fraction(7, 2)), "real", "3.5"),
        (RealV(Fraction(5)), "real", "5.0"),
        (RealV(Fraction(-1, 8)), "real", "-0.125"),
        (RealV(Fraction("314.15926535897927")), "real", "314.15926535897927"),
        (RealV(Fraction(1, 3)), "real", "(1.0 / 3.0)"),
        (RealV(Fraction(-4, 3)), "real", "(-4.0 / 3.0)"),
        (BvV(32, 4294967295), "bv32", "4294967295"),
        (chars('a"b\\'), "string", '"a\\"b\\\\"'),
        (chars("it's"), "seq<char>", '"it\'s"'),
        (SeqV(()), "seq<int>", "[]"),
        (SeqV(()), "string", '""'),
        (SeqV(ints(1, -2)), "seq<int>", "[1, -2]"),
        (ArrayV(ints(1, 2)), "array<int>", "[1, 2]"),
        (ArrayV((CharV("a"),)), "array<char>", "['a']"),
        (SeqV((SeqV(ints(1)), SeqV(()))), "seq<seq<int>>", "[[1], []]"),
        (SeqV((chars("ab"), chars(""))), "seq<string>", '["ab", ""]'),
        (SeqV((TupleV(ints(-1, 2)),)), "seq<(int,int)>", "[(-1, 2)]"),
        (TupleV((IntV(1), chars("a"))), "(int, string)", '(1, "a")'),
        (SeqV((ArrayV(ints(1)),)), "seq<array<int>>", "[[1]]"),
    ],
)
def test_to_dafny(v: Value, type_text: str, text: str) -> None:
    assert to_dafny(v, parse_type(type_text)) == text


def test_to_dafny_accepts_a_seq_for_an_array() -> None:
    assert to_dafny(SeqV(ints(1)), ArrayT(IntT())) == "[1]"


def test_to_dafny_type_mismatch() -> None:
    with pytest.raises(ValueError, match="not a value of type int"):
        to_dafny(BoolV(True), IntT())
    with pytest.raises(ValueError, match="not a value of type seq<int>"):
        to_dafny(IntV(1), SeqT(IntT()))


def test_show() -> None:
    assert show(ArrayV(ints(1, 2)), ArrayT(IntT())) == "[1, 2]"
    assert show(chars("h\u00e9\n"), StringT()) == '"h\u00e9\\n"'
    assert show(RealV(Fraction(1, 3)), RealT()) == "(1.0 / 3.0)"
    assert show(CharV("\x07"), CharT()) == "'\\u0007'"


def test_type_check() -> None:
    assert type_check(IntV(-1), IntT())
    assert not type_check(IntV(-1), NatT())
    assert type_check(chars("ab"), StringT())
    assert type_check(chars("ab"), SeqT(CharT()))
    assert not type_check(SeqV(ints(1)), StringT())
    assert type_check(ArrayV(ints(1)), ArrayT(IntT()))
    assert not type_check(BvV(8, 256), BvT(8))
    assert not type_check(BvV(16, 1), BvT(8))
    assert not type_check(TupleV(ints(1)), TupleT((IntT(), IntT())))


# -- round trips


@pytest.mark.parametrize("type_text", ROUND_TRIP_TYPES)
def test_round_trip(type_text: str) -> None:
    t = parse_type(type_text)
    assert not isinstance(t, Unsupported)
    rng = random.Random(f"round-trip {type_text}")
    for _ in range(200):
        v = random_value(t, rng)
        assert type_check(v, t)
        text = to_dafny(v, t)
        assert parse_value(text, t) == v, text
        # show() differs only in how it writes printable non-ASCII characters
        assert parse_value(show(v, t), t) == v


def test_round_trip_through_extra_parentheses() -> None:
    rng = random.Random(7)
    for type_text in ["int", "real", "seq<int>", "(int, string)", "array<int>", "string"]:
        t = parse_type(type_text)
        for _ in range(50):
            v = random_value(t, rng)
            assert parse_value(f"(({to_dafny(v, t)}))", t) == v
