// Proving this needs factoring a 64-bit number: far beyond a short time limit.
method NoSmallFactors(n: bv64) returns (r: bool)
  ensures r ==> forall x: bv64, y: bv64 :: 1 < x < 0x1_0000_0000 && 1 < y < 0x1_0000_0000 ==> x * y != n

method Tests()
{
  var r := NoSmallFactors(0x3fff_fff6_0000_0013);
  expect r == true;
}
