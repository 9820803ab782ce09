class Counter {
  static function Upper(s: string): int {
    if |s| == 0 then 0 else (if 'A' <= s[0] <= 'Z' then 1 else 0) + Upper(s[1..])
  }
}
method CountUpper(s: string) returns (r: int)
  ensures r == Counter.Upper(s)
