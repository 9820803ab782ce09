// Not pinned (a far output of length 40 is accepted too), and every mutant is rejected. The hints mention
// `r[2]`, past the end of the shorter mutants: the one program rejecting them all must not check that.
method Next(a: seq<int>) returns (r: seq<int>)
  requires |a| == 3
  ensures |r| == |a| || |r| == 40
  ensures |r| == |a| ==> exists i :: 0 <= i < |a| && r[i] == a[i] + 1
  ensures |r| == |a| ==> forall i :: 0 <= i < |a| ==> r[i] == a[i] + 1

method NextTest()
{
  var r := Next([1, 2, 3]);
  expect r == [2, 3, 4];
}
