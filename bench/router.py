"""KV-aware routing against round-robin on real vLLM servers: prefix-cache hit rate as vLLM counts it.

    .venv/bin/python bench/router.py [--instances 2] [--blocks 16] [--systems 2]

Starts N `blockviz vllm serve` instances (the embedded model, block size 32, a small pool so
eviction counts, --dev-mode for /reset_prefix_cache), watches them together, and sends each chat
stream of SCENARIOS (users under shared system prompts, each turn the whole conversation so far;
users in the same order every turn, or shuffled) through each policy, every prefix cache emptied
before each. Per policy: the hit rate from the servers' replies
(usage.prompt_tokens_details.cached_tokens over prompt tokens) and from /metrics, how many
predictions differed from what the chosen server reported (goal: 0), the requests per instance.
Needs .venv-vllm (bash scripts/vllm_env.sh); each server takes 2-3 GB and 1-4 minutes to start.
"""
import argparse
import socket
import tempfile
import time
from pathlib import Path

from blockviz.llm import TokenizerFile
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm import router
from blockviz.vllm.fleet import Fleet, chat_stream
from blockviz.vllm.serve import ServerSettings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SCENARIOS = [  # users, turns, shuffle seed (None: users speak in the same order each turn)
    (3, 4, None), (4, 4, None), (4, 4, 0), (4, 4, 1), (6, 3, 0),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=16, help="pool per instance (one is vLLM's null block)")
    parser.add_argument("--systems", type=int, default=2)
    parser.add_argument("--system-tokens", type=int, default=64)
    parser.add_argument("--message-tokens", type=int, default=40)
    args = parser.parse_args()
    tokenizer = TokenizerFile(DEFAULT_MODEL_DIR / "tokenizer.json")
    text = tokenizer.encode((DEFAULT_MODEL_DIR / "corpus" / "pride_and_prejudice.txt").read_text()[300_000:340_000])
    with tempfile.TemporaryDirectory(prefix="bv-router-") as folder:
        settings = [ServerSettings(port=free_port(), events=f"ipc://{folder}/kv-{i}",
                                   replay=f"tcp://127.0.0.1:{free_port()}", blocks=args.blocks, dev_mode=True)
                    for i in range(args.instances)]
        started = time.monotonic()
        with Fleet(settings, log=Path(folder) / "vllm.log") as fleet, fleet.watch() as watch:
            print(f"{args.instances} instances ready in {time.monotonic() - started:.0f} s; pool {args.blocks} "
                  f"blocks of 32 each; {args.systems} system prompts of {args.system_tokens} tokens, messages of "
                  f"{args.message_tokens}")
            for users, turns, shuffle in SCENARIOS:
                stream = chat_stream(text, users, args.systems, turns, args.system_tokens, args.message_tokens,
                                     shuffle)
                order = "in order" if shuffle is None else f"shuffled (seed {shuffle})"
                print(f"{users} users x {turns} turns, {order}: {len(stream)} prompts, "
                      f"{sum(map(len, stream))} prompt tokens")
                report(fleet.compare(watch, stream))


def report(outcomes: dict):
    for outcome in outcomes.values():
        print(f"  {outcome.policy:>12}: hit rate {outcome.hit_rate:6.1%} ({outcome.cached_tokens}/"
              f"{outcome.prompt_tokens} tokens), /metrics {outcome.metrics_hit_rate:6.1%}, mispredicted "
              f"{len(outcome.mispredicted)}/{len(outcome.routed)}, requests {dict(sorted(outcome.sent.items()))}")
    kv, rr = outcomes[router.KV_AWARE], outcomes[router.ROUND_ROBIN]
    print(f"  KV-aware / round-robin cached tokens: {kv.cached_tokens / max(rr.cached_tokens, 1):.2f}x")


if __name__ == "__main__":
    main()
