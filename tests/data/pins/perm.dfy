// Any order of the input's elements: pinned up to order, not exactly.
method Perm(a: seq<int>) returns (r: seq<int>)
  ensures multiset(r) == multiset(a)
{
  r := a;
}

method PermTest()
{
  var r := Perm([3, 1, 2, 7]);
  expect r == [3, 1, 2, 7];
}
