// Two requires clauses; the second rejects the inputs of the second test case (3 is odd): the case
// is precondition-violated, and the clause that rejects it is named.
method Half(x: int) returns (r: int)
  requires x >= 0
  requires x % 2 == 0
  ensures r * 2 == x
{
  r := x / 2;
}

method HalfTest()
{
  var a := Half(4);
  assert a == 2;
  var b := Half(3);
  assert b == 1;
}
