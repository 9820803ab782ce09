// A count defined on prefixes: proving it on a concrete array needs one unfolding per element.
function countTo(a: array<bool>, n: int): int
  requires 0 <= n <= a.Length
  reads a
  decreases n
{
  if n == 0 then 0 else countTo(a, n - 1) + (if a[n - 1] then 1 else 0)
}

method CountTrue(a: array<bool>) returns (result: int)
  ensures result == countTo(a, a.Length)

method Tests()
{
  var a1 := new bool[] [true, false, true, true, false, true];
  var r1 := CountTrue(a1);
  expect r1 == 4;
}
