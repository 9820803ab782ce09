"""Fake Dafny that prints something unexpected for everything, writes no report and exits 0."""

print("Welcome to something that is not Dafny")
