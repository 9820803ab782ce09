// Tests that call spec functions directly: the function's body is its specification.
function Fib(n: nat): nat
{
  if n < 2 then n else Fib(n - 1) + Fib(n - 2)
}

predicate IsEven(n: int)
{
  n % 2 == 0
}

function Half(n: int): int
  requires n % 2 == 0
{
  n / 2
}

method Main()
{
  var a := Fib(10);
  expect a == 55, "fib 10";
  var b := Fib(6);
  expect b == 9, "fib 6 (wrong: 8)";
  var c := IsEven(4);
  expect c;
  var d := Half(3);
  expect d == 1;
  var e := Fib(3) + 1;  // not a call of Fib alone: no case
  var f := Fib(4);
  print f;              // never checked: no case, and no unreadable case either
}
