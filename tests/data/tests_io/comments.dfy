method LastChar(s: string) returns (c: char)
  requires |s| > 0
{
  c := s[|s| - 1];
}

method Find(a: array<int>, x: int) returns (i: int)
{
  i := 0;
}

method FindFirstOdd(a: array<int>) returns (found: bool, index: int)
{
  found := false;
  index := 0;
}

method CommentsTest(){
  // a commented check without `;`, on the line after the call
  var out1:=LastChar("xyz");
  //assert out1=='z'
  var out2:=LastChar("ab");
              //assert out2=='b'

  // a print of an element indexed by the result, then the commented check
  var a1:= new int[] [1,2,3,4];
  var out3:=Find(a1, 4);
  print(a1[out3]);print("\n");
                  //assert out3==3;
  var out4:=Find(a1, 2);
  print(a1[out4]);
  //assert out4==1

  // MBPP-DFY task 807: two results, only the second is checked
  var a5:= new int[] [1,3,5];
  var found5,out5:=FindFirstOdd(a5);
  print(a5[out5]);print("\n");
                  //assert out5==0;
}

method Main(){
  CommentsTest();
}
