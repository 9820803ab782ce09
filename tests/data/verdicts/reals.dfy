method Average(a: real, b: real) returns (r: real)
  ensures r * 2.0 == a + b
{
  r := (a + b) / 2.0;
}

method AverageTest()
{
  var r1 := Average(1.0, 2.0);
  assert r1 == 1.5;
  var r2 := Average(1.0, 2.333);
  assert r2 == 1.667;  // rounded: 1.6665 exactly
  var r3 := Average(1.0, 2.0);
  assert r3 == 1.7;  // wrong, far outside the tolerance
}
