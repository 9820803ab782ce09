// A test that checks one of two outputs: `s` is unchecked, and the witness found for it is a non-empty
// sequence. The mutants of `k` are rejected whatever `s` is: no rejection program may state `s`'s witness.
method Count(a: seq<int>) returns (s: seq<int>, k: int)
  ensures multiset(s) == multiset(a)
  ensures k == |a| || k == 100

method CountTest()
{
  var s, k := Count([3, 1, 2]);
  expect k == 3;
}
