// Type synonyms name the types of inputs and outputs: a map, and a sequence of pairs.
type Dict = map<string, int>
type Pairs = seq<(int, int)>

method Size(d: Dict) returns (n: nat)
  ensures n == |d|
{
  n := |d|;
}

method Swap(p: Pairs) returns (r: Pairs)
  ensures |r| == |p| && forall i :: 0 <= i < |p| ==> r[i] == (p[i].1, p[i].0)
