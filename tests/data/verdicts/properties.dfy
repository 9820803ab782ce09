// Tests that state a property of the output, not its value: accepted (some output the spec admits has it),
// refuted (none has it, proved) and determined (every one has it, proved).
method Sq(x: int) returns (y: int)
  ensures y == x * x
{
  y := x * x;
}

method Evens(n: nat) returns (r: seq<int>)
  ensures |r| == n
  ensures forall i :: 0 <= i < |r| ==> r[i] % 2 == 0
{
  r := seq(n, i => 0);
}

method Main()
{
  { var y := Sq(3); expect y > 0; }
  { var y := Sq(3); expect y < 0, "wrong"; }
  { var v := Evens(2); expect v[0] % 2 == 0; expect |v| == 2; }
  { var v := Evens(2); expect |v| == 4, "wrong length"; }
  { var v := Evens(2); expect 6 in v; }
}
