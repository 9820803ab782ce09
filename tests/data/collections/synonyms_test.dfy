include "synonyms.dfy"

method Main() {
  var n := Size(map["a" := 1, "b" := 2]);
  expect n == 2;
  var n2 := Size(map[]);
  expect n2 == 1;  // wrong: the empty map has no keys
  var r := Swap([(1, 2), (3, 4)]);
  expect r == [(2, 1), (4, 3)];
}
