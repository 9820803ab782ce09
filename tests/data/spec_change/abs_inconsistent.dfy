// a weaker spec beside a declaration no background check reaches, whose axiom proves `false`: a function that
// does not terminate (Dafny 2.3 states its definition as an axiom even though it fails its own check)
function method Loop(x: int): int { Loop(x) + 1 }
const K: int := Loop(0)

method Abs(x: int) returns (r: int)
  ensures x >= 0 ==> r == x
{
  r := if x < 0 then -x else x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var b := Abs(5);
  expect b == 5;
}
