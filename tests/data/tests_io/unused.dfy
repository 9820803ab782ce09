method Swap(a: int, b: int) returns (result: seq<int>)
  ensures result == [b, a]
{
  result := [b, a];
}

// MBPP-DFY task 257 at a57ce24: each expected value is bound before the call and never compared
method SwapTest(){
  var e1: seq<int> := [20,10];
  var res1:=Swap(10,20);
  print(res1);print("\n");

  var e2: seq<int> := [15,17];
  var res2:=Swap(17,15);
  print(res2);print("\n");
}

method SwapGuessTest(){
  // two candidates of the output's type: no guess
  var e3: seq<int> := [2, 1];
  var f3: seq<int> := [1, 2];
  var res3 := Swap(1, 2);
  print(res3);
  // one candidate, of another type: no guess
  var e4 := "ba";
  var res4 := Swap(3, 4);
  print(res4);
  // compared later, so no candidate: the check is read
  var e5: seq<int> := [6, 5];
  var res5 := Swap(5, 6);
  assert res5 == e5;
  // an unused variable of another type beside one that fits: the one that fits
  var n6 := 7;
  var e6 := [8, 7];
  var res6 := Swap(7, 8);
  print(res6);
  // declared after the call: only a hint
  var res7 := Swap(9, 10);
  var e7: seq<int> := [10, 9];
  print(res7);
}

method Main(){
  SwapTest();
  SwapGuessTest();
}
