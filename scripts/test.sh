#!/usr/bin/env bash
# Set up (first time only) and run every test, browser tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f tests/browser/install_chromium.sh ]; then
    bash tests/browser/install_chromium.sh
fi
exec .venv/bin/python -m pytest "${@}"
