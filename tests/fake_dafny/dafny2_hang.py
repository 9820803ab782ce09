"""Fake Dafny 2: prints its version, or starts a child and hangs (the wall-clock limit must kill both)."""

import os
import subprocess
import sys
import time

if "/version" in sys.argv or "--version" in sys.argv:
    print("Dafny 2.3.0.10506")
    sys.exit(1)
child = subprocess.Popen(["sleep", "60"])  # stands for z3: it must die with the verifier
pid_file = os.environ.get("FAKE_DAFNY_PIDFILE")
if pid_file:
    with open(pid_file, "w") as handle:
        handle.write(str(child.pid))
print("Dafny program verifier version 2.3.0.10506", flush=True)
time.sleep(60)
