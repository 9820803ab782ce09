include "dafny4.dfy"

method Main() {
  var r := Below({1, 5, 9}, 6);
  expect r == {1, 5};
  var k := KeysOf(map[2 := 0, 1 := 0]);
  expect k == {1, 2};
  var b := Bag([3, 1, 3]);
  expect b == multiset{1, 3, 3};
  var b2 := Bag([]);
  expect b2 == multiset{3};  // wrong: the multiset of [] is empty
}
