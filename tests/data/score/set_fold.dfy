// A spec written with a ghost function that folds over a set with `var x :| x in s` (a common way to fold
// over a set): decided on concrete sets by the facts of every choice.
function SetProduct(s: set<int>): int
{
  if s == {} then 1 else var x :| x in s; x * SetProduct(s - {x})
}

method UniqueProduct(a: seq<int>) returns (p: int)
  ensures p == SetProduct(set x | x in a)
{
  assume false;
}

method UniqueProductTest()
{
  var p := UniqueProduct([2, 3, 5, 3]);
  assert p == 30;
  var q := UniqueProduct([4]);
  assert q == 4;
  var w := UniqueProduct([2, 3]);
  assert w == 5;  // wrong: 6
}
