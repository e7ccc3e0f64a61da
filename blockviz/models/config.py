from dataclasses import MISSING, dataclass, fields
from pathlib import Path

from blockviz import checks
from blockviz.jsonfile import read_json

# Architectures this package can run, as named in config.json's "architectures".
SUPPORTED_ARCHITECTURES = ("Qwen3ForCausalLM", "Qwen2ForCausalLM")
# Weight and KV pool dtypes the model runner takes, as config.json's "torch_dtype" names them.
DTYPE_NAMES = ("float32", "bfloat16", "float16")
# Qwen3-0.6B's config.json, the keys the model reads: the real model lessons, exercises and the GPU
# benchmark size things by when no checkpoint is at hand.
QWEN3_0_6B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024,
              "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
              "head_dim": 128, "hidden_act": "silu", "max_position_embeddings": 40960, "rms_norm_eps": 1e-6,
              "rope_theta": 1000000.0, "attention_bias": False, "tie_word_embeddings": True, "eos_token_id": 151645,
              "torch_dtype": "bfloat16"}


def head_dim_of(config) -> int:
    """Dimensions per attention head: config.json's head_dim, or (Qwen2 omits it) hidden_size / heads."""
    return config.head_dim or config.hidden_size // config.num_attention_heads


@dataclass
class Qwen3Config:
    """The config.json keys the model reads, with HuggingFace's names.

    Stands in for transformers' Qwen3Config so that blockviz runs without transformers; any object
    with these attributes (transformers' own config included) works as well.
    """
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int | None = None  # None: hidden_size // num_attention_heads (Qwen2 configs omit it)
    hidden_act: str = "silu"
    max_position_embeddings: int = 32768
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1000000.0
    rope_scaling: dict | None = None
    # nano-vllm reads getattr(config, "attention_bias", True): a config without the key is Qwen2-style.
    attention_bias: bool = True
    tie_word_embeddings: bool = False
    eos_token_id: int | None = None
    torch_dtype: str = "float32"
    architectures: tuple[str, ...] = ("Qwen3ForCausalLM",)

    @classmethod
    def from_dict(cls, d: dict, runnable: bool = True) -> "Qwen3Config":
        """runnable=False reads the same keys of any decoder of this shape (Llama's config.json
        names them alike) for sizing only (KV bytes, FLOPs): the architecture is not checked."""
        names = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in d.items() if k in names}
        # transformers >= 5 writes RoPE settings as rope_parameters (rope_theta inside) and the dtype
        # as "dtype"; released checkpoints use rope_theta/rope_scaling and "torch_dtype".
        rope = d.get("rope_parameters")
        if isinstance(rope, dict):
            if "rope_theta" in rope:
                kwargs.setdefault("rope_theta", rope["rope_theta"])
            if rope.get("rope_type", "default") != "default":
                kwargs["rope_scaling"] = rope
        if "dtype" in d:
            kwargs.setdefault("torch_dtype", d["dtype"])
        missing = [f.name for f in fields(cls) if f.default is MISSING and f.name not in kwargs]
        if missing:
            raise ValueError(f"config is missing required keys: {', '.join(missing)}")
        if "architectures" in kwargs:
            names = kwargs["architectures"] or ()
            kwargs["architectures"] = tuple(names) if isinstance(names, list) else (names,)
        if isinstance(kwargs.get("eos_token_id"), list):  # some checkpoints list several; keep the first
            kwargs["eos_token_id"] = kwargs["eos_token_id"][0] if kwargs["eos_token_id"] else None
        if kwargs.get("torch_dtype") is None:  # written as null by some exports: the default
            kwargs.pop("torch_dtype", None)
        config = cls(**kwargs)
        unsupported = [a for a in config.architectures if a not in SUPPORTED_ARCHITECTURES]
        if runnable and (unsupported or not config.architectures):
            raise ValueError(f"unsupported architecture {list(config.architectures)}; "
                             f"blockviz runs {', '.join(SUPPORTED_ARCHITECTURES)}")
        return config

    def __post_init__(self):
        """Raise ValueError naming a config.json value of the wrong type or range (torch would fail
        later with a TypeError, or an engine would run with an EOS it can never sample)."""
        for name in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                     "num_key_value_heads", "max_position_embeddings"):
            checks.whole(name, getattr(self, name), 1)
        if self.head_dim is not None:
            checks.whole("head_dim", self.head_dim, 1)
        elif self.hidden_size % self.num_attention_heads:
            raise ValueError(f"hidden_size {self.hidden_size} is not a multiple of num_attention_heads "
                             f"{self.num_attention_heads} (and there is no head_dim)")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(f"num_attention_heads {self.num_attention_heads} is not a multiple of "
                             f"num_key_value_heads {self.num_key_value_heads}")
        checks.real("rms_norm_eps", self.rms_norm_eps, 0, 1, low_open=True)
        checks.real("rope_theta", self.rope_theta, 0, 1e12, low_open=True)
        checks.one_of("hidden_act", self.hidden_act, ("silu",))
        checks.flag("attention_bias", self.attention_bias)
        checks.flag("tie_word_embeddings", self.tie_word_embeddings)
        if self.rope_scaling is not None and not isinstance(self.rope_scaling, dict):
            raise ValueError(f"rope_scaling must be an object or null, got {self.rope_scaling!r}")
        if self.eos_token_id is not None:
            checks.whole("eos_token_id", self.eos_token_id, 0, self.vocab_size - 1)
        checks.one_of("torch_dtype", self.torch_dtype, DTYPE_NAMES)
        if not all(isinstance(a, str) for a in self.architectures):
            raise ValueError(f"architectures must be a list of names, got {list(self.architectures)}")

    @classmethod
    def from_pretrained(cls, path: str | Path) -> "Qwen3Config":
        file = Path(path) / "config.json"
        if not file.is_file():
            raise FileNotFoundError(f"no config.json in model folder {path}")
        d = read_json(file, dict)
        try:
            return cls.from_dict(d)
        except ValueError as e:
            raise ValueError(f"{file}: {e}") from None
