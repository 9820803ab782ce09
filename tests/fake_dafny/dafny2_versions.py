"""Fake Dafny 2.3 for version detection: what the real one prints for --version and /version."""

import sys

if sys.argv[1:] == ["--version"]:
    print("Dafny: Error: unknown switch: --version", file=sys.stderr)
    print("Use /help for available options")
    sys.exit(1)
if sys.argv[1:] == ["/version"]:
    print("Dafny 2.3.0.10506")
    print("*** Error: '/version': Filename extension '' is not supported.")
    sys.exit(1)
sys.exit(1)
