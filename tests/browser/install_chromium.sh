#!/usr/bin/env bash
# Install Debian's chromium for the browser tests (Playwright drives it via executable_path;
# never a Playwright browser download), and a small CJK font so Chinese text draws in the browser
# and in PNG/GIF exports. Needs root (CI runs as root); quiet when already there.
set -euo pipefail
FONT=/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
if [ -x /usr/bin/chromium ] && [ -f "$FONT" ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install_chromium.sh: chromium or the CJK font is missing and this is not root; browser tests may skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core fonts-wqy-microhei >/dev/null
