// The top-level F is not the one M means: M opens Lib, whose F its clauses name (tests/verifier/test_review40d.py)
function F(x: int): int { x + 100 }

module Lib {
  function F(x: int): int { x + 1 }
}

module M {
  import opened Lib
  method Inc(x: int) returns (r: int)
    ensures r == F(x)
  {
    r := x + 1;
  }
  method Loose(x: int) returns (r: int)
    ensures r >= F(x)
  {
    r := x + 1;
  }
}
