include "../Sq.dfy"

function Sq(n: int): int { n * n }
predicate IsSq(n: int, m: int) { m == Sq(n) }
// a claim of the test file's that Dafny would not prove: never what a check is read with
predicate Lies(n: int) ensures Lies(n) { false }
function Count(n: int): int { if n <= 0 then 0 else 1 + Count(n - 1) }
const K := 3
const NINE: int := 9

method {:test} TestSquare()
{
  var r := Square(K);
  expect r == NINE;
  var s := Square(4);
  expect IsSq(4, s);
  var u := Square(6);
  expect IsSq(6, u + 1);
  var v := Square(2);
  expect Lies(v);
  var c := Square(1);
  expect Count(c) == 1;
}

method {:test} TestWeak()
{
  var w := Weak(5);
  expect IsSq(5, w);
}

method {:test} TestCallEquality()
{
  var a := Square(3);
  expect a == Sq(3);
  var b := Square(2);
  expect Sq(3) == b;
  var w := Weak(5);
  expect w == Sq(5);
}
