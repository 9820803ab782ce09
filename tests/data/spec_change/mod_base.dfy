// A method inside nested modules (tests/verifier/test_spec_change_real.py): its clauses mean what they mean there
module A {
  module B {
    function Mag(x: int): int { if x < 0 then -x else x }
    method Abs(x: int) returns (r: int)
      ensures r == Mag(x)
    {
      r := if x < 0 then -x else x;
    }
  }
}

// a top-level function of the same name, which the method's clauses do not mean
function Mag(x: int): int { 0 }
