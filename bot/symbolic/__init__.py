"""The pure core: programs asked of the verifier, proofs read from their outcomes, the rounds of a case, mutants,
counterexamples, and the result data (`results`) that reports and front ends read."""
