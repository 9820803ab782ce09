"""What the tests share: paths, the fake GitHub, the runner's reading of a log, the end-to-end and in-process
runners of the Action (imported as `support`: pyproject puts tests/ on the path)."""
