"""Fake Dafny 2 whose /xml report is cut short after the first method, then crashes (exit 134)."""

import sys
from pathlib import Path

xml = next(arg[len("/xml:") :] for arg in sys.argv if arg.startswith("/xml:"))
names = [arg.rsplit(".", 1)[-1] for arg in sys.argv if arg.startswith("/proc:")]
Path(xml).write_text(
    '\ufeff<?xml version="1.0" encoding="utf-8"?>\n<boogie version="2.3.0.10506">\n'
    f'  <method name="Impl$$_module.__default.{names[0]}" startTime="x">\n'
    '    <conclusion endTime="x" duration="0.25" outcome="correct" />\n  </method>\n'
    f'  <method name="Impl$$_module.__default.{names[1]}" startTime="x">\n    <err',
    encoding="utf-8",
)
print("Fatal error. Internal CLR error.")
sys.exit(134)
