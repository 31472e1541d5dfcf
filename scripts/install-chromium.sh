#!/usr/bin/env bash
# Installs Debian's Chromium, which the HTML counterexample test
# (cli: TestHTMLInBrowser) renders pages with. The test skips, saying so,
# where no Chromium is installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
