method CubeVolume(size: int) returns (volume: int)
  requires size > 0
  ensures volume == size * size * size
{
  volume := size * size * size;
}

method CubeVolumeTest()
{
  var out1 := CubeVolume(3);
  assert out1 == 27;
  var out2 := CubeVolume(2);
  //assert out2 == 8;
  var out3 := CubeVolume(5);
  //assert out3==25;
  var out4 := CubeVolume(-2);
  //assert out4 == -8;
}
