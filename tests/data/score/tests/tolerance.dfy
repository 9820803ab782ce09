include "../tolerance.dfy"
function abs(x: real): real { if x < 0.0 then -x else x }
method Main() {
  { var v := Ratio(2, 3); expect abs(v - 0.6666667) < 0.00001, "test 1"; }
  { var v := Ratio(1, 3); expect v - 0.3333 < 0.001 && 0.3333 - v < 0.001, "test 2"; }
  { var v := Ratio(2, 3); expect abs(v - 0.7) < 0.00001, "test 3"; }
  { var q, r := DivMod(7, 2); expect [q, r] == [3, 1], "test 4"; }
  { var q, r := DivMod(7, 2); expect (q, r) == (3, 2), "test 5"; }
}
