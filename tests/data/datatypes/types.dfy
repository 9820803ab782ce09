datatype List<T> = Nil | Cons(head: T, tail: List<T>)
datatype Color = Red | Green | Blue

function Length<T>(l: List<T>): nat {
  match l
  case Nil => 0
  case Cons(_, t) => 1 + Length(t)
}
