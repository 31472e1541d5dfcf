#!/usr/bin/env bash
# Installs Debian's SPIN model checker (package spin, 6.5.2), which
# scripts/spin-compare.sh and the Promela test (internal/models:
# TestSpinStates) run. SPIN compiles its verifiers with gcc. The test skips,
# saying so, where spin or gcc is absent.
set -euo pipefail
if command -v spin >/dev/null 2>&1; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
if ! $sudo apt-get update -qq ||
  ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spin >/dev/null; then
  echo "install-spin: could not install Debian's spin package (apt-get failed)" >&2
  exit 1
fi
if ! command -v spin >/dev/null 2>&1; then
  echo "install-spin: apt-get installed spin, but no spin command is on PATH" >&2
  exit 1
fi
