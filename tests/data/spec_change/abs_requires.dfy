method Abs(x: int) returns (r: int)
  requires x > -10
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == -x
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
