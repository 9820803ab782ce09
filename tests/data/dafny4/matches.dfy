// Dafny 4 forms Dafny 2.3 does not read, one per function; every method's spec goes through one of them.
datatype Planet = Mercury | Venus | Earth | Mars
datatype Shape = Circle(r: int) | Rect(w: int, h: int) | Dot
datatype Tree = Leaf | Node(left: Tree, value: int, right: Tree)

ghost function Name(n: int): string
  requires 1 <= n <= 3
{
  match n
  case 1 => "One"
  case 2 => "Two"
  case 3 => "Three"
}

function Digit(c: char): int {
  match c {
    case '0' => 0
    case '1' | 'l' => 1
    case _ => -1
  }
}

function Index(name: string): int {
  match name
  case "Mercury" => 0 case "Venus" => 1
  case other => |other|
}

function Area(s: Shape): int {
  match s
  case Rect(w, h) => w * h
  case Dot | Circle(_) => 0
}

function Inner(p: Planet): bool {
  match p
  case Mercury => true
  case Venus => true
  case _ => false
}

function Sign(x: int): int {
  match x < 0
  case true => -1
  case false => if x == 0 then 0 else 1
}

function Root(t: Tree): int {
  match t
  case Node(Leaf, v, _) => v
  case Node(Node(_, w, _), v, _) => w + v
  case Leaf => 0
}

function Squares(n: nat): seq<int> {
  seq(n, i => i * i)
}

lemma NameFacts(n: int)
  requires 1 <= n <= 3
  ensures |Name(n)| >= 3
{
  match n {
    case 1 => assert Name(1) == "One";
    case 2 => assert Name(2) == "Two";
    case _ => assert Name(3) == "Three";
  }
}

lemma DigitFacts(c: char)
  ensures Digit(c) <= 1
{
  match c
  case '0' =>
  case '1' =>
    assert Digit('1') == 1;
  case _ =>
}

method NameOf(n: int) returns (r: string)
  requires 1 <= n <= 3
  ensures r == Name(n)

method DigitOf(c: char) returns (r: int)
  ensures r == Digit(c)

method IndexOf(name: string) returns (r: int)
  ensures r == Index(name)

method AreaOf(s: Shape) returns (r: int)
  ensures r == Area(s)

method InnerOf(p: Planet) returns (r: bool)
  ensures r == Inner(p)

method SignOf(x: int) returns (r: int)
  ensures r == Sign(x)

method RootOf(t: Tree) returns (r: int)
  ensures r == Root(t)

method SquaresUpTo(n: nat) returns (r: seq<int>)
  ensures r == seq(n, i => i * i)
  ensures r == Squares(n)

// a subset type of string: Dafny 2.3 infers it for `var s := Marks(n)` and then refuses `s[0]`
type Marks = s: string | |s| > 0 witness "d"

function Marks(n: nat): Marks { if n < 10 then "d" else Marks(n / 10) + "d" }

method FirstMark(n: nat) returns (c: char)
  ensures var s := Marks(n); c == s[0]

method Wrong(n: int) returns (r: string)
  requires 1 <= n <= 3
  ensures r == Name(n) + "!"
// the file ends in a comment, without a newline