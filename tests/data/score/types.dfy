// One method per supported type; each test below states the right output.
method Succ(n: nat) returns (r: nat)
  ensures r == n + 1
{ r := n + 1; }

method Flip(b: bool) returns (r: bool)
  ensures r == !b
{ r := !b; }

method Next(c: char) returns (r: char)
  requires 'a' <= c < 'z'
  ensures r as int == c as int + 1
{ r := (c as int + 1) as char; }

method Twice(s: string) returns (r: string)
  ensures r == s + s
{ r := s + s; }

method Half(x: real) returns (r: real)
  ensures r * 2.0 == x
{ r := x / 2.0; }

method Xor(a: bv32, b: bv32) returns (r: bv32)
  ensures r == a ^ b
{ r := a ^ b; }

method Firsts(s: seq<seq<int>>) returns (r: seq<int>)
  requires forall i :: 0 <= i < |s| ==> |s[i]| > 0
  ensures |r| == |s| && forall i :: 0 <= i < |s| ==> r[i] == s[i][0]

method Lens(a: array<seq<int>>) returns (r: seq<int>)
  ensures |r| == a.Length && forall i :: 0 <= i < a.Length ==> r[i] == |a[i]|

method Sizes(s: seq<array<int>>) returns (r: seq<int>)
  ensures |r| == |s| && forall i :: 0 <= i < |s| ==> r[i] == s[i].Length

method Lasts(l: seq<string>) returns (r: seq<char>)
  requires forall i :: 0 <= i < |l| ==> |l[i]| > 0
  ensures |r| == |l| && forall i :: 0 <= i < |l| ==> r[i] == l[i][|l[i]| - 1]

method Pair(x: int) returns (p: (int, int))
  ensures p == (x, x + 1)

method Sums(s: seq<(int, int)>) returns (r: seq<int>)
  ensures |r| == |s| && forall i :: 0 <= i < |s| ==> r[i] == s[i].0 + s[i].1

method DivMod(a: int, b: int) returns (q: int, r: int)
  requires b > 0
  ensures a == q * b + r && 0 <= r < b

method ToArray(s: string) returns (a: array<char>)
  ensures a.Length == |s| && forall i :: 0 <= i < |s| ==> a[i] == s[i]

method Inc(a: array<int>)
  modifies a
  ensures forall i :: 0 <= i < a.Length ==> a[i] == old(a[i]) + 1

method Tests()
{
  var n := Succ(3);
  expect n == 4;
  var b := Flip(true);
  expect b == false;
  var c := Next('a');
  expect c == 'b';
  var s := Twice("ab");
  expect s == "abab";
  var h := Half(3.0);
  expect h == 1.5;
  var x := Xor(12, 10);
  expect x == 6;
  var f := Firsts([[1, 2], [3]]);
  expect f == [1, 3];
  var arr := new seq<int>[] [[1, 2], [], [5, 6, 7]];
  var l := Lens(arr);
  expect l == [2, 0, 3];
  var a1 := new int[] [1, 2];
  var a2 := new int[] [3];
  var z := Sizes([a1, a2]);
  expect z == [2, 1];
  var t := Lasts(["ab", "xyz"]);
  expect t == ['b', 'z'];
  var p := Pair(4);
  expect p == (4, 5);
  var u := Sums([(1, 2), (3, 4)]);
  expect u == [3, 7];
  var q, r := DivMod(7, 2);
  expect q == 3 && r == 1;
  var ca := ToArray("hi");
  expect ca[..] == ['h', 'i'];
  var ia := new int[] [1, 5, -2];
  Inc(ia);
  expect ia[..] == [2, 6, -1];
}
