// Pin programs whose counterexample models are saved next to this file (see README.md).
method SpecScore_int(x: int) returns (r: int)
  ensures r == 4
{
  assume {:axiom} x == 3;
  assume {:axiom} r == x + 1 || r == x + 1000;
  assert true;
}

method SpecScore_proved(x: int) returns (r: int)
  ensures r == 4
{
  assume {:axiom} x == 3;
  assume {:axiom} r == x + 1;
  assert true;
}

method SpecScore_bool(x: int) returns (b: bool)
  ensures b == true
{
  assume {:axiom} x == 3;
  assume {:axiom} b ==> x > 0;
  assert true;
}

method SpecScore_char(s: string) returns (c: char)
  ensures c == 'a'
{
  assume {:axiom} s == "abc";
  assume {:axiom} c in s;
  assert true;
}

method SpecScore_seq(a: seq<int>) returns (result: seq<int>)
  ensures result == [3, 4]
{
  assume {:axiom} a == [3, 4, 5];
  assume {:axiom} forall x :: x in result ==> x in a;
  assert true;
}

method SpecScore_seq2(a: seq<int>) returns (result: seq<int>)
  ensures result == [3, 4]
{
  assume {:axiom} a == [3, 4, 5];
  assume {:axiom} |result| == 2 && forall i :: 0 <= i < |result| ==> result[i] in a;
  assert true;
}

method SpecScore_string(s: string) returns (t: string)
  ensures t == "ab"
{
  assume {:axiom} s == "abc";
  assume {:axiom} |t| == 2 && forall i :: 0 <= i < |t| ==> t[i] in s;
  assert true;
}

method SpecScore_two(x: int) returns (a: int, b: int)
  ensures a == 1 && b == 2
{
  assume {:axiom} x == 3;
  assume {:axiom} a + b == x;
  assert true;
}

method SpecScore_both(x: int) returns (a: int, b: int)
  ensures a == 1 && b == 2
{
  assume {:axiom} x == 3;
  assume {:axiom} a + b == x && a > 5;
  assert true;
}

method SpecScore_timeout(x: bv64, y: bv64)
  requires 1 < x < 0x1_0000_0000 && 1 < y < 0x1_0000_0000
{
  assert x * y != 0x3fff_fff6_0000_0013;
}

method SpecScore_real(x: real) returns (r: real)
  ensures r == 4.0
{
  assume {:axiom} x == 3.0;
  assume {:axiom} r == x + 1.0 || r == x / 7.0 || r == -x / 7.0;
  assume {:axiom} r != x / 7.0;
  assert true;
}

method SpecScore_neg(x: int) returns (r: int)
  ensures r == 4
{
  assume {:axiom} x == -3;
  assume {:axiom} r == x + 7 || r == x - 1000;
  assert true;
}

method SpecScore_tuple(x: int) returns (r: (int, bool))
  ensures r == (1, true)
{
  assume {:axiom} x == 3;
  assume {:axiom} r.0 < x;
  assert true;
}

method SpecScore_bv(x: bv8) returns (r: bv8)
  ensures r == 4
{
  assume {:axiom} x == 3;
  assume {:axiom} r == x + 1 || r == x + 100;
  assert true;
}

method SpecScore_array(a: array<int>) returns (r: array<int>)
  ensures r.Length == 3 && r[..] == [1, 2, 3]
{
  assume {:axiom} a.Length == 3 && a[0] == 1 && a[1] == 2 && a[2] == 3;
  assume {:axiom} r.Length == 3 && r[0] == 7 && r[1] == 2 && r[2] > 10;
  assert true;
}

method SpecScore_inplace_Havoc(a: array<int>) modifies a
method SpecScore_inplace(a: array<int>)
  modifies a
  ensures a.Length == 3 && a[..] == [1, 2, 3]
{
  assume {:axiom} a.Length == 3 && a[0] == 3 && a[1] == 2 && a[2] == 1;
  SpecScore_inplace_Havoc(a);
  assume {:axiom} forall i :: 0 <= i < a.Length ==> a[i] in old(a[..]);
  assert true;
}

method SpecScore_bools(x: int) returns (r: seq<bool>)
  ensures r == [true, false]
{
  assume {:axiom} x == 3;
  assume {:axiom} |r| == 2;
  assert true;
}

method SpecScore_nested(x: int) returns (r: seq<seq<int>>)
  ensures r == [[1], [2, 3]]
{
  assume {:axiom} x == 3;
  assume {:axiom} |r| == 2 && |r[0]| == 1 && |r[1]| == 2 && r[1][1] == x;
  assert true;
}
