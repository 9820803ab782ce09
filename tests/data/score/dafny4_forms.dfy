// Dafny 4 forms Dafny 2.3 does not parse, in helpers and in `ensures`: `match` on literals, `seq(n, f)`.
function Word(n: int): string
{
  match n
  case 0 => "zero"
  case 1 => "one"
  case _ => "many"
}

method Describe(n: int) returns (s: string)
  ensures s == Word(n)
{
  s := Word(n);
}

method Doubles(n: nat) returns (r: seq<int>)
  ensures r == seq(n, i requires 0 <= i < n => 2 * i)
{
  r := seq(n, i requires 0 <= i < n => 2 * i);
}

method Squares(a: array<int>) returns (r: seq<int>)
  ensures |r| == a.Length
  ensures forall i :: 0 <= i < a.Length ==> r[i] == a[i] * a[i]
{
  r := seq(a.Length, i requires 0 <= i < a.Length reads a => a[i] * a[i]);
}
