"""The lines of a pull request's diff a review comment may sit on, read from GitHub's `patch`."""

from __future__ import annotations

from bot.github.pr.diff import commentable, hunks

PATCH = """@@ -8,6 +8,7 @@ predicate InArray(a: array<int>, x: int)
 method SharedElements(a: array<int>, b: array<int>) returns (result: seq<int>)
-  ensures forall x :: x in result <==> (InArray(a, x) && InArray(b, x))
+  ensures forall x :: x in result ==> (InArray(a, x) && InArray(b, x))
+  ensures |result| >= 0
   ensures forall i, j :: 0 <= i < j < |result| ==> result[i] != result[j]
 {
@@ -40 +41 @@ method Test()
-  x := 1;
+  x := 2;
@@ -50,3 +51,0 @@
-gone
"""


def test_hunks_are_the_new_side_ranges() -> None:
    assert hunks(PATCH) == (range(8, 15), range(41, 42))
    assert hunks("") == ()


def test_a_comment_sits_only_inside_one_hunk() -> None:
    diff = {"s.dfy": hunks(PATCH)}
    assert commentable(diff, "s.dfy", 9, 11)
    assert commentable(diff, "s.dfy", 41, 41)
    assert not commentable(diff, "s.dfy", 14, 41)  # two hunks
    assert not commentable(diff, "s.dfy", 30, 30)  # between hunks
    assert not commentable(diff, "other.dfy", 9, 9)
