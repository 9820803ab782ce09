include "collections.dfy"

method TestCommon() {
  var r := Common({1, 2, 3}, {2, 3, 4});
  expect r == {3, 2};
  var r2 := Common({1}, {2});
  expect r2 == {};
  var r3 := Common({5, 6}, {6});
  expect r3 == {5, 6};  // wrong: the intersection is {6}
}

method TestEvens() {
  var r := Evens([1, 2, 4]);
  expect r == {2, 4};
}

method TestSquare() {
  var m := Square({1, -2});
  expect m == map[1 := 1, -2 := 4];
  var m2 := Square({3});
  expect m2 == map[3 := 10];  // wrong: 3 * 3 is 9
}

method TestCount() {
  var n := Count(multiset{1, 1, 2}, 1);
  expect n == 2;
  var n2 := Count(multiset([7, 7, 7]), 7);
  expect n2 == 3;
}

method TestPut() {
  var d := Put(Dict(map[1 := 2], "a"), 3, 4);
  expect d == Dict(map[1 := 2, 3 := 4], "a");
}

method TestForms() {
  var s: set<int> := {4, 5};
  var r := Common(s, {5});
  assert r == {5};
  var ms := multiset{9, 9};
  var n := Count(ms, 9);
  assert n == 2;
  var m := Square({});
  assert m == map[];
  var r4 := Common({7}, {7, 8});
  assert {7} == r4;  // the display first
}

method TestPutWeak() {
  var d := PutWeak(Dict(map[1 := 2], "a"), 3, 4);
  expect d == Dict(map[1 := 2, 3 := 4], "a");
}

method TestValuesOf() {
  var v := ValuesOf(map["a" := 1, "b" := 1, "c" := 2]);
  expect v == {1, 2};
  var v2 := ValuesOf(map["a" := 1]);
  expect v2 == {1, 2};  // wrong: the only value is 1
}

method TestAllLower() {
  var b := AllLower(map["ab" := 1, "Cd" := 2, "x" := 3]);
  expect b == false;
  var b2 := AllLower(map["ab" := 1, "cd" := 2]);
  expect b2 == true;
  var b3 := AllLower(map["ab" := 1, "cD" := 2]);
  expect b3 == true;  // wrong: "cD" is not lower case
}
