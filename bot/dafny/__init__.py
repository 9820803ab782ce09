"""The Dafny language as the tool reads it: lexer, declarations, types, values, expressions, dialects, includes.

Pure code: it knows nothing of tests, the verifier, reports or GitHub."""
