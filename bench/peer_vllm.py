"""vLLM's side of bench/peers.py, run by the python of the vLLM environment (.venv-vllm), never
by blockviz's: vLLM and its torch live there.

    .venv-vllm/bin/python bench/peer_vllm.py MODEL_DIR [--block-size 32] [--threads 2]

Loads vLLM's offline LLM on CPU (float32, eager, prefix caching off, so that a repeated prompt
is computed again), prints one JSON line {"ready": ..., "vllm": version}, then answers each JSON
line {"prompts": [[token ids]], "max_tokens": n} on stdin with {"seconds": ..., "token_ids": [...]}:
the wall time of one greedy `LLM.generate` of every prompt. It exits at the end of its input.
"""
import argparse
import json
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--block-size", type=int, default=32, help="vLLM's CPU attention takes multiples of 32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-num-seqs", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")  # GiB for the pool (vLLM's default takes more)
    # the same threads as the other engines, unpinned (vLLM's default pins one thread per core
    # and keeps a core back for itself, which on 2 cores leaves the model one thread)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ["VLLM_CPU_OMP_THREADS_BIND"] = "nobind"
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # vLLM (and its engine process) log to stdout: keep the real one for answers only
    import vllm
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    llm = LLM(args.model, dtype="float32", block_size=args.block_size, enforce_eager=True,
              enable_prefix_caching=False, skip_tokenizer_init=True, max_model_len=512,
              max_num_seqs=args.max_num_seqs, gpu_memory_utilization=0.1, seed=0)
    print(json.dumps({"ready": True, "vllm": vllm.__version__}), file=answers, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        params = SamplingParams(temperature=0, max_tokens=request["max_tokens"], ignore_eos=True,
                                detokenize=False)
        prompts = [TokensPrompt(prompt_token_ids=p) for p in request["prompts"]]
        start = time.perf_counter()
        results = llm.generate(prompts, params, use_tqdm=False)
        seconds = time.perf_counter() - start
        token_ids = [list(r.outputs[0].token_ids) for r in results]
        print(json.dumps({"seconds": seconds, "token_ids": token_ids}), file=answers, flush=True)


if __name__ == "__main__":
    main()
