"""Model throughput through the paged engine, and what paging costs.

    .venv/bin/python bench/model.py [--model PATH] [--device cpu|cuda] [--block-size 16]

Prints, for batch 1, 8 and 32: prefill tokens/s and decode tokens/s (separately); the decode
throughput of the paged pool against a dense cache (each request one contiguous region: the
same model and kernels with block_size = max context and one block per request; goal >= 0.8);
and the KV bytes per token. Each figure is the best of --repeats runs. Runs unchanged on CUDA.
On a loaded 2-core machine, --threads 1 avoids thread oversubscription (it slows torch 10x+).
"""
import argparse
import time

import torch

from blockviz.llm import LLM
from blockviz.sampling_params import SamplingParams

PROMPT_LEN = 64
DECODE_TOKENS = 32


def prompts(batch: int, vocab: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(batch)
    # distinct first tokens: no prefix-cache hits, every prompt computed in full
    return [[i % vocab] + torch.randint(0, vocab, (PROMPT_LEN - 1,), generator=g).tolist() for i in range(batch)]


def sync(device: str):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def measure(model, device: str, batch: int, block_size: int) -> tuple[float, float]:
    """(prefill tokens/s, decode tokens/s) for one batch, recording off."""
    context = PROMPT_LEN + DECODE_TOKENS
    blocks_per_seq = (context + block_size - 1) // block_size
    llm = LLM(model, device=device, kvcache_block_size=block_size, num_kvcache_blocks=batch * blocks_per_seq,
              max_num_seqs=batch, max_num_batched_tokens=batch * PROMPT_LEN, record=False)
    vocab = llm.config.hf_config.vocab_size
    params = SamplingParams(temperature=0, max_tokens=DECODE_TOKENS, ignore_eos=True)
    for p in prompts(batch, vocab):
        llm.add_request(p, params)
    sync(device)
    start = time.perf_counter()
    llm.advance()  # the whole batch's prefill is one step
    sync(device)
    prefill = batch * PROMPT_LEN / (time.perf_counter() - start)
    start = time.perf_counter()
    llm.run()
    sync(device)
    decode = batch * (DECODE_TOKENS - 1) / (time.perf_counter() - start)
    return prefill, decode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=None, help="model folder (default: the embedded model)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the best is printed")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    dense_block = PROMPT_LEN + DECODE_TOKENS
    probe = LLM(args.model, device=args.device, kvcache_block_size=args.block_size, num_kvcache_blocks=1, record=False)
    print(f"model: {probe.meta['model']} on {args.device}, {torch.get_num_threads()} threads; "
          f"prompt {PROMPT_LEN} tokens, {DECODE_TOKENS} generated")
    print(f"KV bytes per token: {probe.meta['block_bytes'] // args.block_size} "
          f"({probe.meta['block_bytes']} bytes per block of {args.block_size})")
    print(f"{'batch':>5}  {'prefill tok/s':>13}  {'decode tok/s':>12}  {'dense-cache decode':>18}  {'paged/dense':>11}")
    for batch in (1, 8, 32):
        measure(args.model, args.device, batch, args.block_size)  # warm-up
        paged = [measure(args.model, args.device, batch, args.block_size) for _ in range(args.repeats)]
        prefill, decode = max(p for p, _ in paged), max(d for _, d in paged)
        dense = max(measure(args.model, args.device, batch, dense_block)[1] for _ in range(args.repeats))
        print(f"{batch:>5}  {prefill:>13.0f}  {decode:>12.0f}  {dense:>18.0f}  {decode / dense:>11.2f}")


if __name__ == "__main__":
    main()
