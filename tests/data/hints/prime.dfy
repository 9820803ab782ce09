// "Is not prime": an existential with no good trigger, on concrete numbers.
method IsNotPrime(n: int) returns (result: bool)
  requires n >= 2
  ensures result <==> exists k :: 2 <= k < n && n % k == 0

method Tests()
{
  var r1 := IsNotPrime(91);
  expect r1 == true;
  var r2 := IsNotPrime(97);
  expect r2 == false;
}
