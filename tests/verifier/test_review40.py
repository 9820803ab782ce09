"""Review of the every-input proofs (determinacy, and what a pull request changes in a spec) with the real
verifier: claims that were false, and the attacks they withstand."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot import runner
from bot.cli import main
from bot.report.sentences import spec_change_sentence
from bot.runner import TestFiles, build_jobs
from bot.settings import Settings
from bot.symbolic.results import Relation, SpecChange
from bot.symbolic.rounds import score_methods
from bot.symbolic.spec_change_run import Pair, spec_changes
from support.paths import DATA

pytestmark = pytest.mark.dafny

TESTS = """
method Tests()
{
  var a := Abs(3);
  expect a == 3;
  var b := Abs(5);
  expect b == 5;
}
"""
# a clause deleted, and a `requires` added that excludes exactly the inputs it spoke of
NARROWED = """method Abs(x: int) returns (r: int)
  requires x >= 0
  ensures x >= 0 ==> r == x
{
  r := x;
}
""" + TESTS


def change(base: str, head: str, tmp_path: Path) -> SpecChange:
    settings = Settings.defaults()
    verifier = runner.open_verifier(settings, cache_dir=tmp_path / "cache")
    jobs = []
    for version, text in (("base", base), ("head", head)):
        root = tmp_path / version
        root.mkdir()
        (root / "abs.dfy").write_text(text, encoding="utf-8")
        jobs.append(build_jobs(root, ["abs.dfy"], TestFiles()).jobs)
    b, h = jobs
    scores = score_methods([*b, *h], verifier.engine, verifier.dialect, settings.score_options())
    (found,) = spec_changes([Pair(b[0], h[0], scores[0], scores[1])], verifier.engine, verifier.dialect)
    return found


def test_equivalent_under_a_narrower_requires_is_not_said_of_every_input(dafny_command: str,
                                                                           tmp_path: Path) -> None:
    """Both postconditions agree wherever both `requires` admit the input, but on x = -1 (admitted by base only)
    base's postcondition rejects r = 0 and head's holds of it: "equivalent on every input" was false there."""
    truth = tmp_path / "truth.dfy"
    truth.write_text(
        "predicate BasePost(x: int, r: int) { (x >= 0 ==> r == x) && (x < 0 ==> r == -x) }\n"
        "predicate HeadPost(x: int, r: int) { x >= 0 ==> r == x }\n"
        "method T() { assert !BasePost(-1, 0) && HeadPost(-1, 0); }\n", encoding="utf-8")
    ran = subprocess.run([dafny_command, "/compile:0", "/nologo", str(truth)], capture_output=True, text=True,
                         check=False)
    assert ran.returncode == 0 and "1 verified, 0 errors" in ran.stdout, ran.stdout

    c = change((DATA / "spec_change" / "abs_base.dfy").read_text(encoding="utf-8"), NARROWED, tmp_path)
    # the input head's new `requires` drops is where base promised something: a proved weakening (the gate fails)
    assert (c.relation, c.accepted_by, c.requires) == (Relation.WEAKER, "head", "admits no input base did not"), c
    assert int(c.inputs.removeprefix("x = ")) < 0 and "its `requires` no longer admits that input" in c.sentence
    assert "no longer admits that input" in spec_change_sentence(c)


def test_equivalent_with_the_same_requires_is_said_of_every_input(dafny_command: str, tmp_path: Path) -> None:
    c = change((DATA / "spec_change" / "abs_base.dfy").read_text(encoding="utf-8"),
               (DATA / "spec_change" / "abs_equivalent.dfy").read_text(encoding="utf-8"), tmp_path)
    assert (c.relation, c.requires) == (Relation.EQUIVALENT, "same"), c
    assert "equivalent to base's on every input (proved)" in c.sentence
    assert spec_change_sentence(c).endswith("proved equivalent to base's on every input.")


def everywhere(tmp_path: Path, text: str) -> dict[str, dict[str, str]]:
    spec = tmp_path / "spec.dfy"
    spec.write_text(text, encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["score", str(spec), "--format", "json", "--output", str(out), "--no-suggest", "--report-only",
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    return {m["method"]: m["everywhere"] for m in json.loads(out.read_text(encoding="utf-8"))["methods"]}


def test_a_module_alias_shadowing_a_module_is_read_as_the_method_reads_it(dafny_command: str,
                                                                          tmp_path: Path) -> None:
    """Inside M, `Lib` is the alias of Other (whose Good is `true`), not the top-level Lib (whose Good pins r):
    the program opening M reads it the same way, so the spec is not determined."""
    found = everywhere(tmp_path, """
module Lib { predicate Good(x: int, r: int) { r == x } }
module Other { predicate Good(x: int, r: int) { true } }
module M {
  import Lib = Other
  method P(x: int) returns (r: int)
    ensures Lib.Good(x, r)
  {
    r := x;
  }
  method Tests()
  {
    var a := P(3);
    expect a == 3;
  }
}
""")
    assert found["M.P"]["status"] == "not-determined", found


def test_a_bodiless_lemma_called_inside_a_clause_makes_it_unknown(dafny_command: str, tmp_path: Path) -> None:
    """`ensures (Bad(); ...)` with `lemma Bad() ensures false`: every determinacy question would be proved."""
    found = everywhere(tmp_path, """
lemma Bad()
  ensures false

method Abs(x: int) returns (r: int)
  ensures (Bad(); x >= 0 ==> r == x)
{
  r := x;
}

method Tests()
{
  var a := Abs(3);
  expect a == 3;
}
""")
    assert found["Abs"] == {"status": "unknown", "inputs": "", "outputs": [],
                            "reason": "the background rests on trusted axioms"}, found
