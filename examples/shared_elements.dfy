// Elements shared by two arrays. The spec says every result element is in both arrays and the
// elements are distinct, but not that every shared element is in the result: a weak spec.
predicate InArray(a: array<int>, x: int)
  reads a
{
  exists i :: 0 <= i < a.Length && a[i] == x
}

method SharedElements(a: array<int>, b: array<int>) returns (result: seq<int>)
  ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))
  ensures forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
{
  result := [];
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall x :: x in result ==> InArray(a, x) && InArray(b, x)
    invariant forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
  {
    if a[i] in b[..] && a[i] !in result {
      result := result + [a[i]];
    }
    i := i + 1;
  }
}

method SharedElementsTest()
{
  var a1 := new int[] [3, 4, 5, 6];
  var a2 := new int[] [5, 7, 4, 10];
  var res1 := SharedElements(a1, a2);
  expect res1 == [4, 5];

  var a3 := new int[] [1, 2, 3, 4];
  var a4 := new int[] [5, 4, 3, 7];
  var res2 := SharedElements(a3, a4);
  expect res2 == [3, 4];

  var a5 := new int[] [11, 12, 14, 13];
  var a6 := new int[] [17, 15, 14, 13];
  var res3 := SharedElements(a5, a6);
  expect res3 == [13, 14];
}
