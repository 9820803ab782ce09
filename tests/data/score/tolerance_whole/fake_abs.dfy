// A test-file `abs` that is not the absolute value: `abs(r - 1.0) < 0.1` is read as the formula it is (here
// `r - 1.0 < 0.1`), not as a tolerance around 1.0.
function abs(x: real): real { x }

method Half(x: real) returns (r: real)
  ensures r == x / 2.0
{
  r := x / 2.0;
}

// The spec's output 0.5 passes this check as written (0.5 - 1.0 < 0.1): Dafny proves it.
lemma HalfPasses()
  ensures abs(0.5 - 1.0) < 0.1
{
}

method HalfTest() {
  var r := Half(1.0);
  expect abs(r - 1.0) < 0.1;
}
