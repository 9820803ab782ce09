// Specs whose tests (tests/Sq.dfy) check their outputs with functions, predicates and constants of the test file's
// own (tests/verifier/test_declared_real.py)
method Square(x: int) returns (y: int)
  ensures y == x * x

method Weak(x: int) returns (y: int)
  ensures y >= 0
