include "types.dfy"

method Size(l: List<int>) returns (n: nat)
  ensures n == Length(l)

method Next(c: Color) returns (d: Color)
  ensures c == Red ==> d == Green
  ensures c == Green ==> d == Blue
  ensures c == Blue ==> d == Red

method Head(l: List<string>) returns (h: string, ok: bool)
  ensures ok <==> l.Cons?
  ensures ok ==> h == l.head
