#!/usr/bin/env bash
# Create .venv and install blockviz with its test tools. Safe to run again: it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=.venv/.blockviz-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
    .venv/bin/pip install --quiet -c constraints.txt -e ".[test]"
    touch "$stamp"
fi
