// The largest element of a sequence (tests/verifier/test_spec_change_real.py: a witness needs a sequence input)
method MaxS(a: seq<int>) returns (m: int)
  requires |a| > 0
  ensures exists i :: 0 <= i < |a| && a[i] == m
  ensures forall i :: 0 <= i < |a| ==> a[i] <= m
{
  m := a[0];
  var k := 1;
  while k < |a|
    invariant 1 <= k <= |a|
    invariant exists i :: 0 <= i < k && a[i] == m
    invariant forall i :: 0 <= i < k ==> a[i] <= m
  {
    if a[k] > m { m := a[k]; }
    k := k + 1;
  }
}
