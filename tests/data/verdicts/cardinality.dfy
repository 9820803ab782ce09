// Set-comprehension cardinality: the verifier needs the set's value as a ground fact, both to accept
// the right count and to prove that a wrong count is rejected.
method CountIdentical(a: seq<int>, b: seq<int>, c: seq<int>) returns (count: int)
  requires |a| == |b| && |b| == |c|
  ensures count >= 0
  ensures count == |set i: int | 0 <= i < |a| && a[i] == b[i] && b[i] == c[i]|
{
  var s := set i: int | 0 <= i < |a| && a[i] == b[i] && b[i] == c[i];
  count := |s|;
}

predicate IsUpper(c: char)
{
  'A' <= c <= 'Z'
}

method CountUpper(s: string) returns (count: int)
  ensures count == |set i: int | 0 <= i < |s| && IsUpper(s[i])|
{
  count := |set i: int | 0 <= i < |s| && IsUpper(s[i])|;
}

method CardinalityTest()
{
  var r1 := CountIdentical([5, 1, 9, 9, 2], [5, 3, 9, 9, 7], [5, 1, 9, 0, 2]);
  assert r1 == 2;
  var r2 := CountIdentical([5, 1, 9, 9, 2], [5, 3, 9, 9, 7], [5, 1, 9, 0, 2]);
  assert r2 == 3;  // wrong: two positions agree
  var u1 := CountUpper("PyThOn");
  assert u1 == 3;
  var u2 := CountUpper("PyThOn");
  assert u2 == 4;  // wrong
}
