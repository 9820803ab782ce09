// Collections in Dafny 4 forms Dafny 2.3 does not read (a ghost predicate, a compiled function, `expect`); the
// literals themselves are written the same in both: {1, 2}, multiset{1, 1}, map[1 := 2].
ghost predicate AllBelow(s: set<int>, n: int) {
  forall x :: x in s ==> x < n
}

function Keys(m: map<int, int>): set<int> {
  m.Keys
}

method Below(s: set<int>, n: int) returns (r: set<int>)
  ensures AllBelow(r, n) && r <= s
  ensures forall x :: x in s && x < n ==> x in r
{
  r := set x | x in s && x < n;
}

method KeysOf(m: map<int, int>) returns (k: set<int>)
  ensures k == Keys(m)
{
  k := Keys(m);
}

method Bag(s: seq<int>) returns (b: multiset<int>)
  ensures b == multiset(s)
{
  b := multiset(s);
}
