// base: promises r == 0 on long inputs; head drops the input s of length 1 (a short weakening there) and the
// long promise (a weakening only on inputs longer than a short question admits); t: set makes the dropped
// input's counterexample unreadable
method M(s: seq<int>, t: set<int>) returns (r: int)
  ensures |s| > 5 ==> r == 0
  ensures r >= 0
