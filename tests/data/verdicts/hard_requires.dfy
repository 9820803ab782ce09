// The requires holds for the inputs, but proving it needs a witness: the case must not be
// reported as violating it.
method Pick(s: seq<int>) returns (r: int)
  requires exists i :: 0 <= i < |s| && s[i] > 100
  ensures r in s && r > 100
{
  var i :| 0 <= i < |s| && s[i] > 100;
  r := s[i];
}

method PickTest()
{
  var r := Pick([1, 5, 7, 250, 9]);
  assert r == 250;
  var q := Pick([1, 2, 3]);  // violates the requires: no element above 100
  assert q == 1;
}
