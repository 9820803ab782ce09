method Inc(x: int) returns (r: int)
  ensures r == x + 1
{ r := x + 1; }

// Five mutants near x + 1 are all rejected, yet the spec accepts x + 1000: only the solver finds it.
method IncOrFar(x: int) returns (r: int)
  ensures r == x + 1 || r == x + 1000
{ r := x + 1; }

method Tests()
{
  var a := Inc(3);
  assert a == 4;
  var b := IncOrFar(3);
  assert b == 4;
}
