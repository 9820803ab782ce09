// Three strengths of the shared-elements spec: elements each once (the multiset is pinned, proved through a
// lemma the harness states and proves), the set of elements only (pinned as a set: [4, 4, 5] is as good), and
// membership one way only (weak: not pinned).
method Strong(a: seq<int>, b: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r <==> (x in a && x in b)
  ensures forall i, j :: 0 <= i < j < |r| ==> r[i] != r[j]

method AsSet(a: seq<int>, b: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r <==> (x in a && x in b)

method Weak(a: seq<int>, b: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r ==> (x in a && x in b)
  ensures forall i, j :: 0 <= i < j < |r| ==> r[i] != r[j]

method SetsTest()
{
  var s := Strong([3, 4, 5, 6], [5, 7, 4, 10]);
  assert s == [4, 5];
  var t := AsSet([3, 4, 5, 6], [5, 7, 4, 10]);
  assert t == [4, 5];
  var w := Weak([3, 4, 5, 6], [5, 7, 4, 10]);
  assert w == [4, 5];
}
