"""Fake Dafny 2: prints its version, or starts a child and hangs (the wall-clock limit must kill both).

Environment: FAKE_DAFNY_PIDFILE (where the child's pid is written), FAKE_DAFNY_HANG (seconds it hangs, default 60),
FAKE_DAFNY_RUNLOG (a file each run appends its start time to, `time.time()`, and `end` once it hung its time)."""

import os
import subprocess
import sys
import time

if "/version" in sys.argv or "--version" in sys.argv:
    print("Dafny 2.3.0.10506")
    sys.exit(1)
hang = float(os.environ.get("FAKE_DAFNY_HANG", "60"))
run_log = os.environ.get("FAKE_DAFNY_RUNLOG")
if run_log:
    with open(run_log, "a") as handle:
        handle.write(f"{time.time()}\n")
child = subprocess.Popen(["sleep", str(hang)])  # stands for z3: it must die with the verifier
pid_file = os.environ.get("FAKE_DAFNY_PIDFILE")
if pid_file:
    with open(pid_file, "w") as handle:
        handle.write(str(child.pid))
print("Dafny program verifier version 2.3.0.10506", flush=True)
time.sleep(hang)
child.kill()
if run_log:
    with open(run_log, "a") as handle:
        handle.write("end\n")
