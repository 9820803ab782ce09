datatype Option<T> = None | Some(value: T)

method Find(s: seq<int>, x: int) returns (r: Option<nat>)
  ensures r.Some? ==> r.value < |s| && s[r.value] == x
  ensures r.None? ==> forall i :: 0 <= i < |s| ==> s[i] != x
{
  r := None;
  var i := 0;
  while i < |s|
    invariant 0 <= i <= |s|
    invariant forall j :: 0 <= j < i ==> s[j] != x
  {
    if s[i] == x { return Some(i); }
    i := i + 1;
  }
}

method FindWeak(s: seq<int>, x: int) returns (r: Option<nat>)
  ensures r.Some? ==> r.value < |s|
