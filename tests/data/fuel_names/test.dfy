method Main() {
  var r := CountUpper("ABcDeFGhIJ");
  expect r == 7;
}
