#!/usr/bin/env bash
# Set up (first time only) and open the lessons in JupyterLab on the embedded default model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/build_notebooks.py
extra=()
if [ "$(id -u)" = 0 ]; then
    extra+=(--allow-root)  # JupyterLab refuses root without it (containers, CI boxes)
fi
exec .venv/bin/jupyter lab --notebook-dir=. "${extra[@]}" "${@}" notebooks/en/00_start_here.ipynb
