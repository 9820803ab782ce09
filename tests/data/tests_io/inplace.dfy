method MoveZeroesToEnd(arr: array<int>)
  modifies arr
  ensures multiset(arr[..]) == multiset(old(arr[..]))
{
}

method assertArrayEquals(a1: array<int>, a2: array<int>) returns (res: bool)
{
  res := a1[..] == a2[..];
}

method PrintArray(a: array<int>)
{
  print a[..];
}

method MoveZeroesToEndTest()
{
  var a1 := new int[] [1, 0, 2];
  MoveZeroesToEnd(a1);
  assert a1[..] == [1, 2, 0];
  var a2 := new int[] [0, 3];
  MoveZeroesToEnd(a2);
  PrintArray(a2);
  //expected [3, 0];
  var a3 := new int[] [0, 0, 4];
  MoveZeroesToEnd(a3);
  var exp3 := new int[] [4, 0, 0];
  var ok := assertArrayEquals(exp3, a3);
  expect ok == true;
  var a4 := new int[] [0, 5];
  MoveZeroesToEnd(a4);
  MoveZeroesToEnd(a4);
  expect a4[..] == [5, 0];
}
