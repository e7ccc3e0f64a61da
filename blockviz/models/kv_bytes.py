"""A model's KV-cache bytes per block: what the model runner sizes its pool with (allocate_kv_cache
calls this function), what the capacity planner turns tokens into GiB with, and what the lessons and
exercises check answers against.

torch-free on purpose: the traffic command and the exercises need the number, not the model, and
importing torch takes seconds. A dtype is either torch's (its own `itemsize`, as nano-vllm multiplies
by `hf_config.torch_dtype.itemsize` in the same place) or its name in config.json.
"""
from blockviz.models.config import DTYPE_NAMES, head_dim_of

# bytes per element of each dtype the runner takes, by name (tests/models/test_kv_bytes.py: torch agrees)
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def itemsize_of(dtype) -> int:
    if isinstance(dtype, str):
        if dtype not in DTYPE_NAMES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPE_NAMES)}, got {dtype!r}")
        return DTYPE_BYTES[dtype]
    return dtype.itemsize   # a torch.dtype


def kv_bytes_per_block(hf_config, block_size: int, dtype) -> int:
    """K and V, in every layer, for every KV head and head dimension, for each of a block's tokens."""
    head_dim = head_dim_of(hf_config)
    return 2 * hf_config.num_hidden_layers * block_size * hf_config.num_key_value_heads * head_dim * itemsize_of(dtype)
