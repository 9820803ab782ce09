include "find.dfy"

method TestFind() {
  var r := Find([3, 1, 3], 1);
  expect r == Some(1);
  var r2 := Find([3, 1], 7);
  expect r2 == None;
  var r3 := Find([5], 5);
  expect r3 == Option.Some(value := 1);  // wrong: the index is 0 (Dafny 4's named argument)
  var w := FindWeak([3, 1, 3], 1);
  expect w == Some(1);
  var none: Option<nat> := None;
  var w2 := FindWeak([3], 5);
  expect w2 == none;
}

method TestProperty() {
  var w := FindWeak([3, 1, 3], 1);
  expect w.Some?;  // a property: the spec admits some output that has it
}
