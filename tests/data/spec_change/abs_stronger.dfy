method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
  ensures x < 0 ==> r == -x
  ensures r >= 0 && r <= 100
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
