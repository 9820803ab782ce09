method Swap(arr: array<int>, i: int, j: int)
  requires 0 <= i < arr.Length && 0 <= j < arr.Length
  modifies arr
{
  arr[i], arr[j] := arr[j], arr[i];
}

method Last(arr: array<int>, x: int, n: int) returns (pos: int)
  ensures pos < arr.Length
{
  pos := -1;
  Swap(arr, 0, 0);
}
