// A recursive spec function whose precondition a careless hint would break (start > 0).
function SumTo(a: array<int>, start: int, end: int): int
  requires 0 <= start <= end <= a.Length
  reads a
{
  if start == end then 0 else SumTo(a, start, end - 1) + a[end - 1]
}

method SumRange(a: array<int>, start: int, end: int) returns (s: int)
  requires 0 <= start <= end <= a.Length
  ensures s == SumTo(a, start, end)
{
  s := 0;
  var i := start;
  while i < end
    invariant start <= i <= end
    invariant s == SumTo(a, start, i)
  {
    s := s + a[i];
    i := i + 1;
  }
}

method SumRangeTest()
{
  var a := new int[] [4, 7, 1, 9, 3, 8];
  var s1 := SumRange(a, 2, 6);
  assert s1 == 21;
  var s2 := SumRange(a, 1, 4);
  assert s2 == 18;  // wrong: 7 + 1 + 9 = 17
}
