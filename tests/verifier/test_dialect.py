from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.dafny.dialect import Dialect, Rewrite, UnreadableConstruct, detect_syntax, may_call_seq, to_dialect
from bot.dafny.lexer import LexError
from bot.dafny.parser import parse_file
from support.paths import DATA, ROOT


def rewrite(src: str, target: Dialect) -> Rewrite:
    """to_dialect, checking the one rule every rewrite obeys: each line keeps its number."""
    r = to_dialect(src, target)
    assert r.text.count("\n") == src.count("\n")
    before, after = src.split("\n"), r.text.split("\n")
    changed = {int(c.split(":")[0].removeprefix("line ")) for c in r.changes}
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if old != new:
            # a changed line belongs to a reported change or to a construct that spans lines
            assert changed, f"line {number} changed without a reported change"
    return r


def to2(src: str) -> str:
    return rewrite(src, Dialect.DAFNY2).text


def to4(src: str) -> str:
    return rewrite(src, Dialect.DAFNY4).text


# -- detection -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("function method F(): int { 1 }", Dialect.DAFNY2),
        ("predicate method P() { true }", Dialect.DAFNY2),
        ("copredicate P() { true }", Dialect.DAFNY2),
        ("inductive lemma L() {}", Dialect.DAFNY2),
        ("ghost function F(): int { 1 }", Dialect.DAFNY4),
        ("static ghost predicate P() { true }", Dialect.DAFNY4),
        ("opaque function F(): int { 1 }", Dialect.DAFNY4),
        ("method M() { for i := 0 to 3 {} }", Dialect.DAFNY4),
        ("method M() { for i: nat := 3 downto 0 {} }", Dialect.DAFNY4),
        ("method M() { expect 1 == 1; }", Dialect.DAFNY4),
        ("method M() { while true { continue; } }", Dialect.DAFNY4),
        ("least predicate P(x: int) { true }", Dialect.DAFNY4),
        ("function F(): int { 1 } by method { return 1; }", Dialect.DAFNY4),
        # nothing tells: functions and loops both generations share
        ("function F(): int { 1 }\nmethod M() { var i := 0; while i < 3 { i := i + 1; } }", Dialect.DAFNY2),
        ("", Dialect.DAFNY2),
        # the strongest Dafny 2 sign wins in a mixed file
        ("ghost function G(): int { 1 }\nfunction method F(): int { 1 }", Dialect.DAFNY2),
        # words in comments and strings do not count
        ('// ghost function\n/* for i := 0 to 1 */ method M() { var s := "expect x;"; }', Dialect.DAFNY2),
        ("/* function method */ ghost function F(): int { 1 }", Dialect.DAFNY4),
    ],
)
def test_detect_syntax(src: str, expected: Dialect) -> None:
    assert detect_syntax(src) is expected


def test_unbalanced_source_is_not_rewritten() -> None:
    src = "ghost function F(): int { 1 }\nmethod M() {\n  for i := 0 to 3 {\n}\n"
    r = to_dialect(src, Dialect.DAFNY2)
    assert r.text == src and r.changes == () and r.left_alone == ("unbalanced brackets: not rewritten",)


def test_lex_errors_propagate() -> None:
    with pytest.raises(LexError):
        to_dialect('method M() { var s := "open', Dialect.DAFNY2)


# -- functions and predicates ----------------------------------------------------------------------

DAFNY4_FUNCTIONS = """\
ghost function G(x: int): int { x }
function F(x: int): int { x }
predicate P(x: int) { x > 0 }
ghost predicate GP(x: int) { x > 0 }
class C {
  static function S(): int { 1 }
  static ghost predicate SG() { true }
  twostate predicate T() { true }
}
opaque function O(): int { 1 }
ghost opaque function GO(): int { 1 }
least predicate L(x: int) { true }
greatest lemma GL(x: int) {}
method M() { assert F(1) == G(1); }
"""


def test_dafny4_functions_to_dafny2() -> None:
    r = rewrite(DAFNY4_FUNCTIONS, Dialect.DAFNY2)
    assert (
        r.text
        == """\
function G(x: int): int { x }
function method F(x: int): int { x }
predicate method P(x: int) { x > 0 }
predicate GP(x: int) { x > 0 }
class C {
  static function method S(): int { 1 }
  static predicate SG() { true }
  twostate predicate T() { true }
}
function method {:opaque} O(): int { 1 }
function {:opaque} GO(): int { 1 }
inductive predicate L(x: int) { true }
colemma GL(x: int) {}
method M() { assert F(1) == G(1); }
"""
    )
    assert "line 1: `ghost function` -> `function`" in r.changes
    assert "line 2: `function` -> `function method`" in r.changes
    assert "line 10: `opaque function` -> `function {:opaque}`" in r.changes
    assert r.left_alone == ()


def test_dafny2_functions_stay_ghost_when_rewritten_to_dafny2() -> None:
    src = "function F(x: int): int { x }\nfunction method C(x: int): int { x }\npredicate P() { true }\n"
    assert to2(src) == src
    assert rewrite(src, Dialect.DAFNY2).changes == ()


def test_dafny2_functions_to_dafny4() -> None:
    src = """\
function F(x: int): int { x }
function method C(x: int): int { x }
predicate P() { true }
predicate method PM() { true }
static function S(): int { 1 }
twostate function T(): int { 1 }
inductive predicate I(x: int) { true }
copredicate CP(x: int) { true }
colemma CL(x: int) {}
"""
    r = rewrite(src, Dialect.DAFNY4)
    assert (
        r.text
        == """\
ghost function F(x: int): int { x }
function C(x: int): int { x }
ghost predicate P() { true }
predicate PM() { true }
static ghost function S(): int { 1 }
twostate function T(): int { 1 }
least predicate I(x: int) { true }
greatest predicate CP(x: int) { true }
greatest lemma CL(x: int) {}
"""
    )
    assert "line 2: `function method` -> `function`" in r.changes
    assert "line 1: `function` -> `ghost function`" in r.changes


def test_dafny4_source_to_dafny4_is_unchanged() -> None:
    r = rewrite(DAFNY4_FUNCTIONS, Dialect.DAFNY4)
    assert r.text == DAFNY4_FUNCTIONS and r.changes == ()


def test_by_method_is_removed_and_the_function_compiled() -> None:
    src = """\
function Fib(n: nat): nat
{
  if n < 2 then n else Fib(n - 1) + Fib(n - 2)
} by method {
  var a, b := 0, 1;
  for i := 0 to n { a, b := b, a + b; }
  return a;
}
method Main() { var x := Fib(3); }
"""
    r = rewrite(src, Dialect.DAFNY2)
    lines = r.text.split("\n")
    assert lines[0] == "function method Fib(n: nat): nat"
    assert lines[3] == "} "
    assert lines[4:8] == ["", "", "", ""]
    assert lines[8] == "method Main() { var x := Fib(3); }"
    assert any("by method" in c for c in r.changes)


def test_function_keywords_in_comments_strings_and_members_are_untouched() -> None:
    src = 'function method F(): int { 1 }\n// ghost function X\nmethod M(f: int -> int) { var s := "function"; }\n'
    assert to2(src) == src
    assert to4(src) == src.replace("function method F", "function F")


# -- for loops ------------------------------------------------------------------------------------------

FOR_TO = """\
method M(a: array<int>) returns (s: int)
{
  s := 0;
  for i := 0 to a.Length
    invariant s >= 0
  {
    s := s + 1;
  }
}
"""


def test_for_to_becomes_a_while_loop_in_a_block() -> None:
    r = rewrite(FOR_TO, Dialect.DAFNY2)
    assert (
        r.text
        == """\
method M(a: array<int>) returns (s: int)
{
  s := 0;
  { var i_lo := 0 ; var i := i_lo; var i_hi := a.Length; assert i_lo <= i_hi; \
while i < i_hi invariant i_lo <= i <= i_hi decreases i_hi - i
    invariant s >= 0
  {
    s := s + 1;
  i := i + 1; } }
}
"""
    )
    assert r.changes == ("line 4: `for i := ... to ...` -> `while` loop in a block",)


def test_for_downto_decrements_first() -> None:
    src = "method M(n: nat) {\n  for k := n downto 0 {\n    print k;\n  }\n}\n"
    assert to2(src) == (
        "method M(n: nat) {\n"
        "  { var k_hi := n ; var k := k_hi; var k_lo := 0; assert k_lo <= k_hi; "
        "while k_lo < k invariant k_lo <= k <= k_hi decreases k - k_lo { k := k - 1;\n"
        "    print k;\n"
        "  } }\n"
        "}\n"
    )


def test_for_with_typed_index_multiline_bounds_and_no_spec() -> None:
    src = "method M(s: seq<int>) {\n  for j: nat := |s| /\n      2 to |s| {\n  }\n}\n"
    out = to2(src)
    assert out.split("\n")[1] == "  { var j_lo := |s| /"
    assert out.split("\n")[2] == (
        "      2 ; var j: nat := j_lo; var j_hi := |s|; assert j_lo <= j_hi; "
        "while j < j_hi invariant j_lo <= j <= j_hi decreases j_hi - j {"
    )
    assert out.split("\n")[3] == "  j := j + 1; } }"


def test_for_without_bound_and_unused_index() -> None:
    src = "method M() decreases * {\n  for _ := 0 to * {\n  }\n  for x := 5 downto * decreases x {\n  }\n}\n"
    lines = to2(src).split("\n")
    assert lines[1] == (
        "  { var for_index_lo := 0 ; var for_index := for_index_lo; "
        "while true invariant for_index_lo <= for_index decreases * {"
    )
    assert lines[3] == ("  { var x_hi := 5 ; var x := x_hi; while true invariant x <= x_hi decreases x { x := x - 1;")


def test_fresh_names_avoid_existing_identifiers() -> None:
    src = "method M(i_lo: int) {\n  for i := 0 to 2 {}\n  for i := 0 to 2 {}\n}\n"
    out = to2(src)
    assert "var i_lo2 := 0" in out and "var i_lo3 := 0" in out and "var i_lo :=" not in out


def test_nested_for_loops_and_labels() -> None:
    src = """\
method M(n: nat) {
  label Outer:
  for i := 0 to n {
    for j := i to n
      invariant i <= j
    {
      if j == 3 { break; }
      if j == 4 { continue; }
      if j == 5 { continue Outer; }
    }
  }
}
"""
    r = rewrite(src, Dialect.DAFNY2)
    lines = r.text.split("\n")
    assert lines[2].endswith("decreases i_hi - i { label continue3: {")
    assert lines[5] == "    { label continue4: {"
    assert lines[6] == "      if j == 3 { break; }"
    assert lines[7] == "      if j == 4 { break continue4; }"
    assert lines[8] == "      if j == 5 { break continue3; }"
    assert lines[9] == "    } j := j + 1; } }"
    assert lines[10] == "  } i := i + 1; } }"
    assert r.left_alone == ()


def test_continue_in_while_loop() -> None:
    src = "method M(n: nat) {\n  var i := 0;\n  while i < n {\n    i := i + 1;\n    continue;\n  }\n}\n"
    assert to2(src) == (
        "method M(n: nat) {\n  var i := 0;\n  while i < n { label continue3: {\n    i := i + 1;\n"
        "    break continue3;\n  } }\n}\n"
    )


def test_constructs_left_alone_are_reported() -> None:
    src = (
        "method M(n: nat) {\n  for i := 0 to n {\n    for j := 0 to n {\n      break continue;\n    }\n  }\n"
        "  var s := seq(3, k => k);\n  var c := 'é';\n}\n"
    )
    r = rewrite(src, Dialect.DAFNY2)
    assert r.left_alone == (
        "line 4: `break continue` (left as is)",
        "line 8: non-ASCII character literal (left as is)",
    )
    assert "line 7: `seq(n, f)` -> `SeqInit_(n, f)`" in r.changes
    assert "break continue;" in r.text


def test_rewriting_twice_changes_nothing_more() -> None:
    once = to2(FOR_TO + DAFNY4_FUNCTIONS)
    twice = rewrite(once, Dialect.DAFNY2)
    assert twice.text == once and twice.changes == ()


def test_rewritten_text_still_parses_with_the_same_declaration_lines() -> None:
    src = FOR_TO + DAFNY4_FUNCTIONS
    before = [(d.name, d.line, d.end_line) for d in parse_file(src).decls]
    after = [(d.name, d.line, d.end_line) for d in parse_file(to2(src)).decls]
    assert before == after


# -- expect ---------------------------------------------------------------------------------------------


def test_expect_becomes_an_assumption() -> None:
    src = (
        'method M(x: int) {\n  expect x == 1;\n  expect x > 0, "positive";\n'
        '  expect f(x, 2) == [1, 2], @"two\nlines";\n  var r :- expect Get();\n}\n'
    )
    r = rewrite(src, Dialect.DAFNY2)
    assert r.text.split("\n") == [
        "method M(x: int) {",
        "  assume {:axiom} x == 1;",
        "  assume {:axiom} x > 0;",
        "  assume {:axiom} f(x, 2) == [1, 2]",
        ";",
        "  var r :- expect Get();",
        "}",
        "",
    ]
    assert r.left_alone == ("line 6: `:- expect` (left as is)",)


# -- the development dataset ---------------------------------------------------------------------------


@pytest.mark.dataset
def test_every_dataset_file_rewrites_line_for_line(dataset_root: Path) -> None:
    files = sorted(dataset_root.rglob("*.dfy"))
    assert files
    for path in files:
        src = path.read_text(encoding="utf-8")
        for target in Dialect:
            out = rewrite(src, target).text
            before = [(d.name, d.line, d.end_line) for d in parse_file(src, str(path)).decls]
            assert [(d.name, d.line, d.end_line) for d in parse_file(out, str(path)).decls] == before
        assert "for " not in rewrite(src, Dialect.DAFNY2).text.replace("forall", "")


# -- the real verifier -------------------------------------------------------------------------------

DAFNY4_PROGRAM = """\
ghost function Sum(s: seq<int>): int
{
  if |s| == 0 then 0 else Sum(s[..|s| - 1]) + s[|s| - 1]
}

function Double(x: int): int { 2 * x }

predicate IsPos(x: int) { x > 0 }

method Total(a: array<int>) returns (t: int)
  ensures t == Sum(a[..])
{
  t := 0;
  for i := 0 to a.Length
    invariant t == Sum(a[..i])
  {
    assert a[..i + 1][..i] == a[..i];
    t := t + a[i];
  }
  assert a[..a.Length] == a[..];
}

method CountDown(n: nat) returns (c: int)
  ensures c == n
{
  c := 0;
  for i := n downto 0
    invariant c == n - i
  {
    c := c + 1;
  }
}

method Positives(a: array<int>) returns (pos: int)
  ensures 0 <= pos <= a.Length
{
  pos := 0;
  for i := 0 to a.Length
    invariant 0 <= pos <= i
  {
    if !IsPos(a[i]) {
      continue;
    }
    pos := pos + 1;
  }
}

method Main() {
  var a := new int[] [1, 2, 3];
  var t := Total(a);
  expect t == 6, "sum";
  var d := Double(t);
  assert d == 12;
}
"""

WRONG_BOUNDS = """\
method Backwards(n: nat)
{
  for i := n to n - 1
  {
  }
}
"""


def run_dafny(dafny: str, tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [dafny, "/compile:0", "/nologo", "/timeLimit:60", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


MATCHES_AND_SEQS = """\
function Word(n: int): string
{
  match n
  case 0 => "zero"
  case -1 => "minus one"
  case _ => "many"
}
function Sign(n: int): int
{
  match n {
    case 0 => 0
    case k => if k > 0 then 1 else -1
  }
}
function Bit(b: bool): int { match b case true => 1 case false => 0 }
function Doubles(n: nat): seq<int>
{
  seq(n, i requires 0 <= i < n => i * 2)
}
module M {
  function Ones(n: nat): seq<int> { seq(n, _ => 1) }
  function Code(c: char): int { match c case 'a' => 1 case _ => 2 }
  lemma OnesAreOnes() ensures Ones(2) == [1, 1] { }
}
datatype Opt = None | Some(x: int)
function Get(o: Opt): int { match o case None => 0 case Some(x) => x }
lemma WordsAreWords(n: int) ensures Word(n) != ""
{
  match n {
    case 0 => assert Word(0) == "zero";
    case _ =>
  }
}
lemma Facts() ensures Word(-1) == "minus one" && Sign(-5) == -1 && Bit(false) == 0 && Doubles(3) == [0, 2, 4] { }
"""


def test_match_on_literals_becomes_an_if_chain() -> None:
    r = rewrite(MATCHES_AND_SEQS, Dialect.DAFNY2)
    lines = r.text.splitlines()
    assert len(lines) == len(MATCHES_AND_SEQS.splitlines())
    assert lines[2].strip() == "var match_ := n" and lines[3].strip() == '; if match_ == 0 then "zero"'
    assert lines[4].strip() == 'else if match_ == -1 then "minus one"' and lines[5].strip() == 'else  "many"'
    assert "(var match_2 := n ;" in lines[9] and "else var k := match_2;" in lines[11] and lines[12].strip() == ")"
    assert "if match_3 == true then 1  else  0" in lines[14]  # the last boolean is the rest
    assert "match o case None => 0 case Some(x) => x" in r.text  # a datatype match is Dafny 2.3's own
    assert "{ var match_5 := n ;" in lines[28] and "} else {" in r.text  # a statement match, braces and all
    assert sum("match on literals" in c for c in r.changes) == 5


def test_seq_constructor_becomes_a_helper_declared_once_per_module() -> None:
    r = rewrite(MATCHES_AND_SEQS, Dialect.DAFNY2)
    assert "SeqInit_(n, i requires 0 <= i < n => i * 2)" in r.text and "SeqInit_(n, _ => 1)" in r.text
    assert r.text.count("function method SeqInit_<T>") == 2  # top level, and inside module M (its last line)
    module_end = r.text.splitlines()[23]
    assert module_end.startswith("function method SeqInit_<T>") and module_end.endswith("}")
    assert rewrite(r.text, Dialect.DAFNY2).text == r.text  # nothing left to rewrite


STATEMENT_MATCHES = """\
method M1(x: int) returns (r: int) ensures r in {1, 2} { match x { case 0 => r := 1; case _ => r := 2; } }
method M2(x: int, y: int) { match x { case 0 => match y { case 1 => print 1; case _ => print 2; } case _ => print 3; } }
method M3(x: int) returns (r: int) { label L: match x { case 0 => r := 1; case _ => r := 2; } }
function Sq(i: nat): int { i * i }
function S1(n: nat): seq<int> { seq(n, Sq) }
function S2(n: nat): seq<int> { seq(n, i => Sq(i)) }
function S3(n: nat): seq<int> { seq(n, (i: nat) => i) }
lemma T() ensures S2(3) == [0, 1, 4] { }
"""


def test_statement_matches_behind_clauses_labels_and_cases_stay_statements() -> None:
    text = rewrite(STATEMENT_MATCHES, Dialect.DAFNY2).text
    assert "ensures r in {1, 2} { { var match_ := x ; if match_ == 0 { r := 1; } else { r := 2; } } }" in text
    assert "if match_2 == 0 { { var match_3 := y ; if match_3 == 1 { print 1; } else { print 2; } } }" in text
    assert "label L: { var match_4 := x ;" in text


def test_a_match_on_literals_without_a_rest_case_asserts_its_last_pattern() -> None:
    src = ("function F(x: int): int { match x case 0 => 10 case 1 => 20 }\n"
           "function G(x: int): int { match x case 0 => 1 }\n")
    r = rewrite(src, Dialect.DAFNY2)
    # not a bare `else 20`: the value must be 1 there, Dafny 4's exhaustiveness (tests/verifier/test_dafny4_layer.py)
    assert "if match_ == 0 then 10  else assert match_ == 1; 20" in r.text
    assert "var match_2 := x ; assert match_2 == 0; 1 }" in r.text and r.left_alone == ()


@pytest.mark.dafny
def test_statement_matches_and_nat_indexed_seqs_verify_with_dafny_2_3(dafny_command: str, tmp_path: Path) -> None:
    # `ghost function`: Dafny 4 syntax, so the file is read as Dafny 4 (`seq(n, f)` indexes are `nat` there)
    done = run_dafny(dafny_command, tmp_path, "s.dfy", to2(STATEMENT_MATCHES.replace("function ", "ghost function ")))
    assert done.returncode == 0 and "0 errors" in done.stdout, done.stdout


@pytest.mark.dafny
def test_rewritten_matches_and_seqs_verify_with_dafny_2_3(dafny_command: str, tmp_path: Path) -> None:
    done = run_dafny(dafny_command, tmp_path, "m.dfy", to2(MATCHES_AND_SEQS))
    assert done.returncode == 0 and "0 errors" in done.stdout, done.stdout


@pytest.mark.dafny
def test_rewritten_dafny4_program_verifies_with_dafny_2_3(dafny_command: str, tmp_path: Path) -> None:
    good = run_dafny(dafny_command, tmp_path, "good.dfy", to2(DAFNY4_PROGRAM))
    assert good.returncode == 0, good.stdout
    # Dafny 4 checks lo <= hi; the rewrite keeps that check, on the `for` line
    bad = run_dafny(dafny_command, tmp_path, "bad.dfy", to2(WRONG_BOUNDS))
    assert bad.returncode == 4, bad.stdout
    assert "bad.dfy(3," in bad.stdout and "assertion violation" in bad.stdout


def test_a_body_less_method_lends_no_body_to_the_next_declaration() -> None:
    """A method without a body, then a function with a `match` on literals: the function's body is no statement
    block of the method (it was, and the match was left as is, which Dafny 2.3 does not parse)."""
    src = ('method M(x: int) returns (r: int)\n  ensures r > x\nghost function F(n: int): string\n{\n'
           '  match n\n  case 0 => "zero"\n  case _ => "many"\n}\n')
    r = rewrite(src, Dialect.DAFNY2)
    assert "var match_ := n" in r.text and 'else  "many"' in r.text and r.left_alone == ()


def test_the_quick_look_for_seq_calls_misses_none_the_rewrite_finds() -> None:
    """expressions_to_2 skips the token-level rewrite of a generated program when `may_call_seq` says no `seq(n, f)`
    can be in it: on every .dfy file of tests/data and examples, and on each of their
    lines, a text it says no of is one whose rewrite changes no `seq(n, f)`."""
    roots = [DATA, ROOT / "examples"]
    texts = [p.read_text(encoding="utf-8", errors="replace") for root in roots for p in sorted(root.rglob("*.dfy"))]
    texts += [line for t in list(texts) for line in t.splitlines()]
    texts += ["var s := seq(3, i => i);", "var s := seq<int>(3, f);", "var s := seq < seq<int> > (2, f);",
              "ensures r == seq (n, i requires 0 <= i < n => 0)"]
    found = 0
    for text in texts:
        try:
            rewrite = to_dialect(text, Dialect.DAFNY2)
        except (LexError, UnreadableConstruct):
            continue
        calls = any("`seq(n, f)`" in c for c in rewrite.changes)
        found += calls
        assert may_call_seq(text) or not calls, text
    assert found >= 4  # the texts hold calls, so the check says something
