// Pinned up to order by its first clause alone; its last clause adds nothing to the pin.
method Shuffle(a: seq<int>) returns (r: seq<int>)
  ensures multiset(r) == multiset(a)
  ensures |r| == |a|
{
  r := a;
}

method ShuffleTest()
{
  var r := Shuffle([3, 1, 2, 7]);
  expect r == [3, 1, 2, 7];
}
