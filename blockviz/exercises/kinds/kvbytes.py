"""kv_bytes: what the KV cache costs for a model shape and a dtype: bytes of one block, bytes of one
token, MiB of one block, or how many blocks a memory budget holds (`blockviz demo --kv-memory`).

The answer is the model runner's own function, kv_bytes_per_block (what allocate_kv_cache and the
demo size the pool with), on a real config: the embedded default model's config.json, or a
Qwen3-0.6B-shaped Qwen3Config as in lessons 06 and 09. A budget string is read by the demo's own
parse_bytes. Known mistakes are the same function with one input wrong (no K/V factor, one layer,
query heads instead of KV heads, another dtype, ...).
"""
from dataclasses import replace
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.tables import table
from blockviz.i18n import t
from blockviz.models.config import DTYPE_NAMES, QWEN3_0_6B, Qwen3Config, head_dim_of
from blockviz.models.kv_bytes import itemsize_of as itemsize, kv_bytes_per_block as block_bytes
from blockviz.brief import brief

MODELS = ("default", "qwen3-0.6b")
ASKS = ("block_bytes", "token_bytes", "block_mib", "blocks_fit")
MEMORIES = ("64M", "256M", "512M", "1G", "2G", "4G", "8G")
MIB = 2**20



def model_config(name: str) -> Qwen3Config:
    if name == "default":
        from blockviz.models import DEFAULT_MODEL_DIR
        return Qwen3Config.from_pretrained(DEFAULT_MODEL_DIR)
    return Qwen3Config.from_dict(QWEN3_0_6B)


def memory_bytes(memory: str) -> int:
    from blockviz.demo.settings import parse_bytes
    return parse_bytes(memory)


def memory_words(memory: str) -> str:
    n = memory_bytes(memory)
    return f"{n // 2**30} GiB" if n % 2**30 == 0 else f"{n // MIB} MiB" if n % MIB == 0 else f"{n} bytes"


def decimal_bytes(memory: str) -> int:
    """The budget read with decimal units (1G = 10^9): a known mistake."""
    n = memory_bytes(memory)
    for power in (3, 2, 1):
        if n % 2**(10 * power) == 0:
            return n // 2**(10 * power) * 10**(3 * power)
    return n


def answer_of(params: dict, nbytes: int) -> int | None:
    """The asked quantity from the bytes of one block (None when a wrong block size gives no whole answer)."""
    ask = params["ask"]
    if ask == "block_mib":
        return nbytes // MIB if nbytes % MIB == 0 else None
    if ask == "blocks_fit":
        return memory_bytes(params["memory"]) // nbytes if nbytes else None
    return nbytes


def solve_bytes(params: dict) -> int:
    B = 1 if params["ask"] == "token_bytes" else params["block_size"]
    return block_bytes(model_config(params["model"]), B, params["dtype"])


def wrong_bytes(params: dict) -> list[tuple[str, int]]:
    """The bytes of one block (or token) with one known mistake each: the engine's function, one input wrong."""
    cfg, dtype = model_config(params["model"]), params["dtype"]
    B = 1 if params["ask"] == "token_bytes" else params["block_size"]
    right = block_bytes(cfg, B, dtype)
    other = "float32" if itemsize(dtype) == 2 else "bfloat16"
    head_dim = head_dim_of(cfg)
    models = [
        ("no_kv_factor", right // 2),
        ("no_layers", block_bytes(replace(cfg, num_hidden_layers=1), B, dtype)),
        ("query_heads", block_bytes(replace(cfg, num_key_value_heads=cfg.num_attention_heads, head_dim=head_dim),
                                    B, dtype)),
        ("hidden_size", block_bytes(replace(cfg, num_key_value_heads=1, head_dim=cfg.hidden_size), B, dtype)),
        ("itemsize", block_bytes(cfg, B, other)),
        ("bits", right * 8),
    ]
    if params["ask"] != "token_bytes":
        models.append(("no_block_size", block_bytes(cfg, 1, dtype)))
    return models


class KVBytes(Kind):
    name = "kv_bytes"
    param_names = ("model", "dtype", "block_size", "ask", "memory")
    lesson = 6

    def generate(self, rng: Random) -> dict:
        while True:
            model = rng.choice(MODELS)
            dtype = rng.choice(["float32", "bfloat16"] if model == "default" else ["bfloat16", "bfloat16", "float16",
                                                                                     "float32"])
            params = {"model": model, "dtype": dtype, "block_size": rng.choice([4, 8, 16, 16, 32, 64, 128, 256]),
                      "ask": rng.choice(ASKS)}
            if params["ask"] == "blocks_fit":
                params["memory"] = rng.choice(MEMORIES)
            if params["ask"] == "token_bytes":
                params.pop("block_size")
            try:
                params = self.validate(params)
            except ValueError:
                continue
            if params["ask"] != "blocks_fit" or 2 <= answer_of(params, solve_bytes(params)) <= 100000:
                return params

    def validate(self, params: dict) -> dict:
        model, dtype, ask = params.get("model"), params.get("dtype"), params.get("ask")
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {brief(model)}")
        if dtype not in DTYPE_NAMES:
            raise ValueError(f"dtype must be one of {DTYPE_NAMES}, got {brief(dtype)}")
        if ask not in ASKS:
            raise ValueError(f"ask must be one of {ASKS}, got {brief(ask)}")
        if ask == "token_bytes":
            return {k: v for k, v in params.items() if k not in ("block_size", "memory")}
        B = params.get("block_size")
        if not isinstance(B, int) or isinstance(B, bool) or not 1 <= B <= 4096:
            raise ValueError(f"block_size must be a whole number in 1..4096, got {brief(B)}")
        if ask == "blocks_fit":
            memory = params.get("memory")
            try:
                budget = memory_bytes(memory) if isinstance(memory, str) else None
            except ValueError:
                budget = None
            if budget is None:
                raise ValueError(f"memory must be a size as --kv-memory takes it (e.g. 512M, 2G), got {brief(memory)}")
            if budget < solve_bytes(params):
                raise ValueError(f"memory {memory} holds no block of this model ({solve_bytes(params):,} bytes each)")
        else:
            params = {k: v for k, v in params.items() if k != "memory"}
        if ask == "block_mib" and solve_bytes(params) % MIB:
            raise ValueError("one block is not a whole number of MiB here; ask block_bytes instead")
        return params

    def solve(self, params: dict) -> Solved:
        nbytes = solve_bytes(params)
        return Solved(answer_of(params, nbytes), {"bytes": nbytes, "cfg": model_config(params["model"])})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        cfg = solved.facts["cfg"]
        head_dim = head_dim_of(cfg)
        shape = table(["num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size"],
                      [[cfg.num_hidden_layers, cfg.num_attention_heads, cfg.num_key_value_heads, head_dim,
                        cfg.hidden_size]])
        ask = params["ask"]
        dtype = (t("kv_bytes.dtype", lang, dtype=params["dtype"]) if ask == "token_bytes"
                 else t("kv_bytes.dtype_block", lang, dtype=params["dtype"], B=params["block_size"]))
        words = memory_words(params["memory"]) if ask == "blocks_fit" else ""
        question = t(f"kv_bytes.ask.{ask}", lang, memory=params.get("memory", ""), words=words)
        return "\n\n".join([t(f"kv_bytes.model.{params['model']}", lang), shape, dtype,
                            t("kv_bytes.task", lang, question=question)])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_amount(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        right, nbytes, ask = solved.answer, solved.facts["bytes"], params["ask"]
        models = [(name, answer_of(params, wrong)) for name, wrong in wrong_bytes(params)]
        if ask == "block_mib":
            models += [("bytes_not_mib", nbytes), ("kib_not_mib", nbytes // 1024),
                       ("decimal_units", nbytes // 10**6), ("decimal_units", round(nbytes / 10**6))]
        if ask == "blocks_fit":
            budget = memory_bytes(params["memory"])
            models += [("decimal_units", decimal_bytes(params["memory"]) // nbytes),
                       ("rounded_up", -(-budget // nbytes))]
        names = list(dict.fromkeys(name for name, guess in models if guess is not None and value == guess != right))
        if not names:
            return None
        # factors of 2 are everywhere (K and V, 2-byte dtypes, twice as many query heads): name every reading
        return Feedback(f"kv_bytes.mis.{names[0]}", {}, names[0], tuple(f"kv_bytes.mis.{n}" for n in names[1:]))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        cfg, nbytes, ask = solved.facts["cfg"], solved.facts["bytes"], params["ask"]
        head_dim = head_dim_of(cfg)
        B = 1 if ask == "token_bytes" else params["block_size"]
        product = (f"2 × {cfg.num_hidden_layers} × {B} × {cfg.num_key_value_heads} × {head_dim} × "
                   f"{itemsize(params['dtype'])} = {nbytes:,}")
        lines = [t("kv_bytes.solution.product", lang, product=product, dtype=params["dtype"],
                   heads=cfg.num_attention_heads)]
        if ask == "block_mib":
            lines.append(t("kv_bytes.solution.mib", lang, bytes=f"{nbytes:,}", answer=solved.answer))
        elif ask == "blocks_fit":
            lines.append(t("kv_bytes.solution.fit", lang, memory=params["memory"],
                           budget=f"{memory_bytes(params['memory']):,}", bytes=f"{nbytes:,}", answer=solved.answer))
        else:
            lines.append(t("kv_bytes.solution.bytes", lang, answer=solved.answer))
        return "\n\n".join(lines)
