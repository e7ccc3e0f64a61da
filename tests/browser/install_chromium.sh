#!/usr/bin/env bash
# Install Debian's chromium for the browser tests (Playwright drives it via executable_path;
# never a Playwright browser download). Needs root (CI runs as root); quiet when already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install_chromium.sh: /usr/bin/chromium is missing and this is not root; the browser tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
