#!/usr/bin/env bash
# The model and classroom-demo benchmarks on one CUDA device, with a local Qwen3 checkpoint:
#
#     bash bench/gpu.sh /path/to/Qwen3-0.6B        # PYTHON=... to use another interpreter
#
# Prints the device, then bench/model.py (prefill and decode tokens/s at batch 1, 8, 32; paged
# against a dense cache; KV bytes per token) and bench/demo.py (generation tokens/s of the demo with
# and without its views), both with --device cuda. Nothing is downloaded.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: bash bench/gpu.sh QWEN3_CHECKPOINT_FOLDER  (config.json, tokenizer.json, *.safetensors)" >&2
    exit 2
fi
MODEL=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
"$PY" - <<'PYEOF'
import sys
import torch
if not torch.cuda.is_available():
    sys.exit(f"bench/gpu.sh: torch {torch.__version__} sees no CUDA device")
p = torch.cuda.get_device_properties(0)
print(f"device: {p.name}, {p.total_memory / 2**30:.0f} GiB; torch {torch.__version__}, CUDA {torch.version.cuda}")
PYEOF
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); model: $MODEL"
echo
echo "== $PY bench/model.py --model $MODEL --device cuda"
"$PY" bench/model.py --model "$MODEL" --device cuda
echo
echo "== $PY bench/demo.py --model $MODEL --device cuda"
"$PY" bench/demo.py --model "$MODEL" --device cuda
