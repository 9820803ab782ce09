include "matches.dfy"

method Main() {
  var a := NameOf(3);
  expect a == "Three";
  var b := DigitOf('l');
  expect b == 1;
  var b2 := DigitOf('x');
  expect b2 == -1;
  var c := IndexOf("Venus");
  expect c == 1;
  var c2 := IndexOf("Pluto");
  expect c2 == 5;
  var d := AreaOf(Rect(2, 3));
  expect d == 6;
  var d2 := AreaOf(Dot);
  expect d2 == 0;
  var e := InnerOf(Mars);
  expect e == false;
  var f := SignOf(-4);
  expect f == -1;
  var g := RootOf(Node(Node(Leaf, 2, Leaf), 5, Leaf));
  expect g == 7;
  var h := SquaresUpTo(4);
  expect h == [0, 1, 4, 9];
  var m := FirstMark(42);
  expect m == 'd';
  var w := Wrong(2);
  expect w == "Two";
}
