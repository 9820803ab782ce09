module M {
  datatype Color = Red | Green
  method Paint(c: Color) returns (r: int)
    ensures c == Red ==> r == 1
    ensures c == Green ==> r == 2
  { r := if c == Red then 1 else 2; }
}
