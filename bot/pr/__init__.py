"""Pull-request mode: which methods a change affects, and how their scores moved against base."""
