"""Train blockviz's embedded default model: tokenizer, then a small Qwen3, from the shipped corpus.

    python scripts/train_default_model.py            # writes blockviz/models/default/
    python scripts/train_default_model.py --steps 20 --out /tmp/m   # a quick smoke run

Reproducible: fixed seeds, 2 threads, deterministic batches, byte-identical outputs. About 12 minutes
on 2 idle CPU cores (0.85 s a step); longer when other work shares the cores.
Training runs the same modules as inference, through Qwen3ForCausalLM.forward_dense (plain causal
attention, no KV cache).
"""
import argparse
import json
import math
import random
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.loader import checkpoint_tensors

EOS = "<|endoftext|>"
SEED = 0
MODEL = dict(
    vocab_size=4096,
    hidden_size=256,
    intermediate_size=768,
    num_hidden_layers=4,
    num_attention_heads=4,
    num_key_value_heads=2,  # GQA: two query heads share each KV head
    head_dim=64,
    hidden_act="silu",
    max_position_embeddings=1024,
    rms_norm_eps=1e-6,
    rope_theta=10000.0,
    attention_bias=False,  # Qwen3: no qkv bias, per-head q/k RMSNorm
    tie_word_embeddings=True,
)


def read_paragraphs(corpus_dir: Path) -> list[str]:
    paragraphs = []
    for file in sorted(corpus_dir.glob("*.txt")):
        paragraphs += [line for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return paragraphs


def train_tokenizer(paragraphs: list[str], vocab_size: int) -> Tokenizer:
    # Byte-level BPE as in Qwen/GPT-2: any text encodes (no unknown token), and decode inverts encode.
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(paragraphs, trainer)
    return tokenizer


def init_weights(model: torch.nn.Module) -> None:
    # HF's initializer_range 0.02; PyTorch's default N(0, 1) embedding would make the tied head's
    # first logits huge.
    for module in model.modules():
        if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
            torch.nn.init.normal_(module.weight, std=0.02)
            if getattr(module, "bias", None) is not None:
                torch.nn.init.zeros_(module.bias)


@torch.no_grad()
def greedy(model: Qwen3ForCausalLM, tokenizer: Tokenizer, prompt: str, max_tokens: int) -> str:
    ids = tokenizer.encode(prompt).ids
    eos = tokenizer.token_to_id(EOS)
    out = []
    for _ in range(max_tokens):
        next_id = int(model.forward_dense(torch.tensor([ids + out]))[0, -1].argmax())
        if next_id == eos:
            break
        out.append(next_id)
    return tokenizer.decode(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_DIR)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_MODEL_DIR / "corpus")
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args()

    torch.set_num_threads(2)
    torch.manual_seed(SEED)
    random.seed(SEED)
    start = time.time()

    paragraphs = read_paragraphs(args.corpus)
    tokenizer = train_tokenizer(paragraphs, MODEL["vocab_size"])
    eos_id = tokenizer.token_to_id(EOS)
    # One stream: each paragraph followed by EOS, so the model learns to end a paragraph.
    stream = []
    for encoding in tokenizer.encode_batch(paragraphs):
        stream += encoding.ids + [eos_id]
    data = torch.tensor(stream, dtype=torch.long)
    split = int(len(data) * 0.98)  # the last 2% is held out to report a validation loss
    train_data, val_data = data[:split], data[split:]
    print(f"corpus: {len(paragraphs)} paragraphs, {len(data)} tokens; tokenizer {tokenizer.get_vocab_size()} ids")

    config = Qwen3Config(**MODEL, eos_token_id=eos_id)
    model = Qwen3ForCausalLM(config)
    init_weights(model)
    num_params = sum(p.numel() for p in model.parameters())
    print(f"model: {num_params} parameters")

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 20)

    def lr_at(step: int) -> float:
        if step < warmup:
            return args.lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, args.steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    def batch(source: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        starts = torch.randint(0, len(source) - args.seq_len - 1, (args.batch,), generator=gen)
        rows = torch.stack([source[s:s + args.seq_len + 1] for s in starts.tolist()])
        return rows[:, :-1], rows[:, 1:]

    def loss_of(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(model.forward_dense(x).flatten(0, 1), y.flatten())

    @torch.no_grad()
    def evaluate() -> float:
        # The same held-out batches every time (own generator), so the numbers compare.
        val_gen = torch.Generator().manual_seed(SEED + 1)
        return sum(loss_of(*batch(val_data, val_gen)).item() for _ in range(8)) / 8

    gen = torch.Generator().manual_seed(SEED)
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step)
        loss = loss_of(*batch(train_data, gen))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.3f}  lr {lr_at(step):.2e}  {time.time() - start:.0f}s", flush=True)
        if step % 200 == 199:
            print(f"step {step:5d}  validation loss {evaluate():.3f}", flush=True)
    train_loss = loss.item()

    val_loss = evaluate()
    minutes = (time.time() - start) / 60
    print(f"final train loss {train_loss:.3f}, validation loss {val_loss:.3f}, {minutes:.1f} min")

    args.out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(args.out / "tokenizer.json"))
    hf_config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", **MODEL,
                 "eos_token_id": eos_id, "bos_token_id": eos_id, "torch_dtype": "float32"}
    (args.out / "config.json").write_text(json.dumps(hf_config, indent=2) + "\n")
    # Stored as fp16 to halve the file (loaded and run as fp32), under HuggingFace's names (packed
    # projections split back); the tied head is the embedding, so lm_head.weight is left out, as
    # HuggingFace does.
    # No safetensors metadata: its key order varies run to run, and the file should be byte-identical.
    weights = {n: t.to(torch.float16) for n, t in checkpoint_tensors(model).items()}
    save_file(weights, str(args.out / "model.safetensors"))
    report = {"seed": SEED, "steps": args.steps, "batch": args.batch, "seq_len": args.seq_len, "lr": args.lr,
              "corpus_tokens": len(data), "parameters": num_params,
              "train_loss": round(train_loss, 4), "validation_loss": round(val_loss, 4)}
    (args.out / "training.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    prompt = "It was a fine morning, and Elizabeth"
    print(repr(prompt), "->", repr(greedy(model, tokenizer, prompt, 60)))


if __name__ == "__main__":
    main()
