// An existential witness (a factor) beyond any small range of hints: 1003 = 17 * 59.
method IsPrime(n: int) returns (r: bool)
  requires n >= 2
  ensures r <==> forall k :: 2 <= k < n ==> n % k != 0
{
  r := true;
  var k := 2;
  while k < n
    invariant 2 <= k <= n
    invariant r <==> forall j :: 2 <= j < k ==> n % j != 0
  {
    if n % k == 0 { r := false; }
    k := k + 1;
  }
}

method IsPrimeTest()
{
  var a := IsPrime(1003);
  assert a == false;
  var b := IsPrime(1009);
  assert b == true;
  var c := IsPrime(1003);
  assert c == true;  // wrong: 1003 = 17 * 59
  var d := IsPrime(1009);
  assert d == false;  // wrong: 1009 is prime
}
