// A string output and a two-output method whose specs leave room: each gets a decoded, confirmed witness.
method Greet(s: string) returns (r: string)
  ensures |r| >= |s|

method MinMax(a: int, b: int) returns (lo: int, hi: int)
  ensures lo <= hi

// An in-place method whose spec determines the post-state: pinned.
method Double(a: array<int>)
  modifies a
  ensures forall i :: 0 <= i < a.Length ==> a[i] == 2 * old(a[i])

// In place, a spec that keeps the elements but not their order: the search must keep the array's length.
method Shuffle(a: array<int>)
  modifies a
  ensures multiset(a[..]) == multiset(old(a[..]))

method Tests()
{
  var g := Greet("ab");
  assert g == "ab";
  var lo, hi := MinMax(5, 2);
  assert lo == 2 && hi == 5;
  var arr := new int[] [1, 2, 3];
  Double(arr);
  assert arr[..] == [2, 4, 6];
  var s := new int[] [3, 1, 2];
  Shuffle(s);
  assert s[..] == [1, 2, 3];
}
