// Pin programs with datatype outputs whose counterexample models are saved next to this file (see README.md).
datatype Option<T> = None | Some(value: T)
datatype Color = Red | Green | Blue
datatype Pair = Pair(0: int, b: bool)
datatype APair = APair(int, bool)
datatype List = Nil | Cons(head: int, tail: List)
datatype Res<T, E> = Ok(T) | Err(err: E)

method SpecScore_option(x: int) returns (r: Option<int>)
  ensures r == None
{
  assume {:axiom} x == 3;
  assume {:axiom} r.Some? && r.value == x + 1;
  assert true;
}

method SpecScore_optstr(s: string) returns (r: Option<string>)
  ensures r == None
{
  assume {:axiom} s == "ab";
  assume {:axiom} r.Some? && r.value == s;
  assert true;
}

method SpecScore_color(x: int) returns (r: Color)
  ensures r == Red
{
  assume {:axiom} x == 3;
  assume {:axiom} r != Red && r != Blue;
  assert true;
}

method SpecScore_list(x: int) returns (r: List)
  ensures r == Nil
{
  assume {:axiom} x == 3;
  assume {:axiom} r.Cons? && r.head == 1 && r.tail.Cons? && r.tail.head == 2 && r.tail.tail.Nil?;
  assert true;
}

method SpecScore_res(s: string) returns (r: Res<int, string>)
  ensures r == Ok(3)
{
  assume {:axiom} s == "no";
  assume {:axiom} r.Err? && r.err == s;
  assert true;
}

method SpecScore_seqopt(x: int) returns (r: seq<Option<int>>)
  ensures r == []
{
  assume {:axiom} x == 3;
  assume {:axiom} |r| == 2 && r[0].Some? && r[0].value == x && r[1].None?;
  assert true;
}

method SpecScore_none(x: int) returns (r: Option<int>)
  ensures r == Some(x)
{
  assume {:axiom} x == 3;
  assume {:axiom} r.None?;
  assert true;
}

method SpecScore_pair(x: int) returns (r: Pair)
  ensures r == Pair(1, true)
{
  assume {:axiom} x == 3;
  assume {:axiom} r.0 == x && !r.b;
  assert true;
}

method SpecScore_apair(x: int) returns (r: APair)
  ensures r == APair(1, true)
{
  assume {:axiom} x == 3;
  assume {:axiom} r == APair(x, false);
  assert true;
}
