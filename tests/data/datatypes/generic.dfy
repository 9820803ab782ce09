datatype List<T> = Nil | Cons(head: T, tail: List<T>)
function Len<T>(l: List<T>): nat { if l.Nil? then 0 else 1 + Len(l.tail) }
function Cnt<T>(s: seq<T>): nat { if |s| == 0 then 0 else 1 + Cnt(s[1..]) }
method Size(l: List<int>) returns (n: nat) ensures n == Len(l)
method Count(s: seq<int>) returns (n: nat) ensures n == Cnt(s)
