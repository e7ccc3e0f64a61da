#!/usr/bin/env bash
# Create .venv-sglang: SGLang's own RadixCache (the sglang wheel), which tests/radix drives beside
# blockviz's copy (blockviz/radix). About 1.2 GB and 4 minutes the first time; safe to run again
# (a stamp file). sglang comes without its dependencies: all of them are a CUDA torch, flashinfer
# and GPU kernels, about 6 GB, for modules the radix tree never calls, and tests/radix/sglang_side.py
# stands in for those few modules. What the cache's own modules import is installed here, on the
# CPU build of torch that blockviz is tested with (numpy only so that torch starts without a warning).
set -euo pipefail
cd "$(dirname "$0")/.."
sglang_version=0.5.23
stamp=.venv-sglang/.blockviz-sglang-$sglang_version
if [ -f "$stamp" ]; then
    exit 0
fi
if [ ! -x .venv-sglang/bin/python ]; then
    python3 -m venv .venv-sglang
fi
.venv-sglang/bin/pip install --quiet -c constraints.txt torch numpy msgspec pyzmq pydantic psutil
.venv-sglang/bin/pip install --quiet --no-deps "sglang==$sglang_version"
(cd tests/radix && ../../.venv-sglang/bin/python -c "import sglang_side; sglang_side.install_stand_ins(); sglang_side.sglang_api()")
touch "$stamp"
