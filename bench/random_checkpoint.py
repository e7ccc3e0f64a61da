"""Write a randomly initialised Qwen3 checkpoint folder, so the GPU benchmarks run on a box that
has no checkpoint and no network.

    .venv/bin/python bench/random_checkpoint.py OUT_DIR [--shape qwen3-0.6b|tiny]

qwen3-0.6b has Qwen3-0.6B's shapes (28 layers, 16 query / 8 KV heads of 128, vocabulary 151 936,
bfloat16), so speed and memory are those of the real model; its text is noise. The tokenizer is
the embedded model's (4 096 tokens): larger ids decode to replacement characters.
"""
import argparse
import json
import shutil
from pathlib import Path

import torch
from safetensors.torch import save_file

from blockviz.engine.model_runner import DTYPES, new_model
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.models.config import QWEN3_0_6B, Qwen3Config
from blockviz.utils.loader import checkpoint_tensors

SHAPES = {
    "qwen3-0.6b": QWEN3_0_6B,
    "tiny": {**QWEN3_0_6B, "vocab_size": 4096, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 512,
             "rope_theta": 10000.0, "eos_token_id": 0, "torch_dtype": "float32"},
}


def write_random_checkpoint(out: Path, shape: str, seed: int = 0) -> Path:
    config = SHAPES[shape]
    torch.manual_seed(seed)
    # born in the checkpoint's dtype: half the memory of float32 then a cast
    model = new_model(Qwen3Config.from_dict(config), DTYPES[config["torch_dtype"]])
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0)
            else:
                p.normal_(0, 0.02)
    out.mkdir(parents=True, exist_ok=True)
    save_file(checkpoint_tensors(model), str(out / "model.safetensors"))
    (out / "config.json").write_text(json.dumps(config, indent=1))
    shutil.copy(DEFAULT_MODEL_DIR / "tokenizer.json", out / "tokenizer.json")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="qwen3-0.6b")
    args = parser.parse_args()
    path = write_random_checkpoint(args.out, args.shape)
    size = sum(f.stat().st_size for f in path.iterdir())
    print(f"wrote a random {args.shape} checkpoint to {path} ({size / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
