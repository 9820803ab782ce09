module M {
  datatype Color = Red | Green
  method Paint(c: Color) returns (r: int)
    ensures c == Red ==> r == 1

  { r := if c == Red then 1 else 2; }
}
