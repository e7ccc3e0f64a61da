#!/usr/bin/env bash
# Install Debian's nodejs and node-jsdom for the front-end modules' tests (tests/views/test_js.py
# runs `node --test tests/views/js/`). Needs root (CI runs as root); quiet when already there.
set -euo pipefail
if command -v node >/dev/null && [ -d /usr/share/nodejs/jsdom ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install_node.sh: node or jsdom is missing and this is not root; the JavaScript tests may skip or fail" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
packages=(node-jsdom)
command -v node >/dev/null || packages+=(nodejs)
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
