// Reals with a tolerance, an unsupported type, a vacuous spec and a goal too hard for a short time limit.
method Area(r: real) returns (area: real)
  ensures area == 3.14159 * r * r

method CountSet(s: iset<int>) returns (n: int)
  ensures n == (if 1 in s then 1 else 0)

function Weird(s: seq<int>): int
  ensures Weird(s) != Weird(s)

method Vacuous(s: seq<int>) returns (r: int)
  requires Weird(s) >= 0
  ensures r == 1

method Tests()
{
  var a := Area(2.0);
  expect a == 12.566;
  var n := CountSet(iset{1, 2});
  expect n == 1;
  var v := Vacuous([1, 2]);
  expect v == 1;
}
