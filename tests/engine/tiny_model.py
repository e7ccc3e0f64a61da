"""A tiny random Qwen3 checkpoint folder for engine tests (no training, a few KB)."""
import json
from pathlib import Path

import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, models, pre_tokenizers

from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.context import reset_context
from blockviz.utils.loader import checkpoint_tensors, load_model

VOCAB = 96
CONFIG = {"architectures": ["Qwen3ForCausalLM"], "vocab_size": VOCAB, "hidden_size": 48,
          "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 512,
          "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "attention_bias": False,
          "tie_word_embeddings": True, "eos_token_id": VOCAB - 1, "torch_dtype": "float32"}


def step_logits(runner, seqs: list, is_prefill: bool) -> torch.Tensor:
    """One step's logits [num_seqs, vocab], as ModelRunner.run computes them before it samples
    (the step's K and V written to the pool)."""
    input_ids, positions = runner.prepare_prefill(seqs) if is_prefill else runner.prepare_decode(seqs)
    try:
        return runner.run_model(input_ids, positions, is_prefill)
    finally:
        reset_context()


def write_tiny_model(folder: Path, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(Qwen3Config.from_dict(CONFIG))
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.5)  # wide logits: greedy choices are far from ties
    save_file(checkpoint_tensors(model), str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(CONFIG))
    vocab = {f"t{i}": i for i in range(VOCAB)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def dense_greedy(model_dir: Path, prompt: list[int], max_tokens: int, eos: int | None = None) -> list[int]:
    """Reference: greedy decoding by re-running the whole sequence densely, no KV cache at all."""
    model = Qwen3ForCausalLM(Qwen3Config.from_pretrained(model_dir))
    load_model(model, model_dir)
    tokens = list(prompt)
    out = []
    with torch.no_grad():
        for _ in range(max_tokens):
            logits = model.forward_dense(torch.tensor([tokens]))[0, -1]
            token = int(logits.argmax())
            out.append(token)
            tokens.append(token)
            if token == eos:
                break
    return out
