"""The Dafny 4 layer on whole files: `match` forms and `seq(n, f)` through every program the tool builds, checked with
the real Dafny 2.3; and, when a copy of the HumanEval-Dafny suite is given, every spec file of it through the rewrite
and Dafny 2.3's resolver."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.dafny.dialect import Dialect, expressions_to_2, to_dialect
from bot.dafny.parser import parse_file
from bot.symbolic.harness.programs import make_prelude

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "dafny4"
# a checkout of https://github.com/JetBrains-Research/HumanEval-Dafny (its spec files at the top level)
HUMANEVAL_ENV = "DAFNY_SPEC_SCORE_HUMANEVAL"


def _resolve(
    dafny: str, tmp_path: Path, name: str, text: str, verify: bool = False
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    flags = ["/compile:0", "/nologo", "/timeLimit:60", *(() if verify else ("/noVerify",))]
    return subprocess.run([dafny, *flags, str(path)], capture_output=True, text=True, timeout=600, check=False)


def _errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if re.search(r"\(\d+,\d+\): Error", line)]


# -- seq(n, f) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["} // pure-end", "}\n// pure-end", "}\n// pure-end\n", "}", "}\n\n/* done */"])
def test_seq_declaration_is_never_commented_out_by_the_files_end(ending: str) -> None:
    src = "ghost function S(n: nat): seq<int> {\n  seq(n, i => i)\n" + ending
    text = to_dialect(src, Dialect.DAFNY2).text
    code = [line.split("//")[0] for line in text.splitlines()]
    assert sum("function method SeqInit_<T>" in line for line in code) == 1, text
    assert text.count("\n") == src.count("\n")


def test_programs_verified_side_by_side_each_declare_their_own_seq_function() -> None:
    prelude = "function method SeqInit_<T>(n: nat, f: nat ~> T): seq<T>\n"
    one = expressions_to_2("method A() ensures seq(2, i => i) == [0, 1] {}", prelude, seq_name="A_SeqInit")
    two = expressions_to_2("method B() ensures seq(2, i => i) == [0, 1] {}", prelude, seq_name="B_SeqInit")
    assert "function method A_SeqInit<T>" in one and "function method B_SeqInit<T>" in two
    assert "SeqInit_(" not in one + two  # never the prelude's name: no program leans on another's declaration


@pytest.mark.dafny
def test_seq_in_a_file_ending_in_a_comment_without_a_newline_resolves(dafny_command: str, tmp_path: Path) -> None:
    src = ("ghost function Sq(n: nat): seq<int> { seq(n, i => i * i) }\n"
           "lemma L() ensures Sq(3) == [0, 1, 4] {}\n// the end")
    done = _resolve(dafny_command, tmp_path, "s.dfy", to_dialect(src, Dialect.DAFNY2).text, verify=True)
    assert done.returncode == 0 and "0 errors" in done.stdout, done.stdout


# -- match -----------------------------------------------------------------------------------------


def test_a_match_statement_without_braces_runs_to_the_end_of_its_block() -> None:
    src = ("lemma L(x: int) {\n  match x\n  case 0 =>\n    assert x == 0;\n  case _ =>\n    assert x != 0;\n}\n"
           "method M(x: int) ensures true { if x > 0 { match x case 1 => print 1; case _ => print 2; } }\n")
    text = to_dialect(src, Dialect.DAFNY2).text
    assert "{ var match_ := x" in text and "} else {" in text and text.splitlines()[6] == "} } }"
    assert "{ var match_2 := x ; if match_2 == 1 { print 1; } else { print 2; } } } }" in text


def test_constructor_matches_with_a_rest_case_test_constructors() -> None:
    src = ("datatype S = C(r: int) | R(w: int, h: int) | D\n"
           "function A(s: S): int { match s case R(w, h) => w * h case D | C(_) => 0 }\n"
           "function B(s: S): int { match s case D => 0 case other => 1 }\n"
           "function N(s: S): int { match s case C(x) => x case R(_, _) => 1 case D => 0 }\n")
    text = to_dialect(src, Dialect.DAFNY2).text
    assert "if match_.R? then (match match_ case R(w, h) => w * h ) else assert match_.D? || match_.C?; 0" in text
    assert "if match_2.D? then 0  else var other := match_2; 1" in text
    assert "match s case C(x) => x case R(_, _) => 1 case D => 0" in text  # Dafny 2.3's own: left to it


def test_forms_the_rewrite_does_not_take_are_named() -> None:
    src = ("datatype O = N | S(v: int)\n"
           "function F(o: O): int { match o case S(0) => 1 case _ => 2 }\n"
           "function G(p: (int, int)): int { match p case (0, y) => y case (x, y) => x }\n")
    r = to_dialect(src, Dialect.DAFNY2)
    assert r.text == src
    assert [note.split(":")[0] for note in r.left_alone] == ["line 2", "line 3"]
    assert all("a literal inside a constructor or tuple pattern" in note for note in r.left_alone)


MATCH_FORMS = """\
datatype O = N | S(v: int) | T(a: O, b: O)
ghost function Lit(x: int): int requires 0 <= x <= 2 { match x case 0 => 10 case 1 | 2 => 20 }
ghost function Str(s: string): int { match s { case "a" => 1 case "b" => 2 case _ => 0 } }
ghost function Ctor(o: O): int { match o case S(x) => x case _ => 0 }
ghost function Nest(o: O): int {
  match o case N => 0 case S(x) => x case T(N, _) => 1 case T(S(_), _) => 2 case T(T(_, _), _) => 3 }
lemma Facts()
  ensures Lit(2) == 20 && Str("b") == 2 && Str("c") == 0 && Ctor(S(3)) == 3 && Ctor(N) == 0 && Nest(T(S(1), N)) == 2
{
  var o := S(4);
  match o {
    case S(x) => assert x == 4;
    case _ => assert false;
  }
}
"""


@pytest.mark.dafny
def test_rewritten_match_forms_keep_their_meaning_in_dafny_2_3(dafny_command: str, tmp_path: Path) -> None:
    text = to_dialect(MATCH_FORMS, Dialect.DAFNY2).text
    done = _resolve(dafny_command, tmp_path, "m.dfy", text, verify=True)
    assert done.returncode == 0 and "0 errors" in done.stdout, (text, done.stdout)
    # a literal match that covers fewer values than its argument may take is Dafny 4's exhaustiveness obligation
    wrong = text.replace("requires 0 <= x <= 2", "requires 0 <= x <= 3")
    bad = _resolve(dafny_command, tmp_path, "bad.dfy", wrong, verify=True)
    assert bad.returncode == 4 and "bad.dfy(2," in bad.stdout, bad.stdout


# -- subset types of sequences -----------------------------------------------------------------------


def test_a_let_of_a_subset_typed_sequence_is_given_its_base_type() -> None:
    """Dafny 2.3 infers `stringNat` for `var s := natToString(a)` and then refuses `s[i]` ("element selection
    requires a sequence ... (got stringNat)"); the base type declared, it indexes s as Dafny 4 does."""
    src = ("type stringNat = s: string | |s| > 0 witness \"1\"\n"
           "function natToString(n: nat): stringNat { \"1\" }\n"
           "method M(a: nat) returns (c: char)\n  ensures var s := natToString(a); c == s[0]\n"
           "  ensures var t := other(a); true\n")
    text = to_dialect(src, Dialect.DAFNY2).text
    assert "ensures var s: string := natToString(a); c == s[0]" in text
    assert "var t := other(a)" in text and text.count("\n") == src.count("\n")
    # a program's copy of the clause, rewritten against the prelude it is appended to
    clause = expressions_to_2("method H(a: nat) ensures var s := natToString(a); s[0] == '1' {}", src)
    assert "var s: string := natToString(a)" in clause
    assert expressions_to_2("method H() ensures var s := f(1); true {}", src) == \
        "method H() ensures var s := f(1); true {}"


# -- end to end ------------------------------------------------------------------------------------


@pytest.mark.dafny
def test_the_dafny4_sample_scores_end_to_end(dafny_command: str, tmp_path: Path) -> None:
    """Each construct of tests/data/dafny4/matches.dfy (a file ending in a comment, without a newline) reaches the
    acceptance, rejection, pin and background programs: every method is decided, and the wrong spec is refuted."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", "score", str(SAMPLE / "matches.dfy"), "--tests", str(SAMPLE / "matches_test.dfy"),
         "--format", "json", "--report-only", "--mutants", "2", "--no-suggest", "--dafny", dafny_command,
         "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode == 0, done.stderr
    methods = {m["method"]: m for m in json.loads(done.stdout)["methods"]}
    assert set(methods) == {"NameOf", "DigitOf", "IndexOf", "AreaOf", "InnerOf", "SignOf", "RootOf", "SquaresUpTo",
                            "FirstMark", "Wrong"}
    for name, m in methods.items():
        assert m["background"]["status"] == "verified", (name, m["background"])
        statuses = {c["status"] for c in m["cases"]}
        assert statuses == ({"refuted"} if name == "Wrong" else {"verified"}), (name, m["cases"])
        if name != "Wrong":
            assert m["correctness"] == 1.0 and m["mutant_counts"]["survived"] == 0, (name, m)


# -- the published suite ----------------------------------------------------------------------------


def _humaneval() -> Path:
    where = os.environ.get(HUMANEVAL_ENV, "")
    if not where:
        pytest.skip(f"{HUMANEVAL_ENV} is not set (a checkout of HumanEval-Dafny; not kept in this repository)")
    root = Path(where)
    if not root.is_dir() or not list(root.glob("*.dfy")):
        pytest.skip(f"{HUMANEVAL_ENV}={where} holds no .dfy files")
    return root


@pytest.mark.dafny
def test_every_humaneval_spec_file_resolves_after_the_rewrite(dafny_command: str, tmp_path: Path) -> None:
    """Each spec file as the background check gives it to Dafny 2.3 (bodies of methods removed, lemmas kept):
    no error the rewrite introduced: none on a line it changed, none naming what it generated, no `match` it left."""
    root = _humaneval()
    introduced: dict[str, list[str]] = {}
    for path in sorted(root.glob("*.dfy")):
        file = parse_file(path.read_text(encoding="utf-8"), str(path))
        text = make_prelude(file, Dialect.DAFNY2, keep_proofs=True)
        changed = {int(c.split(":")[0].removeprefix("line ")) for c in to_dialect(file.source, Dialect.DAFNY2).changes}
        done = _resolve(dafny_command, tmp_path, "f.dfy", text)
        mine = [e for e in _errors(done)
                if int(re.search(r"\((\d+),", e).group(1)) in changed  # type: ignore[union-attr]
                or re.search(r"SeqInit_|match_|CaseExpression|CasePattern", e)]
        if mine:
            introduced[path.name] = mine
    assert introduced == {}
