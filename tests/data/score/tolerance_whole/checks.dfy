// Every check of a test is read whole, or the case is not read: a tolerance (`abs(r - x) < e`) with anything else
// said of the same output, a test-file `abs` that is not the absolute value, an `assertEquals` that checks `<=`.
function abs(x: real): real { if x < 0.0 then -x else x }

// Its only output is 1.05: every test of NearTest but the last fails on it.
method Near(x: real) returns (r: real)
  ensures r == x + 0.05
{
  r := x + 0.05;
}

// Correct for its test: `a` within 0.5 of 1.3, `b` within 0.001 of 1.0004 (the tolerances differ).
method Two(x: real) returns (a: real, b: real)
  ensures x + 0.1 <= a <= x + 0.5 && b == x + 0.0004
{
  a := x + 0.3;
  b := x + 0.0004;
}

// Correct for its test (every output it admits is at most 2.0, and the test checks `<= 3.0`), no equality.
method Small() returns (r: real)
  ensures r <= 2.0
{
  r := 1.0;
}

// Correct for its test with two different tolerances: `a` = 1.3 is within 0.5 of 1.0, `b` = 1.0004 within 0.001.
method TwoExact(x: real) returns (a: real, b: real)
  ensures a == x + 0.3 && b == x + 0.0004
{
  a := x + 0.3;
  b := x + 0.0004;
}

// What is true of the outputs the specs admit, proved by Dafny: Near's only output fails the first three checks
// of NearTest; TwoExact's outputs pass TwoExactTest's.
lemma Facts()
  ensures !(abs(1.05 - 1.0) < 0.1 && 1.05 < 1.02)
  ensures !(abs(1.05 - 1.1) < 0.01)
  ensures abs(1.3 - 1.0) < 0.5 && abs(1.0004 - 1.0) <= 0.001
{
}

// The same check spelled `!(r != E)`: an equality with mutants.
method Inc(x: int) returns (r: int)
  ensures r == x + 1
{
  r := x + 1;
}

// Its only output is 5, which ConstTest's second check rejects: no output passes that test.
method Const() returns (r: int)
  ensures r == 5
{
  r := 5;
}

method assertEquals(a: real, b: real) { expect a <= b; }

method NearTest() {
  { var r := Near(1.0); expect abs(r - 1.0) < 0.1 && r < 1.02; }
  { var r := Near(1.0); expect abs(r - 1.0) < 0.1; expect r < 1.02; }
  { var r := Near(1.0); expect abs(r - 1.0) < 0.1; expect abs(r - 1.1) < 0.01; }
  { var r := Near(1.0); expect abs(r - 1.0) < 0.1; }
}

method TwoTest() {
  var a, b := Two(1.0);
  expect abs(a - 1.3) < 0.5;
  expect abs(b - 1.0004) <= 0.001;
}

method TwoExactTest() {
  var a, b := TwoExact(1.0);
  expect abs(a - 1.0) < 0.5;
  expect abs(b - 1.0) <= 0.001;
}

method SmallTest() {
  var r := Small();
  assertEquals(r, 3.0);
}

method ConstTest() {
  var r := Const();
  expect r == 5;
  expect r > 9;
}

method IncTest() {
  var r := Inc(3);
  expect !(r != 4);
  var s := Inc(5);
  expect 6 == s;
}
