"""The release workflow's two steps that decide names (.github/workflows/release.yml; README "Releases").

`check --tag vX.Y.Z --owner <owner>`: the tag must be `v` + the package version (pyproject.toml and
bot/__init__.py) and action.yml at the tag must build from source; prints `image=`, `tag=` and `major=` lines
for $GITHUB_OUTPUT. The image's owner is the repository's, in lowercase (ghcr.io refuses capitals): computed
here, never typed into a file.

`pin --image ghcr.io/<owner>/dafny-spec-score@sha256:<hex>`: rewrites action.yml's `image: Dockerfile` to pull
that image by digest, for the release commit. A tag can be moved to another image; a digest cannot.

`latest --tag vX.Y.Z`: prints `yes` when no version tag of the same major version is higher (then the major tag,
`vX`, moves to this release), else `no`: releasing a fix of an older line leaves `vX` where it is.

Standard library only: the workflow runs it with the runner's own python3, before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "dafny-spec-score"
SOURCE_LINE = "  image: Dockerfile\n"
_GITHUB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,38}")  # GitHub's owner names (`_` in managed users')
_TAG = re.compile(r"v(\d+)\.(\d+)\.(\d+)")
_PINNED = re.compile(r"ghcr\.io/[a-z0-9][a-z0-9_-]*/" + re.escape(NAME) + r"@sha256:[0-9a-f]{64}")


class ReleaseError(Exception):
    """What is wrong, in words a workflow annotation can carry."""


def versions(root: Path) -> tuple[str, str]:
    """The version in pyproject.toml and in bot/__init__.py."""
    with (root / "pyproject.toml").open("rb") as f:
        project = str(tomllib.load(f)["project"]["version"])
    found = re.search(r'^__version__ = "([^"]+)"$', (root / "bot" / "__init__.py").read_text(encoding="utf-8"), re.M)
    return project, found.group(1) if found else ""


def check(root: Path, tag: str, owner: str) -> dict[str, str]:
    """The names this release pushes, or ReleaseError."""
    project, module = versions(root)
    if not _TAG.fullmatch(tag):
        raise ReleaseError(f"tag {tag} is not vX.Y.Z (numbers only: a pre-release is not released here)")
    if tag != f"v{project}" or tag != f"v{module}":
        raise ReleaseError(f"tag {tag} is not v + the package version (pyproject.toml: {project}, "
                           f"bot/__init__.py: {module})")
    if not _GITHUB_NAME.fullmatch(owner):
        raise ReleaseError(f"{owner!r} is not a GitHub owner name")
    if SOURCE_LINE not in (root / "action.yml").read_text(encoding="utf-8"):
        raise ReleaseError("action.yml at this tag does not build from source (`image: Dockerfile`): tag a commit "
                           "of the default branch, not a release commit")
    return {"image": f"ghcr.io/{owner.lower()}/{NAME}", "tag": tag, "major": tag.split(".")[0]}


def is_latest(tag: str, tags: list[str]) -> bool:
    """Whether `tag` is the highest of the `vX.Y.Z` tags of its major version among `tags` (and itself)."""
    own = _TAG.fullmatch(tag)
    if own is None:
        raise ReleaseError(f"tag {tag} is not vX.Y.Z")
    line = [tuple(map(int, m.groups())) for m in map(_TAG.fullmatch, tags) if m and m.group(1) == own.group(1)]
    return tuple(map(int, own.groups())) >= max(line, default=(0, 0, 0))


def pin(action_yml: str, image: str) -> str:
    """action.yml pulling `image` (by digest) instead of building the Dockerfile."""
    if not _PINNED.fullmatch(image):
        raise ReleaseError(f"{image!r} is not ghcr.io/<owner>/{NAME}@sha256:<digest>")
    if action_yml.count(SOURCE_LINE) != 1:
        raise ReleaseError("action.yml has no single `image: Dockerfile` line to replace")
    return action_yml.replace(SOURCE_LINE, f"  image: docker://{image}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/release.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("check", help="check the tag, print the image's names for $GITHUB_OUTPUT")
    c.add_argument("--tag", required=True)
    c.add_argument("--owner", required=True)
    p = commands.add_parser("pin", help="make action.yml pull this image by digest")
    p.add_argument("--image", required=True)
    latest = commands.add_parser("latest", help="yes when no higher version tag of the same major exists")
    latest.add_argument("--tag", required=True)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            for key, value in check(args.root, args.tag, args.owner).items():
                print(f"{key}={value}")
        elif args.command == "latest":
            listed = subprocess.run(["git", "-C", str(args.root), "tag", "--list", "v*"], capture_output=True,
                                    text=True, check=True).stdout.split()
            print("yes" if is_latest(args.tag, listed) else "no")
        else:
            path = args.root / "action.yml"
            path.write_text(pin(path.read_text(encoding="utf-8"), args.image), encoding="utf-8")
            print(f"action.yml pulls docker://{args.image}", file=sys.stderr)
    except ReleaseError as e:
        print(f"::error file=action.yml::{e}" if args.command == "pin" else f"::error::{e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
