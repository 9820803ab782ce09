method MedianLength(a: int, b: int) returns (median: int)
  requires a > 0 && b > 0
  ensures median == (a + b) / 2
{
  median := (a + b) / 2;
}

method MedianLengthTest(){
  var res1:=MedianLength(15,25,35);
  assert res1==20;
}
