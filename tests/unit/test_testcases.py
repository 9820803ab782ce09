"""Reading test cases: statements, Dafny test methods, MBPP JSON, TOML, discovery, and the data set."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from bot.dafny.decls import DafnyFile, Decl
from bot.dafny.lexer import LexError
from bot.dafny.parser import parse_file
from bot.dafny.types import IntT, SeqT
from bot.dafny.values import ArrayV, IntV, RealV, SeqV, ValueParseError, show
from bot.testcases import dfy_methods
from bot.testcases.bindings import Binding, EvalError, evaluate, parse_at, substitute
from bot.testcases.cases import CaseProblem, ReadResult, TestCase, Tolerance
from bot.testcases.dfy_methods import case_text, read_dfy_tests
from bot.testcases.discover import (
    SourceKind,
    TestSource,
    candidate_sources,
    cases_for_spec,
    explicit_source,
    find_test_sources,
    merge,
    read_source,
)
from bot.testcases.expectations import equalities
from bot.testcases.mbpp_json import argument_order, parse_signature, read_mbpp_json, spec_method_for, task_ids
from bot.testcases.splitting import StmtKind, parse_statements
from bot.testcases.toml_cases import read_toml_cases
from support.paths import DATA

FORMS = DATA / "tests_io"


def load(name: str) -> DafnyFile:
    path = FORMS / name
    return parse_file(path.read_text(encoding="utf-8"), str(path))


def method(file: DafnyFile, name: str) -> Decl:
    d = file.find(name)
    assert d is not None
    return d


def shown(file: DafnyFile, case: TestCase) -> tuple[list[str], list[str]]:
    """Inputs and expected values as Dafny text, typed by the case's method."""
    d = method(file, case.method)
    return ([show(v, p.type) for v, p in zip(case.inputs, d.params, strict=True)],
            [show(v, p.type) for v, p in zip(case.expected, d.returns, strict=True)])


def by_key(read: ReadResult) -> dict[tuple[str, str], TestCase]:
    return {(c.method, c.name): c for c in read.cases}


def reasons(read: ReadResult) -> dict[str, str]:
    return {p.name: p.reason for p in read.problems}


# ---------------------------------------------------------------------------------------------------
# statements


def test_split_statements_kinds_and_comments() -> None:
    stmts = parse_statements(
        'var a := new int[] [1, 2];\nvar r := M(a, 3);\nprint(r); //expected [4, 5];\n'
        'expect r == [4, 5], "msg";\n//assert(r == [4, 5])\nM(a);\nx := 3;\nif x > 2 { assert r == [1]; }\n'
    )
    kinds = [s.kind for s in stmts]
    assert kinds == [StmtKind.VAR, StmtKind.VAR, StmtKind.PRINT, StmtKind.EXPECTED_COMMENT, StmtKind.EXPECT,
                     StmtKind.ASSERT, StmtKind.CALL, StmtKind.ASSIGN, StmtKind.OTHER, StmtKind.ASSERT]
    assert stmts[8].text == "if x > 2" and stmts[8].expr == "x > 2"  # a block's head, for what its condition names
    assert stmts[1].call is not None and stmts[1].call.args == ("a", "3")
    assert stmts[3].expr == "[4, 5]" and stmts[3].line == 3
    assert stmts[4].expr == "r == [4, 5]"  # the message is dropped
    assert stmts[5].commented and stmts[5].line == 5
    assert not any(s.problem for s in stmts)


def test_split_statements_reports_missing_semicolons_and_brackets() -> None:
    stmts = parse_statements("var x := 1\nassert x == 1")
    assert [s.problem for s in stmts] == ["`var x := 1` has no `;` at its end",
                                          "`assert x == 1` has no `;` at its end"]
    broken = parse_statements("var a := [1, 2;\nvar r := M(a);")
    assert broken[0].problem == "`var a := [1, 2`: `[` at line 1 is not closed"
    assert broken[1].kind is StmtKind.VAR and not broken[1].problem
    with pytest.raises(LexError):
        parse_statements("var r := M(\"a\", 'b'\");")


def test_expected_comment_spellings() -> None:
    for text in ("//expected[4, 5];", "// expected  [4, 5]", "//expeced [4, 5]", "//expected: [4, 5]"):
        (stmt,) = parse_statements(text)
        assert stmt.kind is StmtKind.EXPECTED_COMMENT and stmt.expr == "[4, 5]", text
    (stmt,) = parse_statements("//expected res1 == [4, 5]")
    assert stmt.kind is StmtKind.ASSERT and stmt.expr == "res1 == [4, 5]"
    assert parse_statements("// a remark about the test") == []


def test_equalities() -> None:
    def eqs(text: str) -> list[tuple[str, str]]:
        (stmt,) = parse_statements(text)
        return equalities(stmt)

    assert eqs("assert (r == 5);") == [("r", "5")]
    assert eqs("assert q == [1] && (r == [2]);") == [("q", "[1]"), ("r", "[2]")]
    assert eqs("assert arrayEquals(res1, e1);") == [("res1", "e1")]
    assert eqs("var ok := assertArrayEquals(e1, a1);") == [("e1", "a1")]
    assert eqs("assert ok;") == [("ok", "true")]
    assert eqs("assert !ok;") == [("ok", "false")]
    assert eqs("assert r == 1 || r == 2;") == []
    assert eqs("assert r > 0;") == []


def test_substitute_and_evaluate() -> None:
    env = {
        "a1": Binding("new int[][1, 2]", frozenset({1})),
        "s": Binding("[3]", frozenset({2})),
        "bad": Binding("", frozenset({3}), "`bad` holds the result of `M(..)`, not a literal"),
    }
    assert substitute("[a1, a1]", env) == ("[new int[][1, 2], new int[][1, 2]]", frozenset({1}))
    assert substitute("a1[..]", env) == ("[1, 2]", frozenset({1}))
    assert substitute("s[..]", env) == ("[3]", frozenset({2}))
    assert evaluate("a1[..]", SeqT(IntT()), env)[0] == SeqV((IntV(1), IntV(2)))
    with pytest.raises(EvalError, match=r"not a literal \(it calls `foo`\)"):
        substitute("foo(3)", env)
    with pytest.raises(EvalError, match="`y` is not a variable defined before this line"):
        substitute("[y]", env)
    with pytest.raises(EvalError, match="holds the result"):
        substitute("bad", env)
    with pytest.raises(EvalError, match=r"indexes or slices `a1`"):
        substitute("a1[1..]", env)


def test_parse_at_takes_array_literals_for_sequences() -> None:
    assert parse_at("new nat[] [1, 2]", SeqT(IntT())) == SeqV((IntV(1), IntV(2)))
    with pytest.raises(ValueParseError):
        parse_at("new int[] [1, x]", SeqT(IntT()))


# ---------------------------------------------------------------------------------------------------
# Dafny test methods


def test_tested_methods() -> None:
    assert [d.name for d in dfy_methods.tested_methods(load("forms.dfy"))] == [
        "Cube", "Shared", "Split", "Lasts", "ToChars", "Volume", "Rotate", "AddPair", "IsEven"]
    # the equality helper and the printer are not tested methods
    assert [d.name for d in dfy_methods.tested_methods(load("inplace.dfy"))] == ["MoveZeroesToEnd"]
    # a spec file without test methods has none, even when one method calls another
    assert dfy_methods.tested_methods(load("mbpp/src/task_id_7.dfy")) == []


def test_read_dfy_tests_all_forms() -> None:
    f = load("forms.dfy")
    read = read_dfy_tests(f)
    # `expect res4 == a4[..][..1] || true;` then `assert res4 == [9];`: the disjunction is a further check of an
    # output given a value; every check is read or the case is not (the reader does not decide that it holds at [9])
    (problem,) = read.problems
    assert problem.line == 78 and "`expect res4 == a4[..][..1] || true` is a further check of `res4`" in problem.reason
    got = {key: shown(f, c) for key, c in by_key(read).items()}
    assert got == {
        ("Cube", "FormsTest#1"): (["3"], ["27"]),  # assert
        ("Cube", "FormsTest#2"): (["-2"], ["-8"]),  # expect with the value first and a message
        ("Cube", "FormsTest#3"): (["4"], ["64"]),  # //assert, input from a variable
        ("Cube", "FormsTest#4"): (["5"], ["125"]),  # //assert(..)
        ("Shared", "FormsTest#1"): (["[3, 4, 5, 6]", "[5, 7, 4, 10]"], ["[4, 5]"]),  # //expected[..];
        ("Shared", "FormsTest#2"): (["[1, 2, 3]", "[3, 1]"], ["[1, 3]"]),  # // expected  [..]
        ("Shared", "FormsTest#3"): (["[1, 2, 3]", "[1, 2, 3]"], ["[1, 2, 3]"]),  # sequenceEquals helper
        ("Split", "FormsTest#1"): (["[1, 2, 3, 4]", "1"], ["[1]", "[2, 3, 4]"]),  # && of two outputs
        ("Split", "FormsTest#2"): (["[1, 2, 3]", "2"], ["[1, 2]", "[3]"]),  # one check per output
        ("Split", "FormsTest#3"): (["[5, 6]", "0"], ["[]", "[5, 6]"]),  # //expected [[..], [..]]
        ("Lasts", "FormsTest#1"): (['["Mers", "for", "Vers"]'], ['"srs"']),  # seq<string>, chars
        ("Lasts", "FormsTest#2"): (['["ab", "cd"]'], ['"bd"']),
        ("ToChars", "FormsTest#1"): (['"abc"'], ["['a', 'b', 'c']"]),  # array<char> given as a string
        ("ToChars", "FormsTest#2"): (['"hi"'], ["['h', 'i']"]),
        ("Volume", "FormsTest#1"): (["1.5"], ["3.375"]),
        ("Rotate", "FormsTest#1"): (["16", "2"], ["64"]),
        ("AddPair", "FormsTest#1"): (["[(5, 6)]", "(9, 10)"], ["[(5, 6), (9, 10)]"]),
        ("IsEven", "FormsTest#1"): (["4"], ["true"]),
        ("IsEven", "FormsTest#2"): (["3"], ["false"]),
    }
    cases = by_key(read)
    assert isinstance(cases[("ToChars", "FormsTest#1")].expected[0], ArrayV)
    assert cases[("Volume", "FormsTest#1")].expected == (RealV(Fraction(27, 8)),)
    first = cases[("Cube", "FormsTest#3")]
    assert first.line == 58 and first.source == str(FORMS / "forms.dfy")
    assert first.text == 'var x := 4;\nvar c3 := Cube(x);\nprint(c3); print("\\n");\n//assert c3 == 64;'
    # the input defined far above the call is shown, the lines between are left out
    assert cases[("Split", "FormsTest#2")].text.startswith("var s1: seq<int> := [1, 2, 3];\n...\nvar p2, q2")


def test_read_dfy_tests_in_place() -> None:
    f = load("inplace.dfy")
    read = read_dfy_tests(f)
    cases = by_key(read)
    assert [c.name for c in read.cases] == ["MoveZeroesToEndTest#1", "MoveZeroesToEndTest#2",
                                            "MoveZeroesToEndTest#3"]
    assert cases[("MoveZeroesToEnd", "MoveZeroesToEndTest#1")].post == (
        (0, ArrayV((IntV(1), IntV(2), IntV(0)))),)
    assert cases[("MoveZeroesToEnd", "MoveZeroesToEndTest#2")].post == ((0, ArrayV((IntV(3), IntV(0)))),)
    assert cases[("MoveZeroesToEnd", "MoveZeroesToEndTest#3")].post == (
        (0, ArrayV((IntV(4), IntV(0), IntV(0)))),)
    assert all(c.expected == () for c in read.cases)
    assert reasons(read) == {
        "MoveZeroesToEndTest#4": "no expected value found for the call at line 32 "
                                 "(`a4` is changed again by the call at line 33 before any check)",
        "MoveZeroesToEndTest#5": "line 33: cannot evaluate argument 1 `a4` (arr: array<int>): "
                                 "`a4` was changed by the call at line 32",
    }


def test_read_dfy_tests_problems() -> None:
    read = read_dfy_tests(load("problems.dfy"))
    # `assert r4 > 0;` is a property expectation: `r` any value the spec admits that is positive
    (prop,) = read.cases
    assert (prop.name, prop.property, prop.unchecked) == ("TwiceTest#4", "r > 0", (0,))
    assert reasons(read) == {
        "TwiceTest#1": "line 10: cannot evaluate argument 1 `foo(3)` (n: int): "
                       "not a literal (it calls `foo`)",
        "TwiceTest#2": "no expected value found for the call at line 12 "
                       "(`e2` defined at line 13 is never compared with the result)",
        "TwiceTest#3": "line 15: the call passes 2 argument(s), `Twice` takes 1",
        "TwiceTest#5": "line 20: cannot read the expected value `sixteen` of `r5` (out-parameter `r`) "
                       "as int: `sixteen` is not a variable defined before this line",
        "TwiceTest#6": "line 21: cannot evaluate argument 1 `y` (n: int): "
                       "`y` is not a variable defined before this line",
    }
    assert all(p.method == "Twice" and p.source.endswith("problems.dfy") for p in read.problems)
    assert [p.line for p in read.problems] == [10, 12, 15, 19, 21]


def test_read_dfy_tests_for_a_target_from_another_file() -> None:
    spec = load("mbpp/src/task_id_7.dfy")
    tests = load("mbpp/test/task_id_7.dfy")
    read = read_dfy_tests(tests, method(spec, "Last"))
    assert read.problems == ()
    assert [(c.name, c.method, shown(spec, c)) for c in read.cases] == [
        ("LastTest#1", "Last", (["[1, 2, 3]", "1", "3"], ["0"])),
        ("LastTest#2", "Last", (["[1, 1, 1, 2]", "1", "4"], ["2"])),
    ]


def test_expected_value_from_a_variable_declared_before_the_call_and_never_compared() -> None:
    f = load("unused.dfy")
    read = read_dfy_tests(f)
    cases = by_key(read)
    # MBPP-DFY task 257: `var e1: seq<int> := [20,10]; var res1:=Swap(10,20); print(res1);`
    first = cases[("Swap", "SwapTest#1")]
    assert shown(f, first) == (["10", "20"], ["[20, 10]"])
    assert first.note == "expected value taken from `e1` (line 9), declared before the call and never compared"
    assert first.text == "var e1: seq<int> := [20,10];\nvar res1:=Swap(10,20);"
    assert shown(f, cases[("Swap", "SwapTest#2")]) == (["17", "15"], ["[15, 17]"])
    # beside an unused variable of another type, the one that fits
    sixth = cases[("Swap", "SwapGuessTest#4")]
    assert shown(f, sixth) == (["7", "8"], ["[8, 7]"]) and "`e6` (line 34)" in sixth.note
    # a value read from a check is no guess
    assert cases[("Swap", "SwapGuessTest#3")].note == ""
    assert reasons(read) == {
        "SwapGuessTest#1": "no expected value found for the call at line 22 (`e3` (line 20), `f3` (line 21) "
                           "are declared before the call and never compared: cannot tell which is the expected "
                           "value)",
        "SwapGuessTest#2": "no expected value found for the call at line 26 "
                           "(`e4` defined at line 25 is never compared with the result)",
        "SwapGuessTest#5": "no expected value found for the call at line 38 "
                           "(`e7` defined at line 39 is never compared with the result)",
    }
    # the note is only on guessed cases, and other constructors need not give it
    assert all(c.note == "" for c in read_dfy_tests(load("forms.dfy")).cases)
    assert TestCase("T#1", "M", (IntV(1),), (IntV(2),)).note == ""


def test_commented_checks_after_the_call() -> None:
    f = load("comments.dfy")
    read = read_dfy_tests(f)
    got = {key: shown(f, c) for key, c in by_key(read).items()}
    assert got == {
        ("LastChar", "CommentsTest#1"): (['"xyz"'], ["'z'"]),  # `//assert out1=='z'`: no `;`
        ("LastChar", "CommentsTest#2"): (['"ab"'], ["'b'"]),  # the same, indented
        ("Find", "CommentsTest#1"): (["[1, 2, 3, 4]", "4"], ["3"]),  # `print(a1[out3]);` before the check
        ("Find", "CommentsTest#2"): (["[1, 2, 3, 4]", "2"], ["1"]),  # the same, check without `;`
        # MBPP-DFY task 807: `var found5,out5:=FindFirstOdd(a5); print(a5[out5]); //assert out5==0;`: a partial
        # expectation, `found` unchecked (its `false` a placeholder, never a claim)
        ("FindFirstOdd", "CommentsTest#1"): (["[1, 3, 5]"], ["false", "0"]),
    }
    lines = by_key(read)[("Find", "CommentsTest#1")].text.splitlines()
    assert [line.strip() for line in lines[-2:]] == ['print(a1[out3]);print("\\n");', "//assert out3==3;"]
    partial = by_key(read)[("FindFirstOdd", "CommentsTest#1")]
    assert partial.unchecked == (0,) and "`found` is not checked by the test" in partial.note
    assert reasons(read) == {}


def many_tests_source(n: int) -> str:
    parts = ["method Twice(n: int) returns (r: int)\n{\n  r := 2 * n;\n}\n",
             "method Neg(n: int) returns (r: int)\n{\n  r := -n;\n}\n"]
    for i in range(n):
        if i % 2:
            parts.append(f"method T{i}Test()\n{{\n  var r := Twice({i});\n  assert r == {2 * i};\n}}\n")
        else:
            parts.append(f"method T{i}Test()\n{{\n  var r := Neg({i});\n  //assert r == {-i}\n}}\n")
    parts.append("method Main()\n{\n" + "".join(f"  T{i}Test();\n" for i in range(n)) + "}\n")
    return "".join(parts)


def test_many_test_methods() -> None:
    # reading is linear in the number of methods (4,000 took 20 s when each body scanned the whole file)
    n = 3000
    text = many_tests_source(n)
    read = read_dfy_tests(parse_file(text, "many.dfy"))
    assert read.problems == ()
    assert len(read.cases) == n
    assert [(c.method, c.name) for c in read.cases[:3]] == [("Neg", "T0Test#1"), ("Twice", "T1Test#1"),
                                                             ("Neg", "T2Test#1")]
    assert read.cases[-1].expected == (IntV(2 * (n - 1)),)
    # tests in a file of their own: all targets in one pass, each target's cases together, in spec order
    m = 600
    spec = parse_file(many_tests_source(0), "spec.dfy")
    separate = read_source(TestSource(SourceKind.DFY, "many.dfy"), many_tests_source(m), spec)
    assert separate.problems == ()
    assert [c.method for c in separate.cases] == ["Twice"] * (m // 2) + ["Neg"] * (m // 2)


def test_case_text_marks_gaps() -> None:
    lines = ["  a", "  b", "  c", "    d"]
    assert case_text(lines, [1, 3, 4]) == "a\n...\nc\n  d"


# ---------------------------------------------------------------------------------------------------
# MBPP JSON


def json_data() -> tuple[object, str, str]:
    path = FORMS / "mbpp" / "tests.json"
    text = path.read_text(encoding="utf-8")
    return json.loads(text), str(path), text


def test_parse_signature() -> None:
    sig = parse_signature("method similar (arr1:array<int>, arr2:array<int>) returns (res: array<int>)")
    assert sig is not None
    assert (sig.name, sig.params, sig.returns) == ("similar", ("arr1:array<int>", "arr2:array<int>"),
                                                   ("res: array<int>",))
    assert sig.head == "method similar (arr1:array<int>, arr2:array<int>)"
    m = parse_signature("method m(x: map<int, int>)")
    assert m is not None and len(m.params) == 1
    assert parse_signature("function f(x: int): int") is None


def test_read_mbpp_json_cases_and_problems() -> None:
    data, path, text = json_data()
    assert task_ids(data) == ["7", "8"]
    forms = load("forms.dfy")
    shared = method(forms, "Shared")
    read = read_mbpp_json(data, path, "8", shared, text)
    assert [(c.name, c.line, shown(forms, c)) for c in read.cases] == [
        ("test_1", 16, (["[3, 4, 5, 6]", "[5, 7, 4, 10]"], ["[4, 5]"])),  # an array expected for a seq
        ("test_2", 17, (["[1, 2]", "[2]"], ["[2]"])),  # `new nat[]` for array<int>, a seq for an array
    ]
    assert read.cases[0].text.startswith("var a1:= new int[] [3, 4, 5, 6];")
    assert reasons(read) == {
        "test_3": "test_3: line 2 of the case: `assert res3==[1]` has no `;` at its end",
        "test_4": "test_4: line 2 of the case: cannot evaluate argument 1 `a5` (a: array<int>): "
                  "its definition at line 1 of the case is broken: `var a5:= new int[] [1,2`: "
                  "`[` at line 1 is not closed",
        "test_5": "test_5: line 1 of the case: cannot read the statements: unterminated string literal",
        "test_6": "test_6: no expected value found for the call at line 1 of the case "
                  "(`assert res7:==[1]` at line 2 is not an equality with a value)",
        "test_7": "test_7: line 2 of the case: cannot evaluate argument 1 `s` (a: array<int>): "
                  "expected ')' in int literal, found ',' in `[(1, 2)]`",
    }
    assert {p.line for p in read.problems} == {18, 19, 20, 21, 22}


def test_read_mbpp_json_arity_mismatch() -> None:
    data, path, text = json_data()
    spec = load("mbpp/src/task_id_7.dfy")
    read = read_mbpp_json(data, path, "7", method(spec, "Last"), text)
    assert read.cases == ()
    assert [str(p) for p in read.problems] == [
        f"{path}:7: test_1: the JSON signature `method last(arr:array<int>,x:int)` has 2 parameter(s), "
        "the spec method `Last` has 3",
        f"{path}:8: test_2: the JSON signature `method last(arr:array<int>,x:int)` has 2 parameter(s), "
        "the spec method `Last` has 3",
    ]
    # without the text, lines are unknown; an unknown task is one problem
    assert {p.line for p in read_mbpp_json(data, path, "7", method(spec, "Last")).problems} == {0}
    missing = read_mbpp_json(data, path, "99", method(spec, "Last"), text)
    assert [p.reason for p in missing.problems] == ["task 99 is not in the file"]
    not_a_dict = read_mbpp_json([], path, "7", method(spec, "Last"))
    assert not_a_dict.problems[0].reason == "task 7 is not in the file"


APPEND_SPEC = """method Append(s: seq<int>, a: array<int>) returns (r: seq<int>)
  ensures r == s + a[..]
"""


def test_read_mbpp_json_parameters_in_another_order() -> None:
    # the JSON lists the array first; read by position, the array's literal would become `s` and the spec
    # would be said to reject the expected output (measured on the full data set's task 106)
    spec = parse_file(APPEND_SPEC, "append.dfy")
    code = "var a1:= new int[] [5, 6, 7];\nvar s1: seq<int> := [9, 10];\nvar res1:=addLists(a1,s1);\n" \
           "assert res1==[9, 10, 5, 6, 7];"
    data = {"9": {"method_signature": "method addLists(arr: array<int>, se:seq<int>) returns (res:seq<int>)",
                  "test_cases": {"test_1": code}}}
    read = read_mbpp_json(data, "t.json", "9", method(spec, "Append"))
    assert read.problems == ()
    [case] = read.cases
    assert shown(spec, case) == (["[9, 10]", "[5, 6, 7]"], ["[9, 10, 5, 6, 7]"])
    assert case.note == "the JSON signature lists the parameters in another order; read `se` as `s`, `arr` as `a`"


def test_argument_order() -> None:
    def order(json_params: str, spec_params: str) -> tuple[int, ...] | None:
        sig = parse_signature(f"method j({json_params})")
        spec = parse_file(f"method M({spec_params})\n", "m.dfy")
        assert sig is not None
        return argument_order(sig, method(spec, "M"))

    assert order("arr: array<int>, se: seq<int>", "s: seq<int>, a: array<int>") == (1, 0)
    assert order("n: int, s: string", "s: seq<char>, k: nat") == (1, 0)  # by shape: string as seq<char>, int as nat
    assert order("a: array<int>, n: int", "s: seq<int>, n: nat") is None  # the shapes fit by position
    # names settle it first: the same names in another order give that order, by position keep it whatever the types
    assert order("x: int, y: int", "y: int, x: int") == (1, 0)
    assert order("s: array<int>, a: seq<int>", "s: seq<int>, a: array<int>") is None
    assert order("p: int, q: int", "y: int, x: int") is None  # one type, other names: only the position tells
    assert order("a: int, s: seq<int>, b: int", "s: seq<int>, a: int, b: int") == (1, 0, 2)  # by the names
    assert order("x: int, s: seq<int>, y: int", "t: seq<int>, a: int, b: int") is None  # two orders fit the types
    assert order("a: real, s: seq<int>", "s: seq<int>, a: int") == (1, 0)  # the names (the real is reported later)
    assert order("x: real, t: seq<int>", "s: seq<int>, a: int") is None  # no order fits: by position, as before
    assert order("a: int", "a: int, b: int") is None  # arity differs (reported elsewhere)


def test_spec_method_for() -> None:
    data, _, _ = json_data()
    spec = load("mbpp/src/task_id_7.dfy")
    # `last` matches `Last` by name; otherwise the only method no other method calls
    assert method(spec, "Last") == spec_method_for(spec, data, "7")
    assert method(spec, "Last") == spec_method_for(spec, data, "8")
    assert spec_method_for(load("forms.dfy"), data, "8") is None  # many candidates


# ---------------------------------------------------------------------------------------------------
# TOML


def read_toml(name: str, spec: str) -> ReadResult:
    path = FORMS / name
    return read_toml_cases(path.read_text(encoding="utf-8"), str(path), load(spec))


def test_toml_cases() -> None:
    forms = load("forms.dfy")
    read = read_toml("forms.tests.toml", "forms.dfy")
    assert read.problems == ()
    assert [(c.name, c.method, c.line, shown(forms, c)) for c in read.cases] == [
        ("case_1", "Cube", 4, (["3"], ["27"])),
        ("negative", "Cube", 8, (["-2"], ["-8"])),
        ("shared", "Shared", 13, (["[3, 4, 5, 6]", "[5, 7, 4, 10]"], ["[4, 5]"])),
        ("case_4", "Split", 19, (["[1, 2, 3]", "1"], ["[1]", "[2, 3]"])),
        ("case_5", "Lasts", 24, (['["ab", "cd"]'], ['"bd"'])),
        ("case_6", "Volume", 29, (["0.1"], ["0.001"])),
        ("exponent", "Volume", 34, (["10.0"], ["1000.0"])),
        ("case_8", "IsEven", 40, (["4"], ["true"])),
        ("case_9", "AddPair", 45, (["[(5, 6)]", "(9, 10)"], ["[(5, 6), (9, 10)]"])),
        ("case_10", "Rotate", 50, (["16", "2"], ["64"])),
    ]
    volume = read.cases[5]
    assert volume.inputs == (RealV(Fraction(1, 10)),)  # exact, not the binary float 0.1
    assert volume.text == '[[case]]\nmethod = "Volume"\nargs = [0.1]\nexpected = "0.001"'
    assert all(c.source == str(FORMS / "forms.tests.toml") for c in read.cases)


def test_toml_in_place() -> None:
    read = read_toml("inplace.tests.toml", "inplace.dfy")
    assert read.problems == ()
    assert [(c.name, c.inputs, c.expected, c.post) for c in read.cases] == [
        ("zero first", (ArrayV((IntV(0), IntV(1))),), (), ((0, ArrayV((IntV(1), IntV(0)))),)),
        ("case_2", (ArrayV((IntV(0), IntV(0), IntV(2))),), (), ((0, ArrayV((IntV(2), IntV(0), IntV(0)))),)),
    ]


def test_toml_bad_syntax() -> None:
    read = read_toml("bad_syntax.tests.toml", "forms.dfy")
    assert read.cases == ()
    (problem,) = read.problems
    assert problem.line == 5 and problem.reason.startswith("not valid TOML: ")


def test_toml_bad_cases() -> None:
    read = read_toml("bad_cases.tests.toml", "forms.dfy")
    assert [c.name for c in read.cases] == ["fine"]
    got = [(p.line, p.reason) for p in read.problems]
    spec = str(FORMS / "forms.dfy")
    assert got == [
        (2, "unknown top-level key `colour` (known: method, case); cases go in [[case]] tables"),
        (4, f'case "unknown method": no method `Nope` in {spec} (methods there: Cube, Shared, Split, Lasts, '
            "ToChars, Volume, Rotate, AddPair, IsEven, FormsTest, Main)"),
        (10, 'case "arity": `args` has 2 entries, `Cube` takes 1 (n: int)'),
        (16, 'case "bad value": argument 1 (`a`: array<int>): cannot read `[1, x]`: '
             "expected int literal, found identifier 'x'"),
        (22, 'case "no expected": `expected` is missing: `Cube` returns r: int'),
        (27, 'case "typo": unknown key `expect` (known: name, method, args, expected, post)'),
        (33, 'case "two outputs": `expected` must be a list of 2 values, one per out-parameter '
             "(first: seq<int>, second: seq<int>)"),
        (39, 'case "post on an int": `post` names `n` of type int: only array parameters change'),
        (46, 'case "date": argument 1: a TOML date is no Dafny literal; write it as a string'),
        (52, 'case 9: names no method: set `method = "..."` in the case or at the top of the file'),
        (62, 'case "fine": another case of `Cube` has this name; give each case its own `name`'),
        (68, 'case "int as real": argument 1 (`n`: int): cannot read `1.5`: '
             "expected int literal, found real number '1.5'"),
    ]
    assert read.problems[2].method == "Cube" and read.problems[2].name == "arity"


def test_toml_without_cases() -> None:
    read = read_toml_cases('method = "Cube"\n', "t.toml", load("forms.dfy"))
    assert [p.reason for p in read.problems] == ["no [[case]] tables: add one per test case"]


# ---------------------------------------------------------------------------------------------------
# discovery


def test_candidate_and_explicit_sources() -> None:
    mbpp = [s.path for s in candidate_sources("x/src/task_id_7.dfy")]
    assert mbpp[:2] == ["x/src/task_id_7.dfy", "x/src/task_id_7.tests.toml"] and "x/test/task_id_7.dfy" in mbpp
    found = [s.path for s in candidate_sources("a/spec.dfy")]
    assert found[:2] == ["a/spec.dfy", "a/spec.tests.toml"]
    for path in ("a/spec_test.dfy", "a/spec.test.dfy", "a/test_spec.dfy", "a/tests/spec.dfy", "a/test/spec.dfy",
                 "tests/spec.dfy", "test/spec.dfy", "tests/spec_test.dfy"):
        assert path in found, path
    assert len(found) == len(set(found)) and found.count("a/spec.dfy") == 1
    # a spec inside a tests folder is not its own test file twice; one level up from "." is ".."
    inside = [s.path for s in candidate_sources("tests/spec.dfy")]
    assert inside.count("tests/spec.dfy") == 1 and "tests/tests/spec.dfy" in inside
    assert "../tests/spec.dfy" in [s.path for s in candidate_sources("spec.dfy")]
    assert explicit_source("t.json", "x/src/task_id_7.dfy") == TestSource(SourceKind.MBPP_JSON, "t.json", "7")
    assert explicit_source("t.TOML", "s.dfy") == TestSource(SourceKind.TOML, "t.TOML")
    bad = explicit_source("t.json", "spec.dfy")
    assert isinstance(bad, CaseProblem) and "task_id_N.dfy" in bad.reason
    other = explicit_source("t.txt", "spec.dfy")
    assert isinstance(other, CaseProblem) and other.reason.startswith("unknown kind of test file")


def test_find_test_sources() -> None:
    spec = str(FORMS / "mbpp" / "src" / "task_id_7.dfy")
    parallel = str(FORMS / "mbpp" / "test" / "task_id_7.dfy")
    assert find_test_sources(spec) == [TestSource(SourceKind.DFY, spec), TestSource(SourceKind.DFY, parallel)]
    forms = str(FORMS / "forms.dfy")
    assert [s.kind for s in find_test_sources(forms)] == [SourceKind.DFY, SourceKind.TOML]


def test_cases_for_spec_from_the_parallel_test_file() -> None:
    spec = load("mbpp/src/task_id_7.dfy")
    read = cases_for_spec(spec)
    assert read.problems == ()
    assert [(c.name, c.method, c.source) for c in read.cases] == [
        ("LastTest#1", "Last", str(FORMS / "mbpp" / "test" / "task_id_7.dfy")),
        ("LastTest#2", "Last", str(FORMS / "mbpp" / "test" / "task_id_7.dfy")),
    ]


def test_cases_for_spec_from_the_file_and_its_toml() -> None:
    read = cases_for_spec(load("forms.dfy"))
    assert len(read.problems) == 1  # FormsTest#4 of `Shared` (see test_read_dfy_tests_all_forms)
    assert len(read.cases) == 19 + 10
    assert {c.source for c in read.cases} == {str(FORMS / "forms.dfy"), str(FORMS / "forms.tests.toml")}
    assert len({(c.method, c.name) for c in read.cases}) == len(read.cases)


def test_cases_for_spec_explicit() -> None:
    spec = load("mbpp/src/task_id_7.dfy")
    read = cases_for_spec(spec, str(FORMS / "mbpp" / "tests.json"))
    assert read.cases == () and len(read.problems) == 2
    assert "has 2 parameter(s), the spec method `Last` has 3" in read.problems[0].reason
    toml = cases_for_spec(load("inplace.dfy"), str(FORMS / "inplace.tests.toml"))
    assert [c.name for c in toml.cases] == ["zero first", "case_2"]
    dfy = cases_for_spec(spec, str(FORMS / "mbpp" / "test" / "task_id_7.dfy"))
    assert len(dfy.cases) == 2
    missing = cases_for_spec(spec, str(FORMS / "nowhere.toml"))
    assert missing.cases == () and missing.problems[0].reason.startswith("cannot read the test file")
    unknown = cases_for_spec(spec, "tests.txt")
    assert unknown.problems[0].reason.startswith("unknown kind of test file")


def test_merge_renames_clashing_cases() -> None:
    a = TestCase("T#1", "M", (IntV(1),), (IntV(2),), source="d/a.dfy")
    b = TestCase("T#1", "M", (IntV(3),), (IntV(4),), source="d/b.toml")
    c = TestCase("T#1", "N", (IntV(3),), (IntV(4),), source="d/b.toml")
    p = CaseProblem("d/b.toml", 3, "bad")
    merged = merge([ReadResult((a,), ()), ReadResult((b, c), (p,))])
    assert [(x.method, x.name) for x in merged.cases] == [("M", "T#1"), ("M", "T#1 (b.toml)"), ("N", "T#1")]
    assert merged.problems == (p,)


def test_read_source_of_a_test_file_that_tests_nothing() -> None:
    spec = load("mbpp/src/task_id_7.dfy")
    read = read_source(TestSource(SourceKind.DFY, "other.dfy"), "method Main() { print 1; }", spec)
    assert [p.reason for p in read.problems] == [
        f"its test methods call no method of {spec.path} that returns a value or changes an array "
        "(Swap, Last)"]
    broken = read_source(TestSource(SourceKind.DFY, "other.dfy"), "method M( {", spec)
    assert broken.problems[0].reason.startswith("cannot read the test file")
    bad_json = read_source(TestSource(SourceKind.MBPP_JSON, "t.json", "7"), "{", spec)
    assert bad_json.problems[0].reason.startswith("not valid JSON")


# ---------------------------------------------------------------------------------------------------
# the development data set


@pytest.mark.dataset
def test_dataset_test_files_and_json(dataset_root: Path) -> None:
    for snapshot in ("a57ce24", "head"):
        base = dataset_root / snapshot
        specs = sorted((base / "MBPP-DFY-153" / "src").glob("task_id_*.dfy"))
        assert len(specs) == 40
        with_cases = 0
        n_cases = 0
        problems: list[CaseProblem] = []
        json_tasks = 0
        json_cases = 0
        json_path = base / "MBPP-san-DFY-228" / "mbpp-san-dfy-228-all-task-test.json"
        for path in specs:
            spec = parse_file(path.read_text(encoding="utf-8"), str(path))
            read = cases_for_spec(spec)  # the parallel test/ file
            assert all(c.source.endswith(f"test/{path.name}") for c in read.cases)
            with_cases += bool(read.cases)
            n_cases += len(read.cases)
            problems += read.problems
            from_json = cases_for_spec(spec, str(json_path))
            json_tasks += bool(from_json.cases)
            json_cases += len(from_json.cases)
        print(f"\n{snapshot}: {n_cases} cases from test files, {with_cases}/40 tasks with cases, "
              f"{len(problems)} problems; JSON: {json_cases} cases, {json_tasks}/40 tasks")
        for p in problems:
            print(f"  {p}")
        assert with_cases >= 38
        assert json_tasks >= 30


def test_a_live_check_wins_over_a_commented_one() -> None:
    spec = "method Inc(x: int) returns (r: int) ensures r == x + 1 { r := x + 1; }\n"
    test = ("method IncTest() {\n"
            "  var a := Inc(1);\n  //assert a == 5;\n  assert a == 2;\n"     # a stale comment, then the live check
            "  var b := Inc(2);\n  assert b == 3;\n  //assert b == 7;\n"     # the live check, then a stale comment
            "  var c := Inc(3);\n  //assert c == 4;\n"                        # a comment alone is still read
            "  var d := Inc(4);\n  //expected 9\n  expect d == 5;\n}\n")      # an `//expected` comment too
    read = read_dfy_tests(parse_file(spec + test, "t.dfy"))
    assert [c.expected for c in read.cases] == [(IntV(2),), (IntV(3),), (IntV(4),), (IntV(5),)]
    assert read.problems == ()


@pytest.mark.parametrize("body, problem", [
    # an input assigned in a branch: which value reaches the call is not followed
    ("var x := 1;\n  if x > 0 {\n    x := 5;\n  }\n  var r := Inc(x);\n  expect r == 2;",
     "`x` is assigned inside `if` at line 5"),
    ("var x := 1;\n  match x { case 1 => x := 4; case _ => }\n  var r := Inc(x);\n  expect r == 2;",
     "`x` is assigned inside `match` at line 4"),
    # a check that may not run
    ("var r := Inc(1);\n  if r > 100 {\n    expect r == 7;\n  }", "the check at line 5 is inside `if`"),
    # a call that may not run
    ("var c := true;\n  if c {\n    var r := Inc(1);\n    expect r == 2;\n  }", "the call is inside `if`"),
    # a variable of a block that has ended
    ("{ var y := 5; }\n  var r := Inc(y);\n  expect r == 6;", "`y` was declared in a block that has ended"),
])
def test_control_flow_the_reader_does_not_follow_is_said_never_guessed(body: str, problem: str) -> None:
    spec = "method Inc(x: int) returns (r: int) ensures r == x + 1 { r := x + 1; }\n"
    read = read_dfy_tests(parse_file(spec + "method T() {\n  " + body + "\n}\n", "t.dfy"))
    assert read.cases == () and len(read.problems) == 1 and problem in read.problems[0].reason, read.problems


def test_blocks_as_scopes_are_followed_exactly() -> None:
    spec = "method Inc(x: int) returns (r: int) ensures r == x + 1 { r := x + 1; }\n"
    test = ("method T() {\n  var x := 1;\n  { var x := 5; }\n  var r := Inc(x);\n  expect r == 2;\n"
            "  { var v := Inc(2); expect v == 3, \"t2\"; }\n  { var v := Inc(3); expect v == 4, \"t3\"; }\n"
            "  var s := Inc(4);\n  if s > 100 {\n    print s;\n  }\n  expect s == 5;\n}\n")
    read = read_dfy_tests(parse_file(spec + test, "t.dfy"))
    assert [(c.inputs, c.expected) for c in read.cases] == [((IntV(1),), (IntV(2),)), ((IntV(2),), (IntV(3),)),
                                                            ((IntV(3),), (IntV(4),)), ((IntV(4),), (IntV(5),))]
    assert read.problems == ()


def test_an_array_changed_after_the_call_ends_what_its_check_says() -> None:
    spec = "method Set0(a: array<int>) modifies a ensures a[0] == 0 { a[0] := 0; }\n"
    test = "method T() {\n  var a := new int[] [5, 6];\n  Set0(a);\n  a[1] := 9;\n  expect a[..] == [0, 9];\n}\n"
    read = read_dfy_tests(parse_file(spec + test, "t.dfy"))
    assert read.cases == () and "`a` is changed at line 5 before any check" in read.problems[0].reason


def test_an_array_handed_to_a_method_that_may_change_it_ends_what_its_check_says() -> None:
    spec = ("method Set0(a: array<int>) modifies a ensures a[0] == 0 { a[0] := 0; }\n"
            "method Scramble(a: array<int>) modifies a { }\nmethod Show(a: array<int>) { }\n")
    test = ("method T() {\n  var a := new int[] [5, 6];\n  Set0(a);\n  Show(a);\n  expect a[..] == [0, 6];\n"
            "  var b := new int[] [7, 8];\n  Set0(b);\n  Scramble(b);\n  expect b[..] == [0, 8];\n}\n")
    read = read_dfy_tests(parse_file(spec + test, "t.dfy"), parse_file(spec, "s.dfy").find("Set0"))
    assert [c.post for c in read.cases] == [((0, ArrayV((IntV(0), IntV(6)))),)]  # Show changes nothing
    (problem,) = read.problems
    assert "`b` is passed to `Scramble` at line 11 before any check, which may change it" in problem.reason
    # and as an input of a later call, an array another method may have changed has no known contents
    scrambled = read_dfy_tests(parse_file(spec + test, "t.dfy"), parse_file(spec, "s.dfy").find("Scramble"))
    assert scrambled.cases == () and "`b` may have been changed by the call of `Set0`" in str(scrambled.problems[0])


@pytest.mark.parametrize("body, problem", [
    # a set display in a condition is no body: the branch is still a branch
    ("if 5 in {1, 2} { var r := Inc(3); assert r == 3; }", "the call is inside `if`"),
    ("var s: set<int> := {};\n  var x := 1;\n  while x < 0 invariant s == {} { x := 5; }\n  var r := Inc(x);\n"
     "  assert r == 2;", "`x` is assigned inside `while`"),
    # code after a jump may not run
    ("if true { return; }\n  var r := Inc(3);\n  assert r == 3;", "the call is after `return`"),
    # a result read after the block that declared it is another variable
    ("var r := 3;\n  { var r := Inc(3); }\n  assert r == 3;", "`r` is out of scope"),
    # one array under two names
    ("var a := 1;\n  var b := new int[] [1];\n  var c := b;\n  c[0] := 9;\n  var r := Inc(b[0]);\n  assert r == 10;",
     "`c` and `b` are one array"),
    # values the reader does not follow
    ("var x := 1;\n  x :| x == 5;\n  var r := Inc(x);\n  assert r == 6;", "`x` is changed"),
    ("var x, y := 1, 2;\n  x, y := y, x;\n  var r := Inc(y);\n  assert r == 3;", None),
])
def test_what_the_reader_does_not_follow_is_refused(body: str, problem: str | None) -> None:
    spec = "method Inc(x: int) returns (r: int) ensures r == x + 1 { r := x + 1; }\n"
    read = read_dfy_tests(parse_file(spec + "method T() {\n  " + body + "\n}\n", "t.dfy"))
    if problem is None:  # a parallel assignment is read as one: y is 1 after the swap
        assert [(c.inputs, c.expected) for c in read.cases] == [((IntV(1),), (IntV(3),))] or read.problems
        assert all(c.inputs == (IntV(1),) for c in read.cases)
        return
    assert read.cases == () and any(problem in p.reason for p in read.problems), read.problems


def test_outputs_compared_as_one_collection_are_an_equality_each() -> None:
    f = parse_file("""method DivMod(a: int, b: int) returns (q: int, r: int)
  requires b > 0
  ensures a == q * b + r && 0 <= r < b
method Main() {
  { var s, p := DivMod(7, 2); expect [s, p] == [3, 1], "test 1"; }
  { var s, p := DivMod(9, 4); expect (s, p) == (2, 1); }
  { var s, p := DivMod(9, 4); expect [s, p] == [2]; }
  { var s, p := DivMod(9, 4); expect [s, p] == [2, 1] + []; }
}
""", "t.dfy")
    read = read_dfy_tests(f)
    assert [shown(f, c) for c in read.cases[:2]] == [(["7", "2"], ["3", "1"]), (["9", "4"], ["2", "1"])]
    # lengths that differ, or a side that is no display: no element-wise reading, but a property of both results
    assert [(c.property, c.unchecked) for c in read.cases[2:]] == [
        ("[q, r] == [2]", (0, 1)), ("[q, r] == [2, 1] + []", (0, 1))]
    assert read.problems == ()


def test_a_tolerance_the_test_states_is_read_with_its_value() -> None:
    f = parse_file("""method Ratio(a: int, b: int) returns (r: real)
  requires b != 0
  ensures r == (a as real) / (b as real)
function abs(x: real): real { if x < 0.0 then -x else x }
function Abs(x: real): real { if x >= 0.0 then x else -x }
method Main() {
  { var v := Ratio(2, 3); expect abs(v - 0.6666667) < 0.00001, "test 1"; }
  { var v := Ratio(2, 3); assert 0.01 >= Abs(0.66 - v); }
  { var v := Ratio(1, 3); expect v - 0.3333 < 0.001 && 0.3333 - v < 0.001; }
  { var v := Ratio(1, 3); expect v - 0.3333 < 0.001; }
  { var v := Ratio(1, 3); expect abs(v - 0.3) < -1.0; }
}
""", "t.dfy")
    read = read_dfy_tests(f)
    assert [(shown(f, c)[1], c.tolerances) for c in read.cases[:3]] == [
        (["0.6666667"], (Tolerance(0, Fraction(1, 100000), True),)),
        (["0.66"], (Tolerance(0, Fraction(1, 100), False),)),  # `<=`: the closed interval, as written
        (["0.3333"], (Tolerance(0, Fraction(1, 1000), True),))]
    assert [c.property for c in read.cases[3:]] == ["r - 0.3333 < 0.001"]  # one side only: a property
    assert [p.line for p in read.problems] == [11]  # a tolerance that is not positive
    assert "not positive" in read.problems[0].reason


def test_a_tolerance_is_not_stretched_to_other_outputs_nor_read_from_a_disjunction() -> None:
    f = parse_file("""method Two(x: real) returns (a: real, b: real)
  ensures a == x && b == 2.0001
function abs(x: real): real { if x < 0.0 then -x else x }
method Main() {
  { var a, b := Two(1000.0); expect abs(a - 1000.0) < 0.5; expect b == 2.0; }
  { var a, b := Two(1.0); expect abs(a - 1.0) < 0.5 || a == 100.0; expect b == 2.0001; }
}
""", "t.dfy")
    read = read_dfy_tests(f)
    assert read.problems == ()
    first, second = read.cases
    # per output: `a` within its own tolerance, `b` exactly
    assert first.tolerances == (Tolerance(0, Fraction(1, 2), True),) and first.tolerance_of(1) is None
    # a disjunction states no tolerance: a property of `a` (any value the spec admits that has it), `b` exactly
    assert second.unchecked == (0,) and second.tolerances == ()
    assert second.property == "abs(a - 1.0) < 0.5 || a == 100.0"


def test_a_check_read_in_part_keeps_the_rest_as_a_property() -> None:
    f = parse_file("""method Find(a: seq<int>, x: int) returns (ok: bool, i: int)
  ensures ok ==> 0 <= i < |a| && a[i] == x
method M() returns (r: int)
  ensures r == 5
method Main() {
  { var ok, i := Find([1, 2, 3], 3); expect ok && i > 5; }
  { var ok, i := Find([1, 2, 3], 3); expect ok; expect i > 5; }
  { var x := M(); expect exists r | 0 <= r < 10 :: r == x + 1; }
  { var r := M(); expect r == 5 && r == 6; }
}
""", "t.dfy")
    read = read_dfy_tests(f)
    # the rest of a check is never dropped when it is about an output the test gives no value of
    assert [(c.property, c.unchecked) for c in read.cases[:2]] == [("ok && i > 5", (1,)), ("i > 5", (1,))]
    # renaming `x` to the out-parameter `r` would capture the bound `r`: not read, with the reason
    problem = read.problems[0]
    assert problem.line == 8 and "clash with the method's out-parameter names" in problem.reason
    # a further check of an output the test gives a value of: every check is read, or the case is not (`r == 5 &&
    # r == 6` passes for no output at all)
    assert len(read.cases) == 2
    assert "is a further check of `r`, given the value `5`" in read.problems[1].reason


def test_a_property_calling_a_function_the_test_file_declares_is_not_read(tmp_path: Path) -> None:
    spec = tmp_path / "spec.dfy"
    spec.write_text("predicate Good(s: seq<int>) { |s| == 3 }\n"
                    "method Make(n: nat) returns (s: seq<int>) ensures |s| == n\n")
    tests = tmp_path / "test.dfy"
    tests.write_text('include "spec.dfy"\npredicate Good(s: seq<int>) { |s| == 2 }\n'
                     "method TestMake() { var s := Make(2); assert Good(s); }\n")
    read = cases_for_spec(parse_file(spec.read_text(), str(spec)), str(tests))
    assert read.cases == ()
    assert "`Good` is declared by the test file and by the spec: which one it means is not followed" \
        in read.problems[0].reason


def test_a_property_check_after_the_result_is_assigned_again_is_no_property_of_the_call() -> None:
    f = parse_file("""method Find(a: seq<int>, x: int) returns (ok: bool, i: int)
  ensures ok ==> 0 <= i < |a| && a[i] == x
method Main() {
  { var ok, i := Find([1, 2, 3], 3); i := 7; expect ok && i > 5; }
  { var ok, i := Find([1, 2, 3], 3); var v := i; i := 0; expect i < 1; expect ok; }
}
""", "t.dfy")
    read = read_dfy_tests(f)
    # `i > 5` speaks of the 7 assigned after the call, not of the call's `i`: never read as a property of it
    (problem,) = read.problems
    assert problem.line == 4 and "it names a result no longer the call's" in problem.reason
    # `i < 1` is about the 0 assigned later: `i` stays unchecked, with no property taken from that check
    (case,) = read.cases
    assert (case.name, case.property, case.unchecked) == ("Main#2", "", (1,)) and "assigned again" in case.note


def test_an_unreadable_check_of_a_function_call_stays_a_problem() -> None:
    """A function the tests call for a value they need is no test of it; one whose result a check names is, and a
    check the readers cannot use is listed (a pull request breaking it must not make the case vanish unseen)."""
    f = parse_file(
        "function Fib(n: nat): nat { if n < 2 then n else Fib(n - 1) + Fib(n - 2) }\n"
        "method Twice(x: int) returns (y: int) ensures y == 2 * x\n"
        "method T() {\n"
        "  var v := Fib(10); expect v == 55;\n"
        "  var w := Fib(5); expect w == Foo(3);\n"
        "  var h := Fib(3); var y := Twice(h); expect y == 4;\n"
        "}\n", "fib.dfy")
    read = read_dfy_tests(f)
    assert [(c.method, c.expected) for c in read.cases] == [("Fib", (IntV(55),))]
    by_method = {(p.method, p.line) for p in read.problems}
    assert by_method == {("Fib", 5), ("Twice", 6)}, read.problems
    assert "Foo" in next(p.reason for p in read.problems if p.method == "Fib")
