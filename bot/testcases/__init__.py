"""Reading test cases: Dafny test methods, TOML case files, MBPP-DFY JSON; where they are found (pure parsing,
apart from `discover` and `textfiles`, which read files)."""
