"""The strong spec of `Inc` that the scripted-engine tests of the rounds score: it accepts x + 1 and rejects every
other output (the scripted answers of tests/integration/test_rounds.py say why)."""

INC_SPEC = """
method Inc(x: int) returns (r: int)
  requires x >= 0
  ensures r > x
  ensures r == x + 1
{
  r := x + 1;
}
"""
