#!/usr/bin/env bash
# Set up (first time only) and open the lessons in JupyterLab on the embedded default model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/build_notebooks.py
# No news pop-up over the lessons: JupyterLab's announcements (news and update checks, which would go to
# the network) off by default in this .venv's lab, through its admin overrides; a learner can still turn them on.
overrides="$(.venv/bin/python -c 'from jupyterlab.commands import get_app_dir; print(get_app_dir())')/settings/overrides.d"
mkdir -p "$overrides"
echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
    > "$overrides/blockviz-lessons.json"
extra=()
if [ "$(id -u)" = 0 ]; then
    extra+=(--allow-root)  # JupyterLab refuses root without it (containers, CI boxes)
fi
exec .venv/bin/jupyter lab --notebook-dir=. "${extra[@]}" "${@}" notebooks/en/00_start_here.ipynb
