// A per-element bitvector spec: the quantifier is proved by cases over the concrete range.
method BitwiseXOR(a: seq<bv32>, b: seq<bv32>) returns (result: seq<bv32>)
  requires |a| == |b|
  ensures |result| == |a|
  ensures forall i :: 0 <= i < |result| ==> result[i] == a[i] ^ b[i]

method Tests()
{
  var r := BitwiseXOR([10, 4, 6, 9], [5, 2, 3, 3]);
  expect r == [15, 6, 5, 10];
}
