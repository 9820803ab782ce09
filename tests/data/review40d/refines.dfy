// A method in a refining module inherits `ensures r == x + 1` from A: restating only its own clauses (none)
// made every mutant survive (tests/verifier/test_review40d.py)
abstract module A {
  method M(x: int) returns (r: int)
    ensures r == x + 1
}
module B refines A {
  method M(x: int) returns (r: int)
  {
    r := x + 1;
  }
}
