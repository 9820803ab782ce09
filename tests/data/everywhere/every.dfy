// Specs whose determinacy on every input is asked (tests/verifier/test_everywhere_real.py). The tests use
// inputs the weak specs get right: only a proof over every input tells them apart.
method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
{
  r := if x < 0 then -x else x;
}

method AbsFull(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == -x
{
  r := if x < 0 then -x else x;
}

method Half(x: int) returns (r: int)
  requires x % 2 == 0
  ensures r + r == x
{
  r := x / 2;
}

method Sorted(s: seq<int>) returns (r: seq<int>)
  ensures multiset(r) == multiset(s)
  ensures forall i, j :: 0 <= i < j < |r| ==> r[i] <= r[j]

method Dedup(s: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r <==> x in s
  ensures forall i, j :: 0 <= i < j < |r| ==> r[i] != r[j]

method Untested(x: int) returns (r: int)
  ensures r >= x

method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var b := Abs(5);
  expect b == 5;
  var c := AbsFull(3);
  expect c == 3;
  var h := Half(4);
  expect h == 2;
  var s := Sorted([3, 1, 2]);
  expect s == [1, 2, 3];
  var d := Dedup([1, 1, 2]);
  expect d == [1, 2];
}

// no test: an element of the array, any one (a witness needs an array input of two different elements)
method PickA(a: array<int>) returns (r: int)
  requires a.Length > 0
  ensures exists i :: 0 <= i < a.Length && a[i] == r

// no test: likewise of a sequence of strings
method PickS(s: seq<string>) returns (r: string)
  requires |s| > 0
  ensures r in s
