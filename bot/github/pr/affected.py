"""Which spec files a pull request's changes affect. Pure code (existence checks are passed in)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence

from bot.paths import matches


def spec_for_test(path: str, exists: Callable[[str], bool]) -> list[str]:
    """The specs a test file belongs to by the layout discovery reads (bot/testcases/discover.py): `X.tests.toml`
    -> `X.dfy`; `X_test.dfy`, `X.test.dfy`, `test_X.dfy` -> `X.dfy` beside it; a file of a `test/` or `tests/`
    folder -> the same-named spec beside that folder or in its sibling `src/` (the MBPP-DFY layout)."""
    if path.endswith(".tests.toml"):
        spec = path[: -len(".tests.toml")] + ".dfy"
        return [spec] if exists(spec) else []
    if not path.endswith(".dfy"):
        return []
    head, name = posixpath.split(path)
    stem = name[:-4]
    stems = [s for s in (stem[:-5] if stem.endswith("_test") else "", stem[:-5] if stem.endswith(".test") else "",
                         stem[5:] if stem.startswith("test_") else "") if s]
    found = [posixpath.join(head, f"{s}.dfy") for s in stems]
    parent, folder = posixpath.split(head)
    if folder in ("test", "tests"):
        for s in [stem, *stems]:
            found += [posixpath.join(parent, f"{s}.dfy"), posixpath.join(parent, "src", f"{s}.dfy")]
    return sorted({p for p in found if p != path and exists(p)})


def tests_of_no_spec(changed: Sequence[str], exists_head: Callable[[str], bool],
                     exists_base: Callable[[str], bool]) -> list[str]:
    """The changed `X.tests.toml` files at head whose spec `X.dfy` exists at neither revision: named for no spec (a
    typo, a renamed spec), their cases would never be read, and a case that is never read checks nothing."""
    return sorted(p for p in changed if p.endswith(".tests.toml") and exists_head(p)
                  and not spec_for_test(p, lambda q: exists_head(q) or exists_base(q)))


def affected_specs(
    changed: Sequence[str],
    spec_globs: Sequence[str],
    test_globs: Sequence[str],
    exists_head: Callable[[str], bool],
    exists_base: Callable[[str], bool],
    tested_by: Callable[[str], Iterable[str]] = lambda _: (),
    including: Callable[[Sequence[str]], Iterable[str]] = lambda _: (),
) -> list[str]:
    """Spec files to score at head and base: changed specs, the specs of changed test files, and the specs that
    `include` a changed Dafny file, directly or not (`including(changed .dfy paths)`): a helper changed there
    changes what their specs mean.

    A test file is a spec's by the layout (`X.tests.toml`, `tests/X.dfy`, `../test/X.dfy`, ...: spec_for_test)
    or, when it matches `test_globs`, by `tested_by(path)`: the spec files whose methods it tests. A spec file
    removed by the change is kept (its methods show as removed); files that exist at neither revision are dropped.
    """
    out: set[str] = set()
    for path in changed:
        if path.endswith(".dfy") and matches(path, spec_globs):
            out.add(path)
        if path.endswith(".tests.toml") or matches(path, test_globs) or path.endswith(".dfy"):
            out.update(spec for spec in spec_for_test(path, lambda p: exists_head(p) or exists_base(p))
                       if matches(spec, spec_globs))
        if test_globs and matches(path, test_globs):
            out.update(p for p in tested_by(path) if matches(p, spec_globs))
    dafny = [p for p in changed if p.endswith(".dfy")]
    if dafny:
        out.update(p for p in including(dafny) if matches(p, spec_globs))
    return sorted(p for p in out if exists_head(p) or exists_base(p))
