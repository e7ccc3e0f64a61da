#!/usr/bin/env bash
# Set up (first time only) and run every test, browser tests included, in one pytest-xdist worker per
# CPU (tests/conftest.py says which tests stay together). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
setup=$(mktemp -d)
trap 'wait; rm -rf "$setup"' EXIT   # never leaves an installer running behind it
# Debian's chromium, a CJK font, node and jsdom (as root, when missing), while .venv installs; both are
# done before pytest starts: matplotlib lists the system fonts once, when it is first imported
( if [ -f tests/browser/install_chromium.sh ]; then bash tests/browser/install_chromium.sh; fi
  bash tests/views/js/install_node.sh ) > "$setup/apt.log" 2>&1 &
apt=$!
# the real vLLM that tests/vllm watch (its own environment, 3.4 GB, about 4 minutes the first time) is
# built while the tests that do not need it run; those that do wait for it (BLOCKVIZ_VLLM_SETUP)
( set +e; bash scripts/vllm_env.sh > "$setup/vllm.log" 2>&1; echo $? > "$setup/vllm.tmp"
  mv "$setup/vllm.tmp" "$setup/vllm" ) &
# SGLang's own RadixCache that tests/radix check blockviz/radix against (1.2 GB, about 4 minutes the
# first time), also while .venv installs; done before pytest starts
bash scripts/sglang_env.sh > "$setup/sglang.log" 2>&1 &
sglang=$!
bash scripts/setup.sh
if ! wait "$sglang"; then
    echo "scripts/sglang_env.sh failed:" >&2
    tail -n 40 "$setup/sglang.log" >&2
    exit 1
fi
if ! wait "$apt"; then
    cat "$setup/apt.log" >&2
    exit 1
fi
cat "$setup/apt.log" >&2   # the scripts' notes, e.g. that they need root
export BLOCKVIZ_VLLM_SETUP="$setup/vllm"
tests=0
.venv/bin/python -m pytest -n logical --dist loadgroup "$@" || tests=$?
wait
if [ "$(cat "$setup/vllm")" != 0 ]; then
    echo "scripts/vllm_env.sh failed:" >&2
    tail -n 40 "$setup/vllm.log" >&2
    [ "$tests" != 0 ] || tests=1
fi
exit "$tests"
