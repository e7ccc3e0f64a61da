"""The demo's settings: chosen once at start (`blockviz demo` options), saved as JSON for the
notebook's kernel, and checked before anything starts so a bad option is a clear one-line error."""
import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from blockviz import policies
from blockviz.i18n import LANGS
from blockviz.jsonfile import read_json
from blockviz.models.config import DTYPE_NAMES
from blockviz.workload import Request, Workload

SETTINGS_ENV = "BLOCKVIZ_DEMO_SETTINGS"   # the kernel finds the settings file through this
SETTINGS_FILE = "blockviz-demo.json"

# The opening of Pride and Prejudice: the embedded model was trained on Austen, so it continues it well.
SYSTEM_PROMPT = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
                 "must be in want of a wife. However little known the feelings or views of such a man may be "
                 "on his first entering a neighbourhood, this truth is so well fixed in the minds of the "
                 "surrounding families, that he is considered the rightful property of some one or other of "
                 "their daughters.")
# What each request adds after the shared system prompt (cycled when there are more requests).
USER_PROMPTS = ('"My dear Mr. Bennet," said his lady', "Elizabeth", "Mr. Darcy", "Jane", '"Oh! Mr. Bennet," cried',
                "Mrs. Bennet", "Lydia", "Mr. Bingley", "Charlotte", "Lady Catherine", "Mr. Collins", "Kitty",
                "Mary", "Mr. Wickham", "Miss Bingley", "Netherfield Park")
SEPARATOR = "\n"  # between the system prompt and a request's own text


class DemoError(ValueError):
    """A bad demo option; the message says which and why."""


@dataclass
class DemoSettings:
    model: str | None = None          # a model folder; None: the embedded default model
    device: str | None = None         # "cpu", "cuda" or "cuda:N"; None: cuda when available
    dtype: str | None = None          # "float32", "bfloat16", "float16"; None: float32 on CPU, the model's on CUDA
    num_blocks: int | None = None     # KV pool size in blocks ...
    kv_memory: int | None = None      # ... or in bytes (not both); neither: DEFAULT_BLOCKS
    block_size: int = 16
    requests: int = 16
    system_prompt: str = SYSTEM_PROMPT
    user_prompts: list[str] = field(default_factory=lambda: list(USER_PROMPTS))
    max_tokens: int = 48
    temperature: float = 0.8
    arrival_every: int = 2            # engine steps between two scripted arrivals; 0: all at once
    max_num_batched_tokens: int = 512
    pace: float = 8.0                 # engine steps per second at most, so a class can follow; 0: flat out
    refresh_ms: int = 200             # the views refresh at most this often while generating
    view_budget: float = 0.03         # ... and take at most this share of the time
    history: int | None = 2000        # steps the engine keeps for stepping back (None: all; an hour's run is 10^5)
    policy: str = "nano-vllm"         # the block policy (blockviz.policies.names()); "sglang": SGLang's radix tree
    lang: str = "en"
    seed: int = 0

    DEFAULT_BLOCKS = 40  # with the defaults: the pool fills, shares, evicts, preempts and revives

    # --- JSON -------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(asdict(self), indent=1, ensure_ascii=False), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "DemoSettings":
        data = read_json(path, dict, DemoError)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise DemoError(f"{path}: expected an object with keys from {sorted(names)}, got unknown {unknown}")
        return cls(**data)

    # --- checks -----------------------------------------------------------------------

    @property
    def model_dir(self) -> Path:
        from blockviz.models import DEFAULT_MODEL_DIR
        return Path(self.model).expanduser() if self.model else DEFAULT_MODEL_DIR

    def check_options(self):
        """Everything that needs neither the model nor torch."""
        def whole(name, value, least):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise DemoError(f"{name} must be a whole number >= {least}, got {value!r}")
        whole("block size", self.block_size, 1)
        if self.num_blocks is not None and self.kv_memory is not None:
            raise DemoError("give the pool size as blocks or as KV memory, not both")
        if self.num_blocks is not None:
            whole("the number of blocks", self.num_blocks, 1)
        if self.kv_memory is not None:
            whole("KV memory (bytes)", self.kv_memory, 1)
        whole("the number of requests", self.requests, 0)
        whole("max tokens", self.max_tokens, 1)
        whole("arrival interval (steps)", self.arrival_every, 0)
        whole("the token budget per step", self.max_num_batched_tokens, 1)
        whole("the refresh interval (ms)", self.refresh_ms, 0)
        if self.history is not None:
            whole("the history (steps kept)", self.history, 1)
        if isinstance(self.pace, bool) or not isinstance(self.pace, (int, float)) or not 0 <= self.pace < math.inf:
            raise DemoError(f"the pace (steps per second) must be a number >= 0 (0: as fast as it goes), got {self.pace!r}")
        if not 0 < self.view_budget <= 1:
            raise DemoError(f"the views' share of the time must be in (0, 1], got {self.view_budget}")
        if isinstance(self.temperature, bool) or not isinstance(self.temperature, (int, float)) \
                or not 0 <= self.temperature < math.inf:
            raise DemoError(f"temperature must be a number >= 0, got {self.temperature!r}")
        if self.policy not in policies.names():
            raise DemoError(f"unknown policy {self.policy!r}; choose one of {', '.join(policies.names())}")
        if self.lang not in LANGS:
            raise DemoError(f"unknown language {self.lang!r}; choose one of {', '.join(LANGS)}")
        if self.requests and not self.user_prompts:
            raise DemoError("the requests need at least one user prompt")
        if self.device is not None and self.device != "cpu" and not (
                self.device == "cuda" or (self.device.startswith("cuda:") and self.device[5:].isdigit())):
            raise DemoError(f"unknown device {self.device!r}; choose cpu or cuda (or cuda:N)")
        if self.dtype is not None and self.dtype not in DTYPE_NAMES:
            raise DemoError(f"unknown dtype {self.dtype!r}; choose one of {', '.join(DTYPE_NAMES)}")
        model_dir = self.model_dir
        if not model_dir.is_dir():
            hint = ("the embedded model is not built yet: run scripts/train_default_model.py, or pass --model PATH"
                    if not self.model else "pass the folder of a Qwen3 checkpoint (config.json, tokenizer.json, "
                    "*.safetensors)")
            raise DemoError(f"model folder not found: {model_dir} ({hint})")
        for name in ("config.json", "tokenizer.json"):
            if not (model_dir / name).is_file():
                raise DemoError(f"no {name} in model folder {model_dir}")
        if not any(model_dir.glob("*.safetensors")):
            raise DemoError(f"no *.safetensors weights in model folder {model_dir}")

    def resolve(self) -> "Plan":
        """Check every option against the model and the machine; return the numbers the demo will use."""
        self.check_options()
        import torch
        from blockviz.llm import TokenizerFile
        from blockviz.engine.model_runner import kv_bytes_per_block, model_dtype
        from blockviz.models.config import Qwen3Config

        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device.startswith("cuda"):
            if not torch.cuda.is_available():
                raise DemoError(f"--device {device}: CUDA is not available here (torch {torch.__version__}"
                                f"{'' if torch.version.cuda else ', built without CUDA'}); use --device cpu")
            if device != "cuda" and int(device[5:]) >= torch.cuda.device_count():
                raise DemoError(f"--device {device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
        try:
            hf = Qwen3Config.from_pretrained(self.model_dir)
            tokenizer = TokenizerFile(self.model_dir / "tokenizer.json")
        except (OSError, ValueError) as e:
            raise DemoError(str(e)) from None
        block_bytes = kv_bytes_per_block(hf, self.block_size, model_dtype(hf, torch.device(device), self.dtype))
        if self.kv_memory is not None:
            num_blocks = self.kv_memory // block_bytes
            if num_blocks < 1:
                raise DemoError(f"KV memory of {self.kv_memory} bytes holds no block: one block of {self.block_size} "
                                f"tokens needs {block_bytes} bytes with this model")
        else:
            num_blocks = self.num_blocks or self.DEFAULT_BLOCKS
        plan = Plan(self, device, num_blocks, block_bytes, min(4096, hf.max_position_embeddings), tokenizer,
                    hf.num_hidden_layers)
        for k in range(self.requests):
            plan.check_fits(plan.request_tokens(k), self.max_tokens, f"request {k + 1}")
        return plan


@dataclass
class Plan:
    """Settings resolved against the model: device, pool size, tokenized prompts."""
    settings: DemoSettings
    device: str
    num_blocks: int
    block_bytes: int
    max_model_len: int
    tokenizer: object
    num_layers: int

    def __post_init__(self):
        self.system_ids = self.tokenizer.encode(self.settings.system_prompt) if self.settings.system_prompt else []

    def prompt_tokens(self, text: str, after_system: bool = True) -> list[int]:
        """A request's token ids: the system prompt's ids, then its own text (encoded apart, so
        every request starts with exactly the same tokens and can share those blocks)."""
        if not after_system or not self.system_ids:
            return self.tokenizer.encode(text)
        return self.system_ids + self.tokenizer.encode(SEPARATOR + text)

    def request_tokens(self, k: int) -> list[int]:
        prompts = self.settings.user_prompts
        return self.prompt_tokens(prompts[k % len(prompts)])

    def workload(self) -> Workload:
        """The scripted requests: the first at once, then one every arrival_every steps after the one
        before (0: all at once). An engine that runs dry takes the next at once ("shift": the later
        ones keep their gaps)."""
        s = self.settings
        requests = [Request(self.request_tokens(k), s.max_tokens, arrival=k * s.arrival_every) for k in range(s.requests)]
        return Workload(s.block_size, self.num_blocks, requests, max_num_batched_tokens=s.max_num_batched_tokens,
                        max_model_len=self.max_model_len, when_idle="shift")

    def check_fits(self, token_ids: list[int], max_tokens: int, what: str = "the request"):
        """A request must fit the pool and the model at its longest: the demo's requests may run to
        max_tokens, and one that outgrew the pool would stall the engine."""
        if not token_ids:
            raise DemoError(f"{what} has no tokens")
        longest = len(token_ids) + max_tokens
        if longest > self.max_model_len:
            raise DemoError(f"{what}: {len(token_ids)} prompt tokens + {max_tokens} max tokens = {longest} "
                            f"exceeds the model's {self.max_model_len} positions")
        B = self.settings.block_size
        needed = (longest - 1 + B - 1) // B
        if needed > self.num_blocks:
            raise DemoError(f"{what} grows to {needed} blocks ({len(token_ids)} prompt + {max_tokens} max tokens, "
                            f"block size {B}) but the pool has {self.num_blocks}: use more blocks or fewer tokens")

    def describe(self) -> str:
        s = self.settings
        kv = self.num_blocks * self.block_bytes
        return (f"model {s.model_dir} on {self.device}, policy {s.policy}; pool {self.num_blocks} blocks x "
                f"{s.block_size} tokens ({format_bytes(kv)} of KV, {format_bytes(self.block_bytes)} per block); "
                f"{s.requests} requests sharing a {len(self.system_ids)}-token system prompt, up to {s.max_tokens} tokens each")


def format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def parse_bytes(text: str) -> int:
    """'65536', '64K', '256MiB', '2G' -> bytes (binary units)."""
    units = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
             "G": 2**30, "GB": 2**30, "GIB": 2**30}
    s = text.strip().upper()
    number = s.rstrip("KMGIB")
    unit = s[len(number):]
    try:
        value = float(number)
    except ValueError:
        value = None
    if value is None or unit not in units or value <= 0:
        raise ValueError(f"not a size in bytes: {text!r} (e.g. 65536, 64K, 256M, 2G)")
    return int(value * units[unit])
