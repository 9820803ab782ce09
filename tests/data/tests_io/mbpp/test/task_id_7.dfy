method Last(arr: array<int>, x: int, n: int) returns (pos: int)
  ensures pos < arr.Length
{
  pos := -1;
}

method LastTest()
{
  var a1 := new int[] [1, 2, 3];
  var out1 := Last(a1, 1, 3);
  expect out1 == 0;
  var out2 := Last(new int[] [1, 1, 1, 2], 1, 4);
  //assert out2 == 2;
}

method Main()
{
  LastTest();
}
