// A helper trusted without a check: determinacy is not asked on such a background.
function {:axiom} Twice(x: int): int
  ensures Twice(x) == x + x

method Double(x: int) returns (r: int)
  ensures r == Twice(x)
{
  r := x + x;
}

method Tests()
{
  var r := Double(2);
  expect r == 4;
}
