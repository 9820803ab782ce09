"""The programs of a case: the harness text, the ground facts and hints it carries, candidate outputs."""
