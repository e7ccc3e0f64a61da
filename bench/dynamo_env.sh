#!/usr/bin/env bash
# Makes .venv-dynamo: NVIDIA Dynamo (`ai-dynamo` from PyPI) in an environment of its own, for
# bench/dynamo.py (its GPU-free trace replay beside blockviz's). Nothing of it enters blockviz's
# own environment. Usage: bash bench/dynamo_env.sh [VERSION]   (default 1.6.1, the one measured)
#
# ai-dynamo 1.6.1 requires aisimulate==0.13.0, which PyPI serves only as a stub that downloads
# the real wheel from pypi.nvidia.com at install time; where that host cannot be reached the full
# install fails ("Preparing metadata ... did not run successfully", in docs/benchmarks.md). The
# trace replay (dynamo.replay.run_trace_replay, in ai-dynamo-runtime's compiled core) does not
# import aisimulate, so the script then installs ai-dynamo without its dependencies, and beside it
# ai-dynamo-runtime and the few packages the replay imports.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-dynamo
VERSION="${1:-1.6.1}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
if ! "${PIP[@]}" "ai-dynamo==$VERSION" 2>"$VENV/full-install.log"; then
    echo "the full ai-dynamo==$VERSION install failed (see $VENV/full-install.log); installing the replay's part" >&2
    "${PIP[@]}" --no-deps "ai-dynamo==$VERSION"
    "${PIP[@]}" "ai-dynamo-runtime==$VERSION" typing-extensions msgspec
fi
"$VENV/bin/python" -c "import importlib.metadata as m, dynamo.replay; print('ai-dynamo', m.version('ai-dynamo'), 'replay importable')"
