#!/usr/bin/env bash
# Every GPU check and benchmark on one CUDA device, in one go (a few minutes on an H200):
#
#     bash bench/gpu.sh [QWEN3_CHECKPOINT_FOLDER]     # PYTHON=... to use another interpreter
#
# Without a folder it writes a random checkpoint with Qwen3-0.6B's shapes (bench/random_checkpoint.py):
# the speed and memory of the real model, noise for text. Nothing is downloaded. In order:
#   1. the device tests (tests/engine/test_devices.py: float32 tokens equal dense decoding, bfloat16
#      within its rounding, the pool sized from free memory), when pytest is installed;
#   2. the pool nano-vllm's defaults give (warmup batch, then free memory × 0.9), with its load time;
#   3. bench/model.py and 4. bench/demo.py with --device cuda.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
"$PY" - <<'PYEOF'
import importlib.util, sys
missing = [m for m in ("torch", "tokenizers", "safetensors", "xxhash", "numpy", "matplotlib", "ipywidgets",
                       "anywidget") if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"bench/gpu.sh: missing Python packages: {', '.join(missing)} (pip install -e . first)")
import torch
if not torch.cuda.is_available():
    sys.exit(f"bench/gpu.sh: torch {torch.__version__} sees no CUDA device")
p = torch.cuda.get_device_properties(0)
print(f"device: {p.name}, {p.total_memory / 2**30:.0f} GiB; torch {torch.__version__}, CUDA {torch.version.cuda}")
PYEOF
if [ $# -ge 1 ]; then
    [ -d "$1" ] || { echo "bench/gpu.sh: not a folder: $1" >&2; exit 2; }
    MODEL=$(cd "$1" && pwd)
else
    MODEL=$(mktemp -d)/qwen3-0.6b-random
    "$PY" bench/random_checkpoint.py "$MODEL"
fi
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); model: $MODEL"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

echo
if "$PY" -c "import pytest" 2>/dev/null; then
    echo "== $PY -m pytest tests/engine/test_devices.py"
    "$PY" -m pytest -q -p no:cacheprovider tests/engine/test_devices.py
else
    echo "== skipped tests/engine/test_devices.py: pytest not installed"
fi

echo
echo "== the pool from nano-vllm's defaults (block size 256, gpu_memory_utilization 0.9)"
"$PY" - "$MODEL" <<'PYEOF'
import sys, time
import torch
from blockviz.llm import LLM
start = time.perf_counter()
llm = LLM(sys.argv[1], device="cuda", record=False)
print(f"loaded, warmed up and sized in {time.perf_counter() - start:.1f} s; {llm.pool_summary}")
print(f"peak allocated {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
PYEOF

echo
echo "== $PY bench/model.py --model $MODEL --device cuda"
"$PY" bench/model.py --model "$MODEL" --device cuda
echo
echo "== $PY bench/demo.py --model $MODEL --device cuda"
"$PY" bench/demo.py --model "$MODEL" --device cuda
