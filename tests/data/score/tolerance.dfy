// Tests that state their own tolerance for a real output (`abs(v - x) < e`), and outputs compared as one
// collection (`[q, r] == [3, 1]`).
method Ratio(a: int, b: int) returns (r: real)
  requires b != 0
  ensures r == (a as real) / (b as real)
{
  r := (a as real) / (b as real);
}

method DivMod(a: int, b: int) returns (q: int, r: int)
  requires b > 0
  ensures a == q * b + r && 0 <= r < b
{
  q := a / b;
  r := a % b;
}
