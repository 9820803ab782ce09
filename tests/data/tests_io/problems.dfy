method Twice(n: int) returns (r: int)
{
  r := 2 * n;
}

function foo(n: int): int { n }

method TwiceTest()
{
  var r1 := Twice(foo(3));
  assert r1 == 6;
  var r2 := Twice(5);
  var e2 := 10;
  print r2;
  var r3 := Twice(1, 2);
  assert r3 == 2;
  var r4 := Twice(7);
  assert r4 > 0;
  var r5 := Twice(8);
  //expected sixteen
  var r6 := Twice(y);
  assert r6 == 0;
}
