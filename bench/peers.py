"""blockviz's LLM beside transformers' generate and vLLM: the same model, prompts and greedy
settings, in one run.

    .venv/bin/python bench/peers.py [--model PATH] [--threads 2] [--repeats 3] [--block-size 256 16]
                                    [--batch 1 8 32] [--no-vllm]

For batch 1, 8 and 32 (or --batch): prompts of 64 random tokens with distinct first tokens (no shared prefixes),
64 generated tokens each, greedy, EOS ignored. Every round draws new prompts, one set for the
1-token generate and another for the 64-token one, so no engine serves a prompt from its prefix
cache (the same prompts twice would let blockviz at block size 16 and vLLM skip the second prefill,
and inflate their decode figures), and times each engine on them one after the other (the order
turns from round to round); after one warm-up round each figure is the best of --repeats.

  prefill tok/s  batch x 64 / the time of a generate with max_tokens=1
  decode tok/s   batch x 63 / (the time of a 64-token generate - the time of a 1-token one)
  generate ms    the 64-token generate; "x HF" after a figure is that engine's speed over
                 transformers' (goal for blockviz with recording on, at every block
                 size: >= 1.0)
  per round      the same speed ratio taken within each round (the engines ran one after the
                 other, so a burst of load from other jobs falls on both), median and range over
                 the rounds: a check on the ratio of the bests, which pairs runs of different rounds
  same tokens    outputs equal to the first engine's (blockviz at the first block size, recording
                 on; for vLLM, transformers') token for token, over every round

vLLM is timed after the others, in rounds of its own beside transformers (the prompts are the
same), since a vLLM process goes on taking CPU time for a while after it answers.

Engines: blockviz's `LLM.generate` with recording on (the default: what users run) at each
--block-size (default: the LLM's default block size, 256, and 16), and with `record=False` at the
first; transformers' `generate` (do_sample=False, its default cache and attention) on the
same safetensors, float32, in this process with the same torch threads; vLLM's offline `LLM` on CPU
(float32, block size 32, eager), which lives in its own environment: bench/peer_vllm.py runs under
.venv-vllm's python (scripts/vllm_env.sh makes it) and answers over a pipe. Without that environment
the vLLM rows are skipped and the reason printed. transformers is blockviz's test dependency.
"""
import argparse
import json
import subprocess
import time
from pathlib import Path
from statistics import median

import torch

from blockviz.config import Config
from blockviz.llm import LLM
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.sampling_params import SamplingParams
from blockviz.vllm.serve import MAKE_ENV, PROJECT_VLLM_PYTHON

PROMPT_LEN = 64
NEW_TOKENS = 64
BATCHES = (1, 8, 32)
VLLM_LOG = Path(__file__).resolve().parents[1] / "out" / "bench" / "peer_vllm.log"

Tokens = list[list[int]]


def prompts(batch: int, vocab: int, seed: int) -> Tokens:
    g = torch.Generator().manual_seed(seed)
    return [[i % vocab] + torch.randint(0, vocab, (PROMPT_LEN - 1,), generator=g).tolist() for i in range(batch)]


class Blockviz:

    def __init__(self, model: Path, block_size: int, record: bool):
        self.name = f"blockviz B={block_size}" + ("" if record else " record=False")
        self.llm = LLM(model, device="cpu", kvcache_block_size=block_size, record=record)

    def __call__(self, batch: Tokens, max_tokens: int) -> tuple[float, Tokens]:
        params = SamplingParams(temperature=0, max_tokens=max_tokens, ignore_eos=True)
        start = time.perf_counter()
        outputs = self.llm.generate(batch, params)
        return time.perf_counter() - start, [out["token_ids"] for out in outputs]


class Transformers:
    name = "transformers"

    def __init__(self, model: Path):
        import transformers
        self.model = transformers.AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32).eval()
        self.version = transformers.__version__

    def __call__(self, batch: Tokens, max_tokens: int) -> tuple[float, Tokens]:
        ids = torch.tensor(batch)
        start = time.perf_counter()
        out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_tokens,
                                  do_sample=False, eos_token_id=None, pad_token_id=0)
        return time.perf_counter() - start, out[:, ids.size(1):].tolist()


class Vllm:
    """vLLM's offline LLM in its own environment's python (bench/peer_vllm.py), over a pipe."""
    name = "vLLM"

    def __init__(self, python: Path, model: Path, threads: int, max_num_seqs: int):
        VLLM_LOG.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(VLLM_LOG, "w")
        script = Path(__file__).with_name("peer_vllm.py")
        self.process = subprocess.Popen(
            [str(python), str(script), str(model), "--threads", str(threads), "--max-num-seqs", str(max_num_seqs)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        try:
            self.version = self.answer()["vllm"]
        except RuntimeError:
            self.log.close()
            raise

    def answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            raise RuntimeError(f"vLLM exited (code {self.process.returncode}); its log: {VLLM_LOG}")
        return json.loads(line)

    def __call__(self, batch: Tokens, max_tokens: int) -> tuple[float, Tokens]:
        self.process.stdin.write(json.dumps({"prompts": batch, "max_tokens": max_tokens}) + "\n")
        self.process.stdin.flush()
        reply = self.answer()
        return reply["seconds"], reply["token_ids"]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.log.close()


def start_vllm(args, model: Path) -> tuple[Vllm | None, str]:
    """(the vLLM peer, "") or (None, why its rows are skipped)."""
    if args.no_vllm:
        return None, "--no-vllm"
    if not PROJECT_VLLM_PYTHON.is_file():
        return None, f"no vLLM environment at {PROJECT_VLLM_PYTHON.parent.parent} (create it with `{MAKE_ENV}`)"
    print(f"starting vLLM ({PROJECT_VLLM_PYTHON}; log in {VLLM_LOG}) ...", flush=True)
    try:
        return Vllm(PROJECT_VLLM_PYTHON, model, args.threads, max(args.batch)), ""
    except RuntimeError as e:
        return None, str(e)


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR,
                        help="model folder (default: the embedded model)")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads, for every engine")
    parser.add_argument("--repeats", type=int, default=3, help="rounds after the warm-up; each figure is the best")
    parser.add_argument("--block-size", type=int, nargs="+", default=[Config.kvcache_block_size, 16],
                        help="blockviz's KV block sizes, one engine each (default: the LLM's default and 16)")
    parser.add_argument("--batch", type=int, nargs="+", default=list(BATCHES), help="batch sizes (default: 1 8 32)")
    parser.add_argument("--no-vllm", action="store_true", help="leave vLLM out")
    args = parser.parse_args()
    if min(args.batch) < 1:
        parser.error("--batch: every batch size must be at least 1")
    torch.set_num_threads(args.threads)
    hf = Transformers(args.model)
    engines = [Blockviz(args.model, size, record=True) for size in args.block_size]
    engines += [Blockviz(args.model, args.block_size[0], record=False), hf]
    vocab = engines[0].llm.config.hf_config.vocab_size
    print(f"model: {args.model.name}; {args.threads} torch threads; prompts of {PROMPT_LEN} tokens, {NEW_TOKENS} "
          f"generated, greedy; blockviz block sizes {args.block_size}; transformers {hf.version}", flush=True)
    header = (f"{'batch':>5}  {'engine':<27} {'prefill tok/s (x HF)':>21} {'decode tok/s (x HF)':>20} "
              f"{'generate ms (x HF)':>19}  {'per round':>16}  same tokens")
    print(header, flush=True)
    for batch in args.batch:
        print_rows(batch, measure(engines, batch, vocab, args.repeats))
    # vLLM afterwards, beside transformers again: a vLLM process goes on taking CPU time for a
    # while after it answers (a third of a core over the next 3 s here), which would fall on the
    # engine timed next
    vllm, skipped = start_vllm(args, args.model)
    if not vllm:
        print(f"vLLM skipped: {skipped}")
        return
    print(f"vLLM {vllm.version} (block size 32), against transformers timed again in the same rounds:")
    print(header, flush=True)
    try:
        for batch in args.batch:
            print_rows(batch, measure([hf, vllm], batch, vocab, args.repeats))
    finally:
        vllm.close()


def print_rows(batch: int, figures: dict[str, tuple[float, list[float], int, int]]):
    hf_first, hf_rounds, _, _ = figures["transformers"]
    hf_full = min(hf_rounds)
    hf_prefill, hf_decode = batch * PROMPT_LEN / hf_first, batch * (NEW_TOKENS - 1) / (hf_full - hf_first)
    for name, (first, rounds, same, total) in figures.items():
        full = min(rounds)
        prefill, decode = batch * PROMPT_LEN / first, batch * (NEW_TOKENS - 1) / (full - first)
        paired = [hf / own for hf, own in zip(hf_rounds, rounds)]
        print(f"{batch:>5}  {name:<27} {prefill:>13,.0f} ({ratio(prefill, hf_prefill)}) "
              f"{decode:>12,.0f} ({ratio(decode, hf_decode)}) {full * 1e3:>11.1f} ({ratio(hf_full, full)})  "
              f"{median(paired):.2f} ({min(paired):.2f}-{max(paired):.2f})  {same}/{total}", flush=True)


def measure(engines: list, batch: int, vocab: int, repeats: int) -> dict[str, tuple[float, list[float], int, int]]:
    """Per engine: (best 1-token generate s, each round's 64-token generate s, outputs equal to
    the first engine's, outputs)."""
    first = {e.name: float("inf") for e in engines}
    rounds = {e.name: [] for e in engines}
    same = {e.name: 0 for e in engines}
    for round_ in range(repeats + 1):
        first_prompts = prompts(batch, vocab, seed=1000 * batch + 2 * round_)
        batch_prompts = prompts(batch, vocab, seed=1000 * batch + 2 * round_ + 1)
        turn = round_ % len(engines)
        outputs = {}
        for engine in engines[turn:] + engines[:turn]:
            seconds_1, _ = engine(first_prompts, 1)
            seconds, outputs[engine.name] = engine(batch_prompts, NEW_TOKENS)
            if round_:  # round 0 warms up
                first[engine.name] = min(first[engine.name], seconds_1)
                rounds[engine.name].append(seconds)
        reference = outputs[engines[0].name]
        for name, out in outputs.items():
            same[name] += sum(a == b for a, b in zip(out, reference))
    total = batch * (repeats + 1)
    return {e.name: (first[e.name], rounds[e.name], same[e.name], total) for e in engines}


if __name__ == "__main__":
    main()
