"""The questions asked again with short, spelled-out arrays and sequences (bot/symbolic/bounded.py): what they add
to a question, and the values read back from real Dafny 2.3 models of them (tests/data/models/short.*)."""

from __future__ import annotations

from bot.dafny.decls import Decl
from bot.dafny.dialect import Dialect
from bot.dafny.parser import parse_file
from bot.dafny.types import ArrayT, IntT, SeqT, StringT
from bot.dafny.values import ArrayV, CharV, IntV, SeqV
from bot.symbolic import bounded
from bot.symbolic.everywhere import Goal, program, variables
from bot.symbolic.modeltext import split_models
from bot.symbolic.spec_change import Direction
from bot.symbolic.spec_change import program as change_program
from bot.symbolic.spec_change import variables as change_variables
from support.paths import DATA

SPECS = """
method PickA(a: array<int>) returns (r: int)
  requires a.Length > 0
  ensures exists i :: 0 <= i < a.Length && a[i] == r

method PickS(s: seq<string>) returns (r: string)
  requires |s| > 0
  ensures r in s

method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
"""
FILE = parse_file(SPECS, "specs.dfy")
MODELS = split_models((DATA / "models" / "short.model.txt").read_text(encoding="utf-8"))


def _method(name: str) -> Decl:
    m = FILE.find(name)
    assert m is not None
    return m


def test_a_short_question_spells_out_each_array_and_sequence_and_asks_the_same_claim() -> None:
    pick = _method("PickA")
    plain = program("", pick, Goal.EXACT, Dialect.DAFNY2).method
    short = program("", pick, Goal.EXACT, Dialect.DAFNY2, small=True).method
    assert "requires a.Length == SpecScore_len_v0 && 0 <= SpecScore_len_v0 <= 5" in short
    assert "requires SpecScore_len_v0 > 4 ==> a[4] == SpecScore_v0_4" in short
    assert "SpecScore_v0_4: int" in short and "SpecScore_v0_5" not in short
    # the outputs are plain ints: nothing of theirs is spelled; the claim is the first question's
    assert "SpecScore_len_v1" not in short
    assert plain.splitlines()[-4] == short.splitlines()[-4]  # `ensures SpecScore_o1_r == SpecScore_o2_r`
    assert program("", pick, Goal.EXACT, Dialect.DAFNY2).name != program("", pick, Goal.EXACT, Dialect.DAFNY2,
                                                                         small=True).name
    # a sequence of strings: its elements' characters too, and each string output
    text = program("", _method("PickS"), Goal.EXACT, Dialect.DAFNY2, small=True).method
    assert "requires |SpecScore_v0_2| == SpecScore_len_v0_2 && 0 <= SpecScore_len_v0_2 <= 5" in text
    assert "SpecScore_v0_2_4: int" in text and "SpecScore_v0_2_4_" not in text  # two levels, no more
    assert "requires SpecScore_len_v0_2 > 4 ==> 0 <= SpecScore_v0_2_4 < 55296 && SpecScore_v0_2[4] == " \
           "SpecScore_v0_2_4 as char" in text  # a character by its code
    assert "requires SpecScore_len_v2 > 0 ==> 0 <= SpecScore_v2_0 < 55296 && SpecScore_o2_r[0] == SpecScore_v2_0 " \
           "as char" in text
    assert not bounded.applies(variables(_method("Abs")))


def test_a_spec_change_question_spells_out_its_inputs_and_its_output() -> None:
    pick = _method("PickS")
    assert change_variables(pick, Direction.HEAD_INPUTS_WITHIN_BASE) == [("s", SeqT(StringT()))]
    text = change_program("", pick, Direction.HEAD_WITHIN_BASE, Dialect.DAFNY2, small=True).method
    assert "requires |r| == SpecScore_len_v1 && 0 <= SpecScore_len_v1 <= 5" in text
    assert text.index("requires |s| == SpecScore_len_v0") < text.index("requires SpecScore_Base.SpecScore_Pre(s)")


def test_an_array_input_is_read_from_its_spelled_parameters() -> None:
    # the model of PickA's short question: a.Length == 2, a[0] == 14, a[1] == 21, outputs 14 and 21
    names = variables(_method("PickA"))
    assert names == [("a", ArrayT(IntT())), ("SpecScore_o1_r", IntT()), ("SpecScore_o2_r", IntT())]
    assert bounded.read(MODELS[0], names) == [(ArrayV((IntV(14), IntV(21))), IntV(14), IntV(21))]


def test_a_sequence_of_strings_and_string_outputs_are_read_two_levels_down() -> None:
    # each character spelled as its code (an int the model gives as it is; a char's code it leaves arbitrary)
    empty, one, other = SeqV(()), SeqV((CharV(chr(46440)),)), SeqV((CharV(chr(11797)),))
    assert bounded.read(MODELS[1], variables(_method("PickS"))) == [(SeqV((empty, one)), empty, one)]
    assert bounded.read(MODELS[2], variables(_method("PickS"))) == [(SeqV((other, one)), one, other)]


def test_no_reading_where_a_length_is_out_of_bounds_or_an_element_is_missing() -> None:
    names = variables(_method("PickA"))
    long = MODELS[0].replace("SpecScore_len_v0#0 -> 2", "SpecScore_len_v0#0 -> 6")
    assert long != MODELS[0] and bounded.read(long, names) == []
    negative = MODELS[0].replace("SpecScore_len_v0#0 -> 2", "SpecScore_len_v0#0 -> (- 1)")
    assert bounded.read(negative, names) == []
    gone = "\n".join(line for line in MODELS[0].splitlines() if not line.startswith("SpecScore_v0_1#0"))
    assert bounded.read(gone, names) == []
    # the elements past the length are never read: a model that leaves them out still gives the value
    past = "\n".join(line for line in MODELS[0].splitlines() if not line.startswith("SpecScore_v0_4#0"))
    assert bounded.read(past, names) == bounded.read(MODELS[0], names)
