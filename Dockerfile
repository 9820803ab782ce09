# The Action's image. action.yml on the default branch builds it on every run (`image: Dockerfile`); a release
# builds it once (.github/workflows/release.yml) and its release commit's action.yml pulls it by digest.
# Sizes and build times: bench/IMAGE.md.
# By default the verifier is Debian's `dafny` package (Dafny 2.3 on mono, with z3), installed by the same
# scripts/setup.sh that the README and CI use.
# `--build-arg DAFNY_VERSION=4.9.1` installs that official Dafny 4 release instead (with the .NET 8
# runtime it needs); the tool detects the version at run time and drives `dafny verify`.
# BASE_IMAGE: the official image, always, for the Action and a release. scripts/image.py (the image tier) passes a
# stand-in built from Debian's packages only where the public registry cannot be reached.
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}

ARG DAFNY_VERSION=""
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive

# git: the Action diffs base and head. No recommended packages, no apt lists left in a layer (the base
# image's apt already deletes the downloaded .deb files).
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null \
 && rm -rf /var/lib/apt/lists/*

# Dafny 4 only: curl and unzip fetch the release and are removed again in the same layer.
RUN if [ -n "$DAFNY_VERSION" ]; then \
      apt-get update -qq && apt-get install -y -qq --no-install-recommends curl unzip >/dev/null \
      && curl -fsSL https://packages.microsoft.com/config/debian/12/packages-microsoft-prod.deb -o /tmp/ms.deb \
      && dpkg -i /tmp/ms.deb && rm /tmp/ms.deb \
      && apt-get update -qq && apt-get install -y -qq --no-install-recommends dotnet-runtime-8.0 >/dev/null \
      && curl -fsSL "https://github.com/dafny-lang/dafny/releases/download/v${DAFNY_VERSION}/dafny-${DAFNY_VERSION}-x64-ubuntu-20.04.zip" -o /tmp/dafny.zip \
      && unzip -q /tmp/dafny.zip -d /opt && rm /tmp/dafny.zip \
      && ln -s /opt/dafny/dafny /usr/local/bin/dafny \
      && apt-get purge -y -qq --auto-remove curl unzip >/dev/null \
      && rm -rf /var/lib/apt/lists/*; \
    fi

WORKDIR /app
COPY pyproject.toml README.md entrypoint.py /app/
COPY bot /app/bot
COPY scripts/setup.sh /app/scripts/setup.sh
# the bundled example: the release workflow's smoke test scores it in the built image
COPY examples /app/examples
# The package index pip uses: PyPI unless given (scripts/image.py passes the building machine's own, read from its
# pip configuration; without a value a build argument sets nothing).
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
# scripts/setup.sh installs Debian's dafny (without recommended packages) only when no `dafny` is on PATH
# (so not over a Dafny 4 build), then this package without its development tools.
RUN DAFNY_SPEC_SCORE_EXTRAS=action bash scripts/setup.sh \
 && rm -rf /var/lib/apt/lists/* /root/.cache \
 && git config --system --add safe.directory '*'

ENTRYPOINT ["python3", "/app/entrypoint.py"]
