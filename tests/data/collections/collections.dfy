// Collections as values: sets, multisets and maps as inputs, outputs and datatype fields.
datatype Dict = Dict(entries: map<int, int>, name: string)

method Common(a: set<int>, b: set<int>) returns (r: set<int>)
  ensures r == a * b
{
  r := a * b;
}

method Evens(s: seq<int>) returns (r: set<int>)
  ensures forall x :: x in r ==> x in s  // weak: an output missing an even element is admitted
{
  r := {};
}

method Square(keys: set<int>) returns (m: map<int, int>)
  ensures m.Keys == keys
  ensures forall k :: k in m ==> m[k] == k * k
{
  m := map k | k in keys :: k * k;
}

method Count(ms: multiset<int>, x: int) returns (n: nat)
  ensures n == ms[x]
{
  n := ms[x];
}

method Put(d: Dict, k: int, v: int) returns (r: Dict)
  ensures r == Dict(d.entries[k := v], d.name)
{
  r := Dict(d.entries[k := v], d.name);
}

method PutWeak(d: Dict, k: int, v: int) returns (r: Dict)
  ensures k in r.entries && r.entries[k] == v  // weak: the other entries and the name may change
{
  r := Dict(d.entries[k := v], d.name);
}

method ValuesOf(m: map<string, int>) returns (v: set<int>)
  ensures v == m.Values
{
  v := m.Values;
}

predicate Lower(s: string) {
  forall i :: 0 <= i < |s| ==> 'a' <= s[i] <= 'z'
}

method AllLower(d: map<string, int>) returns (b: bool)
  ensures b <==> forall k :: k in d ==> Lower(k)
{
  b := forall k :: k in d ==> Lower(k);
}
