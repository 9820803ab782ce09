"""Builds the Action's image on this machine as the release does, starting what it needs.

    python3 scripts/image.py build [--tag TAG] [--context DIR]

1. An engine: `docker info` must answer. When none runs, `dockerd` is started in the background (as root; Debian's
   `docker.io` is installed first when `dockerd` is missing) and waited for.
2. A base: the Dockerfile's default, `python:3.11-slim-bookworm`, when it is present or can be pulled. Where the
   public registry cannot be reached, a stand-in built from Debian's packages: `debootstrap` of bookworm with
   Debian's Python 3.11, pip and venv, from the Debian mirror this machine's apt uses, trimmed like the slim images,
   trusting the certificate authorities this machine trusts (a TLS-intercepting egress needs them for pip), and
   `docker import`ed. The stand-in is kept in the engine under a name that carries its recipe's version, so a
   second run on one machine reuses it (`docker rmi` it to rebuild).
3. The build: `docker build` of the Dockerfile with the context `.`, as the release's build step, with the base as
   the `BASE_IMAGE` build argument and this machine's pip index (read from `pip config` and `PIP_INDEX_URL` /
   `PIP_EXTRA_INDEX_URL`; only http(s) indexes, which a container can reach) as `PIP_INDEX_URL` /
   `PIP_EXTRA_INDEX_URL` build arguments. The legacy builder is used when the client has no buildx.

Progress goes to standard error. Exit codes: 0 built; 3 no engine could be started (the reason on standard error);
1 anything else. Standard library only, like scripts/release.py. The image tier (tests/image) runs this.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OFFICIAL_BASE = "python:3.11-slim-bookworm"
# bump when the stand-in's recipe below changes: the name is what a second run looks for
STAND_IN_RECIPE = 1
STAND_IN = f"dafny-spec-score-base:bookworm-python3.11-r{STAND_IN_RECIPE}"
DEFAULT_TAG = "dafny-spec-score:image-tier"
NO_ENGINE = 3
ENGINE_WAIT_SECONDS = 90
DOCKERD_LOG = Path(tempfile.gettempdir()) / "dafny-spec-score-dockerd.log"
# what debian:bookworm-slim (under python:3.11-slim-bookworm) leaves out of every package it installs
SLIM_EXCLUDES = ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/groff/*", "/usr/share/info/*",
                 "/usr/share/lintian/*", "/usr/share/linda/*", "/usr/share/locale/*"]
_CLEAN = '"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"'
DOCKER_CLEAN = (f"DPkg::Post-Invoke {{ {_CLEAN}; }};\nAPT::Update::Post-Invoke {{ {_CLEAN}; }};\n"
                'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n')


class NoEngine(Exception):
    """No container engine answers and none could be started: the message says why."""


def say(message: str) -> None:
    print(f"image: {message}", file=sys.stderr, flush=True)


def run(*cmd: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), text=True, check=False, **kwargs)  # type: ignore[call-overload,no-any-return]


def quiet(*cmd: str, timeout: float = 60) -> bool:
    try:
        return run(*cmd, capture_output=True, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# --- 1. the engine -----------------------------------------------------------------------------------------------


def engine_answers() -> bool:
    return shutil.which("docker") is not None and quiet("docker", "info", timeout=30)


def start_engine() -> None:
    """Makes `docker info` answer, or raises NoEngine with the reason."""
    if engine_answers():
        return
    is_root = os.geteuid() == 0
    if shutil.which("dockerd") is None:
        if not (is_root and shutil.which("apt-get")):
            raise NoEngine("no Docker engine answers and `dockerd` is not installed; as root, "
                           "`apt-get install docker.io` installs Debian's")
        say("installing Debian's docker.io (no engine is installed)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if run("apt-get", "update", "-qq", env=env).returncode != 0 or run(
                "apt-get", "install", "-y", "-qq", "docker.io", env=env, stdout=subprocess.DEVNULL).returncode != 0:
            raise NoEngine("installing Debian's docker.io failed (apt-get's output above)")
    if shutil.which("docker") is None:
        raise NoEngine("`dockerd` is installed but no `docker` client is on PATH")
    if not is_root:
        raise NoEngine("no Docker engine answers and `dockerd` starts only as root (run as root, or start it)")
    say(f"starting dockerd in the background (log: {DOCKERD_LOG})")
    with DOCKERD_LOG.open("ab") as log:
        # its own session: it outlives this script and the test run, so the next run finds it answering
        daemon = subprocess.Popen(["dockerd"], stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
    deadline = time.monotonic() + ENGINE_WAIT_SECONDS
    while time.monotonic() < deadline:
        if engine_answers():
            say(f"dockerd answers (pid {daemon.pid})")
            return
        if daemon.poll() is not None:
            raise NoEngine(f"dockerd exited with code {daemon.returncode}: {_tail(DOCKERD_LOG)}")
        time.sleep(1)
    raise NoEngine(f"dockerd did not answer within {ENGINE_WAIT_SECONDS} s: {_tail(DOCKERD_LOG)}")


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as e:
        return str(e)


# --- 2. the base ---------------------------------------------------------------------------------------------------


def base_image() -> str:
    """The official base when present or pullable, else the stand-in (built once per machine)."""
    if quiet("docker", "image", "inspect", OFFICIAL_BASE):
        return OFFICIAL_BASE
    say(f"pulling {OFFICIAL_BASE}")
    if quiet("docker", "pull", "-q", OFFICIAL_BASE, timeout=600):
        return OFFICIAL_BASE
    say(f"{OFFICIAL_BASE} cannot be pulled here: using a stand-in built from Debian's packages ({STAND_IN})")
    if quiet("docker", "image", "inspect", STAND_IN):
        say(f"{STAND_IN} is already built on this machine: reused")
        return STAND_IN
    build_stand_in()
    return STAND_IN


def debian_mirror() -> str:
    """The Debian mirror of this machine's apt sources that serves bookworm main (never a name typed here)."""
    sources = Path("/etc/apt")
    files = [sources / "sources.list", *sorted((sources / "sources.list.d").glob("*"))]
    for f in files:
        if not f.is_file() or f.suffix not in ("", ".list", ".sources"):
            continue
        text = f.read_text(errors="replace")
        if f.suffix == ".sources":
            for stanza in text.split("\n\n"):
                fields = dict(_field(line) for line in stanza.splitlines() if ":" in line and not line[0].isspace()
                              and not line.startswith("#"))
                if ("bookworm" in fields.get("Suites", "").split() and "main" in fields.get("Components", "").split()
                        and fields.get("Types", "deb").split()[0] == "deb" and fields.get("Enabled", "yes") != "no"):
                    return fields["URIs"].split()[0]
        else:
            for line in text.splitlines():
                words = line.split("#")[0].split()
                words = [w for w in words if not w.startswith("[")]
                if len(words) >= 4 and words[0] == "deb" and words[2] == "bookworm" and "main" in words[3:]:
                    return words[1]
    raise SystemExit("image: no Debian bookworm mirror in /etc/apt's sources to build the stand-in base from")


def _field(line: str) -> tuple[str, str]:
    key, _, value = line.partition(":")
    return key.strip(), value.strip()


def build_stand_in() -> None:
    if shutil.which("debootstrap") is None:
        say("installing Debian's debootstrap")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if run("apt-get", "update", "-qq", env=env).returncode != 0 or run(
                "apt-get", "install", "-y", "-qq", "debootstrap", env=env, stdout=subprocess.DEVNULL).returncode != 0:
            raise SystemExit("image: debootstrap is missing and could not be installed")
    mirror = debian_mirror()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dafny-spec-score-base-") as tmp:
        root = Path(tmp) / "root"
        say(f"debootstrap of bookworm from {mirror} (a few minutes)")
        done = run("debootstrap", "--variant=minbase", "--include=python3.11,python3-pip,python3-venv,ca-certificates",
                   "bookworm", str(root), mirror, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            raise SystemExit(f"image: debootstrap failed with code {done.returncode}")
        _slim(root)
        say("importing the stand-in base")
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = run("docker", "import", "--change", "ENV LANG=C.UTF-8", "--change", 'CMD ["python3"]',
                       "--message", f"stand-in for {OFFICIAL_BASE} (scripts/image.py, recipe {STAND_IN_RECIPE})",
                       "-", STAND_IN, stdin=tar.stdout, stdout=subprocess.DEVNULL)
        assert tar.stdout is not None
        tar.stdout.close()
        if tar.wait() != 0 or imported.returncode != 0:
            raise SystemExit("image: importing the stand-in base failed")
    say(f"stand-in base built in {time.monotonic() - started:.0f} s")


def _slim(root: Path) -> None:
    """Makes the debootstrapped tree behave like the official image where the build depends on it."""
    # the official image's Python is its own, into which pip installs as root; Debian marks its own as managed by apt
    for marker in root.glob("usr/lib/python3*/EXTERNALLY-MANAGED"):
        marker.unlink()
    # like debian:bookworm-slim: no documentation installed, no .deb or package lists kept by apt
    dpkg = root / "etc/dpkg/dpkg.cfg.d/docker"
    dpkg.write_text("".join(f"path-exclude {p}\n" for p in SLIM_EXCLUDES) + "path-include /usr/share/doc/*/copyright\n")
    (root / "etc/apt/apt.conf.d/docker-clean").write_text(DOCKER_CLEAN)
    (root / "etc/apt/apt.conf.d/docker-gzip-indexes").write_text('Acquire::GzipIndexes "true";\n')
    for pattern in SLIM_EXCLUDES:
        for p in root.glob(pattern.lstrip("/")):
            if p.is_symlink() or p.is_file():
                p.unlink()
            elif pattern.startswith("/usr/share/doc/"):  # the copyright files stay, as in the slim images
                for f in [f for f in p.rglob("*") if f.name != "copyright" and (f.is_file() or f.is_symlink())]:
                    f.unlink()
            else:
                shutil.rmtree(p)
    for cache in ["var/lib/apt/lists", "var/cache/apt/archives"]:
        for p in (root / cache).glob("*"):
            if p.is_file():
                p.unlink()
    # this machine's own certificate authorities (a TLS-intercepting egress): the stand-in is built and used here
    # only, never pushed; pip in the build reaches the package index through them
    local = Path("/usr/local/share/ca-certificates")
    if local.is_dir():
        shutil.copytree(local, root / "usr/local/share/ca-certificates", dirs_exist_ok=True)
        if run("chroot", str(root), "update-ca-certificates", stdout=subprocess.DEVNULL).returncode != 0:
            raise SystemExit("image: update-ca-certificates failed in the stand-in base")


# --- 3. the build --------------------------------------------------------------------------------------------------


def pip_index_args() -> list[str]:
    """This machine's http(s) package indexes as build arguments (the Dockerfile declares both)."""
    found: dict[str, str] = {}
    listed = run(sys.executable, "-m", "pip", "config", "list", capture_output=True)
    for line in listed.stdout.splitlines():
        key, _, value = line.partition("=")
        name = key.split(".")[-1]
        if name in ("index-url", "extra-index-url"):
            found.setdefault(name, value.strip().strip("'\""))
    for name, var in (("index-url", "PIP_INDEX_URL"), ("extra-index-url", "PIP_EXTRA_INDEX_URL")):
        if os.environ.get(var):
            found[name] = os.environ[var]
    args = []
    for name, var in (("index-url", "PIP_INDEX_URL"), ("extra-index-url", "PIP_EXTRA_INDEX_URL")):
        reachable = [u for u in found.get(name, "").split() if u.startswith(("http://", "https://"))]
        if reachable:
            args += ["--build-arg", f"{var}={' '.join(reachable)}"]
    return args


def build(tag: str, context: Path) -> None:
    base = base_image()
    env = dict(os.environ)
    if not quiet("docker", "buildx", "version"):
        env["DOCKER_BUILDKIT"] = "0"  # the client has no buildx: the engine's own builder
    indexes = pip_index_args()
    # the names only: an index URL may carry credentials
    named = [arg.split("=")[0] for arg in indexes[1::2]]
    say(f"building {context / 'Dockerfile'} as {tag} on {base}"
        + (f" with this machine's package index ({', '.join(named)})" if indexes else ""))
    started = time.monotonic()
    done = run("docker", "build", "--build-arg", f"BASE_IMAGE={base}", *indexes, "--tag", tag, str(context), env=env)
    if done.returncode != 0:
        raise SystemExit(f"image: docker build failed with code {done.returncode}")
    size = run("docker", "image", "inspect", "--format", "{{.Size}}", tag, capture_output=True).stdout.strip()
    say(f"built {tag} in {time.monotonic() - started:.0f} s: {int(size or 0) / 1e6:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/image.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("engine", help="start an engine when none answers")
    b = sub.add_parser("build", help="start an engine, find or build the base, build the image")
    b.add_argument("--tag", default=DEFAULT_TAG)
    b.add_argument("--context", type=Path, default=Path(__file__).resolve().parent.parent,
                   help="the folder holding the Dockerfile (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        start_engine()
    except NoEngine as e:
        say(f"no engine: {e}")
        return NO_ENGINE
    if args.command == "build":
        build(args.tag, args.context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
