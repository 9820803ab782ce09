method M(s: seq<int>, t: set<int>) returns (r: int)
  requires |s| != 1
  ensures r >= 0
