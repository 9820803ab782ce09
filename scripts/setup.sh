#!/usr/bin/env bash
# Sets up a fresh machine: the Dafny verifier (Debian's package, when no `dafny` is on PATH)
# and this package with its development tools. Used by the README, .ci/run and the Dockerfile.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v dafny >/dev/null 2>&1; then
  echo "setup: installing Dafny (Debian package 'dafny', with mono and z3; no recommended packages)" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends dafny >/dev/null
fi
command -v dafny >/dev/null || { echo "setup: dafny is still not on PATH" >&2; exit 1; }

extras="${DAFNY_SPEC_SCORE_EXTRAS:-dev}"
# development only (not the image's `action`): tests/integration/test_html_report.py renders report.html in it,
# tests/integration/test_comment_render.py the pull-request comment
if [[ ",${extras}," == *,dev,* ]] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Chromium (Debian package 'chromium', headless, for the report.html test)" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -e ".[${extras}]"
echo "setup: ready ($(command -v dafny))" >&2
