// Short questions (bot/symbolic/bounded.py): determinacy of PickA and PickS asked with every array and sequence
// spelled out; made by bot.symbolic.everywhere.program(..., small=True) (tests/data/models/README.md)
predicate SpecScore_Everywhere_339e89f318776507_Pre(a: array<int>) reads a { (a.Length > 0) }
predicate SpecScore_Everywhere_339e89f318776507_Post(a: array<int>, r: int) reads a requires SpecScore_Everywhere_339e89f318776507_Pre(a)
{ (exists i :: 0 <= i < a.Length && a[i] == r) }
method SpecScore_Everywhere_339e89f318776507(a: array<int>, SpecScore_o1_r: int, SpecScore_o2_r: int, SpecScore_len_v0: int, SpecScore_v0_0: int, SpecScore_v0_1: int, SpecScore_v0_2: int, SpecScore_v0_3: int, SpecScore_v0_4: int)
  requires a.Length == SpecScore_len_v0 && 0 <= SpecScore_len_v0 <= 5
  requires SpecScore_len_v0 > 0 ==> a[0] == SpecScore_v0_0
  requires SpecScore_len_v0 > 1 ==> a[1] == SpecScore_v0_1
  requires SpecScore_len_v0 > 2 ==> a[2] == SpecScore_v0_2
  requires SpecScore_len_v0 > 3 ==> a[3] == SpecScore_v0_3
  requires SpecScore_len_v0 > 4 ==> a[4] == SpecScore_v0_4
  requires SpecScore_Everywhere_339e89f318776507_Pre(a)
  requires SpecScore_Everywhere_339e89f318776507_Post(a, SpecScore_o1_r) && SpecScore_Everywhere_339e89f318776507_Post(a, SpecScore_o2_r)
  ensures SpecScore_o1_r == SpecScore_o2_r
{
  ghost var SpecScore_Everywhere_seen_a := a[..];
  assert true;
}
predicate SpecScore_Everywhere_e64ee65b203073d7_Pre(s: seq<string>) { (|s| > 0) }
predicate SpecScore_Everywhere_e64ee65b203073d7_Post(s: seq<string>, r: string) requires SpecScore_Everywhere_e64ee65b203073d7_Pre(s)
{ (r in s) }
method SpecScore_Everywhere_e64ee65b203073d7(s: seq<string>, SpecScore_o1_r: string, SpecScore_o2_r: string, SpecScore_len_v0: int, SpecScore_v0_0: string, SpecScore_v0_1: string, SpecScore_v0_2: string, SpecScore_v0_3: string, SpecScore_v0_4: string, SpecScore_len_v1: int, SpecScore_v1_0: int, SpecScore_v1_1: int, SpecScore_v1_2: int, SpecScore_v1_3: int, SpecScore_v1_4: int, SpecScore_len_v2: int, SpecScore_v2_0: int, SpecScore_v2_1: int, SpecScore_v2_2: int, SpecScore_v2_3: int, SpecScore_v2_4: int, SpecScore_len_v0_0: int, SpecScore_v0_0_0: int, SpecScore_v0_0_1: int, SpecScore_v0_0_2: int, SpecScore_v0_0_3: int, SpecScore_v0_0_4: int, SpecScore_len_v0_1: int, SpecScore_v0_1_0: int, SpecScore_v0_1_1: int, SpecScore_v0_1_2: int, SpecScore_v0_1_3: int, SpecScore_v0_1_4: int, SpecScore_len_v0_2: int, SpecScore_v0_2_0: int, SpecScore_v0_2_1: int, SpecScore_v0_2_2: int, SpecScore_v0_2_3: int, SpecScore_v0_2_4: int, SpecScore_len_v0_3: int, SpecScore_v0_3_0: int, SpecScore_v0_3_1: int, SpecScore_v0_3_2: int, SpecScore_v0_3_3: int, SpecScore_v0_3_4: int, SpecScore_len_v0_4: int, SpecScore_v0_4_0: int, SpecScore_v0_4_1: int, SpecScore_v0_4_2: int, SpecScore_v0_4_3: int, SpecScore_v0_4_4: int)
  requires |s| == SpecScore_len_v0 && 0 <= SpecScore_len_v0 <= 5
  requires SpecScore_len_v0 > 0 ==> s[0] == SpecScore_v0_0
  requires SpecScore_len_v0 > 1 ==> s[1] == SpecScore_v0_1
  requires SpecScore_len_v0 > 2 ==> s[2] == SpecScore_v0_2
  requires SpecScore_len_v0 > 3 ==> s[3] == SpecScore_v0_3
  requires SpecScore_len_v0 > 4 ==> s[4] == SpecScore_v0_4
  requires |SpecScore_o1_r| == SpecScore_len_v1 && 0 <= SpecScore_len_v1 <= 5
  requires SpecScore_len_v1 > 0 ==> 0 <= SpecScore_v1_0 < 55296 && SpecScore_o1_r[0] == SpecScore_v1_0 as char
  requires SpecScore_len_v1 > 1 ==> 0 <= SpecScore_v1_1 < 55296 && SpecScore_o1_r[1] == SpecScore_v1_1 as char
  requires SpecScore_len_v1 > 2 ==> 0 <= SpecScore_v1_2 < 55296 && SpecScore_o1_r[2] == SpecScore_v1_2 as char
  requires SpecScore_len_v1 > 3 ==> 0 <= SpecScore_v1_3 < 55296 && SpecScore_o1_r[3] == SpecScore_v1_3 as char
  requires SpecScore_len_v1 > 4 ==> 0 <= SpecScore_v1_4 < 55296 && SpecScore_o1_r[4] == SpecScore_v1_4 as char
  requires |SpecScore_o2_r| == SpecScore_len_v2 && 0 <= SpecScore_len_v2 <= 5
  requires SpecScore_len_v2 > 0 ==> 0 <= SpecScore_v2_0 < 55296 && SpecScore_o2_r[0] == SpecScore_v2_0 as char
  requires SpecScore_len_v2 > 1 ==> 0 <= SpecScore_v2_1 < 55296 && SpecScore_o2_r[1] == SpecScore_v2_1 as char
  requires SpecScore_len_v2 > 2 ==> 0 <= SpecScore_v2_2 < 55296 && SpecScore_o2_r[2] == SpecScore_v2_2 as char
  requires SpecScore_len_v2 > 3 ==> 0 <= SpecScore_v2_3 < 55296 && SpecScore_o2_r[3] == SpecScore_v2_3 as char
  requires SpecScore_len_v2 > 4 ==> 0 <= SpecScore_v2_4 < 55296 && SpecScore_o2_r[4] == SpecScore_v2_4 as char
  requires |SpecScore_v0_0| == SpecScore_len_v0_0 && 0 <= SpecScore_len_v0_0 <= 5
  requires SpecScore_len_v0_0 > 0 ==> 0 <= SpecScore_v0_0_0 < 55296 && SpecScore_v0_0[0] == SpecScore_v0_0_0 as char
  requires SpecScore_len_v0_0 > 1 ==> 0 <= SpecScore_v0_0_1 < 55296 && SpecScore_v0_0[1] == SpecScore_v0_0_1 as char
  requires SpecScore_len_v0_0 > 2 ==> 0 <= SpecScore_v0_0_2 < 55296 && SpecScore_v0_0[2] == SpecScore_v0_0_2 as char
  requires SpecScore_len_v0_0 > 3 ==> 0 <= SpecScore_v0_0_3 < 55296 && SpecScore_v0_0[3] == SpecScore_v0_0_3 as char
  requires SpecScore_len_v0_0 > 4 ==> 0 <= SpecScore_v0_0_4 < 55296 && SpecScore_v0_0[4] == SpecScore_v0_0_4 as char
  requires |SpecScore_v0_1| == SpecScore_len_v0_1 && 0 <= SpecScore_len_v0_1 <= 5
  requires SpecScore_len_v0_1 > 0 ==> 0 <= SpecScore_v0_1_0 < 55296 && SpecScore_v0_1[0] == SpecScore_v0_1_0 as char
  requires SpecScore_len_v0_1 > 1 ==> 0 <= SpecScore_v0_1_1 < 55296 && SpecScore_v0_1[1] == SpecScore_v0_1_1 as char
  requires SpecScore_len_v0_1 > 2 ==> 0 <= SpecScore_v0_1_2 < 55296 && SpecScore_v0_1[2] == SpecScore_v0_1_2 as char
  requires SpecScore_len_v0_1 > 3 ==> 0 <= SpecScore_v0_1_3 < 55296 && SpecScore_v0_1[3] == SpecScore_v0_1_3 as char
  requires SpecScore_len_v0_1 > 4 ==> 0 <= SpecScore_v0_1_4 < 55296 && SpecScore_v0_1[4] == SpecScore_v0_1_4 as char
  requires |SpecScore_v0_2| == SpecScore_len_v0_2 && 0 <= SpecScore_len_v0_2 <= 5
  requires SpecScore_len_v0_2 > 0 ==> 0 <= SpecScore_v0_2_0 < 55296 && SpecScore_v0_2[0] == SpecScore_v0_2_0 as char
  requires SpecScore_len_v0_2 > 1 ==> 0 <= SpecScore_v0_2_1 < 55296 && SpecScore_v0_2[1] == SpecScore_v0_2_1 as char
  requires SpecScore_len_v0_2 > 2 ==> 0 <= SpecScore_v0_2_2 < 55296 && SpecScore_v0_2[2] == SpecScore_v0_2_2 as char
  requires SpecScore_len_v0_2 > 3 ==> 0 <= SpecScore_v0_2_3 < 55296 && SpecScore_v0_2[3] == SpecScore_v0_2_3 as char
  requires SpecScore_len_v0_2 > 4 ==> 0 <= SpecScore_v0_2_4 < 55296 && SpecScore_v0_2[4] == SpecScore_v0_2_4 as char
  requires |SpecScore_v0_3| == SpecScore_len_v0_3 && 0 <= SpecScore_len_v0_3 <= 5
  requires SpecScore_len_v0_3 > 0 ==> 0 <= SpecScore_v0_3_0 < 55296 && SpecScore_v0_3[0] == SpecScore_v0_3_0 as char
  requires SpecScore_len_v0_3 > 1 ==> 0 <= SpecScore_v0_3_1 < 55296 && SpecScore_v0_3[1] == SpecScore_v0_3_1 as char
  requires SpecScore_len_v0_3 > 2 ==> 0 <= SpecScore_v0_3_2 < 55296 && SpecScore_v0_3[2] == SpecScore_v0_3_2 as char
  requires SpecScore_len_v0_3 > 3 ==> 0 <= SpecScore_v0_3_3 < 55296 && SpecScore_v0_3[3] == SpecScore_v0_3_3 as char
  requires SpecScore_len_v0_3 > 4 ==> 0 <= SpecScore_v0_3_4 < 55296 && SpecScore_v0_3[4] == SpecScore_v0_3_4 as char
  requires |SpecScore_v0_4| == SpecScore_len_v0_4 && 0 <= SpecScore_len_v0_4 <= 5
  requires SpecScore_len_v0_4 > 0 ==> 0 <= SpecScore_v0_4_0 < 55296 && SpecScore_v0_4[0] == SpecScore_v0_4_0 as char
  requires SpecScore_len_v0_4 > 1 ==> 0 <= SpecScore_v0_4_1 < 55296 && SpecScore_v0_4[1] == SpecScore_v0_4_1 as char
  requires SpecScore_len_v0_4 > 2 ==> 0 <= SpecScore_v0_4_2 < 55296 && SpecScore_v0_4[2] == SpecScore_v0_4_2 as char
  requires SpecScore_len_v0_4 > 3 ==> 0 <= SpecScore_v0_4_3 < 55296 && SpecScore_v0_4[3] == SpecScore_v0_4_3 as char
  requires SpecScore_len_v0_4 > 4 ==> 0 <= SpecScore_v0_4_4 < 55296 && SpecScore_v0_4[4] == SpecScore_v0_4_4 as char
  requires SpecScore_Everywhere_e64ee65b203073d7_Pre(s)
  requires SpecScore_Everywhere_e64ee65b203073d7_Post(s, SpecScore_o1_r) && SpecScore_Everywhere_e64ee65b203073d7_Post(s, SpecScore_o2_r)
  ensures (|SpecScore_o1_r| == |SpecScore_o2_r| && forall i :: 0 <= i < |SpecScore_o1_r| ==> SpecScore_o1_r[i] == SpecScore_o2_r[i])
{
  assert true;
}
