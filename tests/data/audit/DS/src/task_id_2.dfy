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
    if InArray(b, a[i]) && a[i] !in result {
      result := result + [a[i]];
    }
    i := i + 1;
  }
}

