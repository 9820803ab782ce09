include "../dafny4_forms.dfy"
method Main() {
  { var v := Describe(0); expect v == "zero", "test 1"; }
  { var v := Describe(7); expect v == "many", "test 2"; }
  { var v := Doubles(3); expect v == [0, 2, 4], "test 3"; }
  { var a := new int[] [1, 2, 3]; var v := Squares(a); expect v == [1, 4, 9], "test 4"; }
}
