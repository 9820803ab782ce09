// One weak spec per suggestion template, each with tests whose expected outputs the spec accepts.

// iff: a boolean result stated with one implication
method HasZero(s: seq<int>) returns (r: bool)
  ensures r ==> exists i :: 0 <= i < |s| && s[i] == 0
{
  r := 0 in s;
}

// length: each element is stated, the length is not
method Doubled(s: seq<int>) returns (r: seq<int>)
  ensures forall i :: 0 <= i < |r| && i < |s| ==> r[i] == 2 * s[i]
{
  r := seq(|s|, i requires 0 <= i < |s| => 2 * s[i]);
}

// tight-bound: an upper bound the tests always meet with equality
method Sum(a: int, b: int) returns (r: int)
  ensures r <= a + b
{
  r := a + b;
}

// equals-input: the result is one of the inputs, and nothing says which
method Second(a: int, b: int) returns (r: int)
  ensures r >= a || r >= b
{
  r := b;
}

// distinct: the elements are stated, not that each is there once
method Unique(s: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r <==> x in s

// none: no candidate is true on every test (the result is twice the input)
method Twice(x: int) returns (r: int)
  requires x >= 0
  ensures r >= x
{
  r := 2 * x;
}

method Tests()
{
  var h1 := HasZero([1, 0, 2]);
  expect h1 == true;
  var h2 := HasZero([1, 2]);
  expect h2 == false;
  var d1 := Doubled([1, 2]);
  expect d1 == [2, 4];
  var d2 := Doubled([5]);
  expect d2 == [10];
  var s1 := Sum(2, 3);
  expect s1 == 5;
  var s2 := Sum(-1, 7);
  expect s2 == 6;
  var e1 := Second(4, 9);
  expect e1 == 9;
  var e2 := Second(8, 1);
  expect e2 == 1;
  var u1 := Unique([1, 2, 1]);
  expect u1 == [1, 2];
  var u2 := Unique([3]);
  expect u2 == [3];
  var t1 := Twice(3);
  expect t1 == 6;
  var t2 := Twice(10);
  expect t2 == 20;
}
