function Magnitude(x: int): int { if x < 0 then -x else x }

method Abs(x: int) returns (r: int)
  ensures r == Magnitude(x)
{
  r := if x < 0 then -x else x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var b := Abs(5);
  expect b == 5;
}
