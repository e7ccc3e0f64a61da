#!/usr/bin/env bash
# Set up (first time only) and run every test, browser tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium and a CJK font first: matplotlib lists the system fonts once, when it is first imported
if [ -f tests/browser/install_chromium.sh ]; then
    bash tests/browser/install_chromium.sh
fi
bash tests/views/js/install_node.sh  # node and jsdom for the JavaScript modules' tests
bash scripts/setup.sh
# the real vLLM that tests/vllm watch (its own environment, 3.4 GB, about 4 minutes the first time)
bash scripts/vllm_env.sh
# SGLang's own RadixCache that tests/radix check blockviz/radix against (1.2 GB, about 4 minutes)
bash scripts/sglang_env.sh
exec .venv/bin/python -m pytest "${@}"
