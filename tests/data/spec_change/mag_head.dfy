function Mag(x: int): int { if x < 0 then 0 else x }

method Abs(x: int) returns (r: int)
  ensures r == Mag(x) || (x < -1000 && r >= 0)
{
  r := if x < 0 then -x else x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
}
