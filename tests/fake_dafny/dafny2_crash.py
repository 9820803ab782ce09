"""Fake Dafny 2 that crashes like mono does: garbage, a stack trace, exit code 134."""

import sys

print("\x00\x01garbage ~~~ \ufffd")
print("Unhandled Exception:")
print("System.NullReferenceException: Object reference not set to an instance of an object")
print("  at Microsoft.Dafny.Resolver.ResolveExpression (Microsoft.Dafny.Expression expr) [0x00000]")
sys.exit(134)
