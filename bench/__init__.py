"""The benchmark, run as `python3 -m bench` (see __main__.py): it writes bench/RESULTS.md."""
