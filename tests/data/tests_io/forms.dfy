// Methods under test, each with a trivial body: only the test forms matter here.
method Cube(n: int) returns (r: int)
  ensures r == n * n * n
{
  r := n * n * n;
}

method Shared(a: array<int>, b: array<int>) returns (result: seq<int>)
{
  result := [];
}

method Split(s: seq<int>, n: nat) returns (first: seq<int>, second: seq<int>)
  requires n <= |s|
{
  first := s[..n];
  second := s[n..];
}

method Lasts(words: seq<string>) returns (r: seq<char>)
{
  r := [];
}

method ToChars(s: string) returns (a: array<char>)
{
  a := new char[|s|];
}

method Volume(r: real) returns (v: real)
{
  v := r * r * r;
}

method Rotate(n: bv32, d: int) returns (r: bv32)
{
  r := n;
}

method AddPair(l: seq<(int, int)>, t: (int, int)) returns (r: seq<(int, int)>)
{
  r := l + [t];
}

method IsEven(n: int) returns (even: bool)
{
  even := n % 2 == 0;
}

method FormsTest()
{
  // live checks
  var c1 := Cube(3);
  assert c1 == 27;
  var c2 := Cube(-2);
  expect -8 == c2, "cube of -2";
  var x := 4;
  var c3 := Cube(x);
  print(c3); print("\n");
  //assert c3 == 64;
  var c4 := Cube(5);
  //assert(c4 == 125)

  // expected comments and variables
  var a1 := new int[] [3, 4, 5, 6];
  var a2 := new int[] [5, 7, 4, 10];
  var res1 := Shared(a1, a2);
  print(res1);
               //expected[4, 5];
  var a3 := new int[][1, 2, 3];
  var res2 := Shared(a3, new int[] [3, 1]);
  // expected  [1, 3]
  var s1: seq<int> := [1, 2, 3];
  var e1: seq<int> := [1, 2, 3];
  var a4 := new int[] [1, 2, 3];
  var res3 := Shared(a4, a4);
  assert sequenceEquals(res3, e1);
  var res4 := Shared(new int[] [9], new int[] [9]);
  expect res4 == a4[..][..1] || true;
  assert res4 == [9];

  // two outputs
  var p1, q1 := Split([1, 2, 3, 4], 1);
  assert p1 == [1] && q1 == [2, 3, 4];
  var p2, q2 := Split(s1, 2);
  expect q2 == [3];
  expect p2 == [1, 2];
  var p3, q3 := Split([5, 6], 0);
  //expected [[], [5, 6]]

  // strings, chars, reals, bitvectors, tuples, bools
  var w: seq<string> := ["Mers", "for", "Vers"];
  var l1 := Lasts(w);
  expect l1 == ['s', 'r', 's'];
  var l2 := Lasts(["ab", "cd"]);
  assert l2 == "bd";
  var t1 := ToChars("abc");
  expect t1[..] == "abc";
  var t2 := ToChars("hi");
  //expected ['h','i']
  var v1 := Volume(1.5);
  assert v1 == 3.375;
  var r1 := Rotate(16, 2);
  assert r1 == 64;
  var pairs: seq<(int,int)> := [(5, 6)];
  var pr := AddPair(pairs, (9, 10));
  expect pr == [(5, 6), (9, 10)];
  var ev := IsEven(4);
  assert ev;
  var od := IsEven(3);
  assert !od;
}

method Main()
{
  FormsTest();
}

// a helper of the file, read by its body (an equality), not by its name
predicate sequenceEquals(a: seq<int>, b: seq<int>) { a == b }
