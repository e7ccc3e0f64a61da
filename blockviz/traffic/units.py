"""Units a cache is sized in: a model's KV bytes a token (the engine's own kv_bytes_per_block),
pool sizes written in tokens or bytes, and the prefill compute a cached prompt token saves.

Models: the shipped config files (blockviz/models/configs/, the keys blockviz reads from each
model's published config.json, the source in its "_source") or any config.json.

Prefill compute of a prompt token at position i (0-based), the forward pass only, multiply-adds
counted as 2 FLOPs (as Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1, and
the PaLM paper's Appendix B, Chowdhery et al. 2022, count them):
    2 * linear_weights                        (q, k, v, o projections and the MLP, every layer)
  + 4 * layers * heads * head_dim * (i + 1)   (q.k scores and the weighted sum of v over i + 1 keys)
The embedding lookup is free and prefill computes logits for the last position only, so neither
counts. A prompt whose first h tokens come from the cache saves the sum over i < h:
    2 * linear_weights * h + 2 * layers * heads * head_dim * h * (h + 1).
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from blockviz.models.config import Qwen3Config, head_dim_of
from blockviz.models.kv_bytes import kv_bytes_per_block

CONFIGS = Path(__file__).resolve().parents[1] / "models" / "configs"
MODELS = {"qwen3-0.6b": "Qwen3-0.6B", "qwen3-8b": "Qwen3-8B", "llama-3.1-8b": "Llama-3.1-8B"}
DEFAULT_MODEL = "qwen3-8b"
BYTE_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
              "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
GIB = 2**30
SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


@dataclass(frozen=True)
class Model:
    name: str                 # as shown: Qwen3-8B, or the config file's path
    config: Qwen3Config
    source: str
    kv_bytes_per_token: int   # the engine's kv_bytes_per_block for a block of one token

    @property
    def linear_weights(self) -> int:
        """Weights a token is multiplied by in every layer's projections and MLP (embeddings and
        the LM head left out)."""
        c = self.config
        d, q, kv = c.hidden_size, c.num_attention_heads * head_dim_of(c), c.num_key_value_heads * head_dim_of(c)
        return c.num_hidden_layers * (d * q + 2 * d * kv + q * d + 3 * d * c.intermediate_size)

    def prefill_flops_saved(self, cached_tokens: np.ndarray) -> float:
        """FLOPs of prefill the cache saves: the sum over requests with h cached leading tokens
        (see the module docstring)."""
        c = self.config
        h = np.asarray(cached_tokens, dtype=np.float64)
        attention = c.num_hidden_layers * c.num_attention_heads * head_dim_of(c)
        return float((2 * self.linear_weights * h + 2 * attention * h * (h + 1)).sum())

    def gib(self, tokens: float) -> float:
        return tokens * self.kv_bytes_per_token / GIB

    def describe(self) -> str:
        c = self.config
        return (f"{self.name}: {self.kv_bytes_per_token:,} bytes of KV a token ({c.num_hidden_layers} layers x "
                f"{c.num_key_value_heads} KV heads x {head_dim_of(c)} dims x 2 (K and V) x {c.torch_dtype})")


def model(name_or_path: str) -> Model:
    """A shipped model by name (MODELS) or a config.json (the file, or the folder holding it)."""
    if name_or_path in MODELS:
        file, name = CONFIGS / f"{name_or_path}.json", MODELS[name_or_path]
    else:
        file = Path(name_or_path)
        if file.is_dir():
            file = file / "config.json"
        name = str(file)
        if not file.is_file():
            raise ValueError(f"no model {name_or_path!r}: the shipped ones are {', '.join(MODELS)}, "
                             f"or give a config.json")
    try:
        d = json.loads(file.read_text(encoding="utf-8"))
    except (ValueError, OSError) as e:
        raise ValueError(f"model {name_or_path!r}: {file} is not a readable JSON config: {e}") from None
    if not isinstance(d, dict):
        raise ValueError(f"model {name_or_path!r}: {file} must hold a JSON object")
    try:
        config = Qwen3Config.from_dict(d, runnable=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"model {name_or_path!r}: {e}") from None
    return Model(name, config, d.get("_source", str(file)), kv_bytes_per_token(config))


def kv_bytes_per_token(config: Qwen3Config) -> int:
    """The model runner's own count (kv_bytes_per_block, what allocate_kv_cache sizes its pool
    with) for one token in the config's dtype; torch-free, so this command starts in a second."""
    return kv_bytes_per_block(config, 1, config.torch_dtype)


def parse_size(text: str, bytes_per_token: int | None) -> int:
    """'1e6' or '300000': tokens; '8GiB', '80 GB', '512MiB': bytes, made tokens (whole tokens
    that fit) with bytes_per_token. A ValueError naming the text when it is neither."""
    match = SIZE.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a size: a number of tokens (1e6) or of bytes with a unit "
                         f"({', '.join(BYTE_UNITS)}), e.g. 8GiB")
    value, unit = float(match.group(1)), match.group(2)
    if unit in ("", "tokens"):
        if value != int(value):
            raise ValueError(f"{text!r}: a number of tokens must be whole")
        tokens = int(value)
    elif unit in BYTE_UNITS:
        if bytes_per_token is None:
            raise ValueError(f"{text!r} is in bytes: give a model to turn bytes into tokens")
        tokens = int(value * BYTE_UNITS[unit] // bytes_per_token)
    else:
        raise ValueError(f"{text!r}: unknown unit {unit!r} (tokens, or bytes as {', '.join(BYTE_UNITS)})")
    if not 1 <= tokens <= 10**12:
        raise ValueError(f"{text!r} is {tokens:,} tokens: a pool holds 1 .. 10**12 tokens")
    return tokens


def parse_sizes(text: str, bytes_per_token: int | None) -> list[int]:
    """'8GiB,80GiB' or '1e5,1e6' -> tokens, each part checked (the bad one named)."""
    parts = text.split(",")
    if not text.strip() or any(not p.strip() for p in parts):
        raise ValueError(f"{text!r}: sizes are separated by single commas, e.g. 1e6,8GiB")
    return [parse_size(p, bytes_per_token) for p in parts]
