"""cache_size: how many GiB of KV a cache needs for a real trace (lesson 13): the smallest pool of a
table of pool sizes that serves a share of what an infinite cache would, made GiB for a model; or,
beside a GPU pool, the CPU pool vLLM's offloading needs for it.

The engine answers: the trace's one-pass curve (blockviz.traffic.curve, blocks of 512 tokens, the
hash ids' own size) gives the hit rate at each size of the table, and the model's KV bytes a token
are the model runner's kv_bytes_per_block (blockviz.traffic.units). Known mistakes are the same
computation with one input wrong: no K/V factor, query heads for KV heads, GB for GiB, a share of
all prompt tokens instead of the maximum, and (for the CPU tier) a victim cache's sum of the two
pools where vLLM stores every block in the CPU tier too.
"""
from dataclasses import replace
from functools import lru_cache
from random import Random

from blockviz.brief import brief
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.tables import table
from blockviz.i18n import t
from blockviz.models.config import head_dim_of

TRACES = ("conversation", "synthetic")
MODELS = ("qwen3-0.6b", "qwen3-8b", "llama-3.1-8b")
ASKS = ("gpu_gib", "cpu_gib")
SHARES = (25, 50, 75, 90)
GRID = (100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000,
        100_000_000)   # real tokens
GIB, GB = 2**30, 10**9


@lru_cache(maxsize=len(TRACES))
def curve_of(name: str):
    from blockviz import traffic   # numpy and the trace only when an exercise of this kind is solved
    return traffic.curve(traffic.load(name))


@lru_cache(maxsize=len(MODELS))
def model_of(name: str):
    from blockviz.traffic.units import model
    return model(name)


def kv_bytes(name: str, **changed) -> int:
    """KV bytes a token of the model, with some config fields changed (a known mistake)."""
    from blockviz.traffic.units import kv_bytes_per_token
    return kv_bytes_per_token(replace(model_of(name).config, **changed))


def rates(trace: str) -> list[float]:
    c = curve_of(trace)
    return [c.hit_rate(p) for p in GRID]


def first_reaching(rows: list[float], target: float, start: int = 0) -> int | None:
    return next((i for i in range(start, len(rows)) if rows[i] >= target), None)


def whole_gib(tokens: int, bytes_per_token: int, unit: int = GIB) -> int:
    return -(-tokens * bytes_per_token // unit)


class CacheSize(Kind):
    name = "cache_size"
    param_names = ("trace", "model", "ask", "share", "gpu")
    lesson = 13

    def generate(self, rng: Random) -> dict:
        while True:
            params = {"trace": rng.choice(TRACES), "model": rng.choice(MODELS), "ask": rng.choice(ASKS),
                      "share": rng.choice(SHARES)}
            rows = rates(params["trace"])
            target = params["share"] / 100 * curve_of(params["trace"]).max_hit_rate
            if any(abs(r - target) < 0.0015 for r in rows):   # the table's 0.1 % could not tell
                continue
            if params["ask"] == "cpu_gib":
                below = [i for i, r in enumerate(rows) if 0 < r < target]
                if not below:
                    continue
                params["gpu"] = GRID[rng.choice(below)]
            try:
                params = self.validate(params)
            except ValueError:
                continue
            solved = self.solve(params)
            if params["ask"] == "gpu_gib" or dict(self.wrong(params, solved)).get("victim", solved.answer) != solved.answer:
                return params   # a CPU question where adding the pools, as a victim cache would, gives another answer

    def validate(self, params: dict) -> dict:
        trace, name, ask, share = (params.get(k) for k in ("trace", "model", "ask", "share"))
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {TRACES}, got {brief(trace)}")
        if name not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {brief(name)}")
        if ask not in ASKS:
            raise ValueError(f"ask must be one of {ASKS}, got {brief(ask)}")
        if not isinstance(share, int) or isinstance(share, bool) or not 1 <= share <= 100:
            raise ValueError(f"share must be a whole percent in 1..100, got {brief(share)}")
        rows = rates(trace)
        target = share / 100 * curve_of(trace).max_hit_rate
        if first_reaching(rows, target) is None:
            raise ValueError(f"no pool of the table reaches {share}% of the maximum on {trace}")
        if ask == "gpu_gib":
            return {k: v for k, v in params.items() if k != "gpu"}
        gpu = params.get("gpu")
        if gpu not in GRID:
            raise ValueError(f"gpu must be a pool of the table ({', '.join(map(str, GRID))}), got {brief(gpu)}")
        if rows[GRID.index(gpu)] >= target:
            raise ValueError(f"the GPU pool of {gpu:,} tokens already reaches {share}% of the maximum: no CPU pool "
                             "is needed")
        return params

    def solve(self, params: dict) -> Solved:
        rows, c = rates(params["trace"]), curve_of(params["trace"])
        target = params["share"] / 100 * c.max_hit_rate
        pool = GRID[first_reaching(rows, target)]   # vLLM's write-through CPU tier reaches as far as it is large
        bpt = model_of(params["model"]).kv_bytes_per_token
        return Solved(whole_gib(pool, bpt), {"rows": rows, "max": c.max_hit_rate, "target": target, "pool": pool,
                                             "bpt": bpt})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        cfg = model_of(params["model"]).config
        shape = table(["num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "torch_dtype"],
                      [[cfg.num_hidden_layers, cfg.num_attention_heads, cfg.num_key_value_heads, head_dim_of(cfg),
                        cfg.torch_dtype]])
        curve = table([t("cache_size.pool", lang), t("cache_size.rate", lang)],
                      [[f"{p:,}", f"{r:.1%}"] for p, r in zip(GRID, solved.facts["rows"])])
        ask = t(f"cache_size.ask.{params['ask']}", lang, share=params["share"], max=f"{solved.facts['max']:.1%}",
                gpu=f"{params.get('gpu', 0):,}")
        return "\n\n".join([t("cache_size.trace", lang, trace=params["trace"]), curve,
                            t("cache_size.model", lang, model=model_of(params["model"]).name), shape,
                            t("cache_size.task", lang, question=ask)])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_amount(answer)

    def wrong(self, params: dict, solved: Solved) -> list[tuple[str, int]]:
        rows, pool, bpt, cfg = solved.facts["rows"], solved.facts["pool"], solved.facts["bpt"], \
            model_of(params["model"]).config
        out = [("no_kv_factor", whole_gib(pool, bpt // 2)),
               ("query_heads", whole_gib(pool, kv_bytes(params["model"], num_key_value_heads=cfg.num_attention_heads,
                                                          head_dim=head_dim_of(cfg)))),
               ("decimal_units", whole_gib(pool, bpt, GB))]
        of_all = first_reaching(rows, params["share"] / 100)
        if of_all is not None:
            out.append(("of_all", whole_gib(GRID[of_all], bpt)))
        if params["ask"] == "cpu_gib":   # a victim cache: both pools hold different blocks, the sizes add
            gpu = params["gpu"]
            c = curve_of(params["trace"])
            victim = next((p for p in GRID if c.hit_rate(gpu + p) >= solved.facts["target"]), None)
            if victim is not None:
                out.append(("victim", whole_gib(victim, bpt)))
        return out

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        names = list(dict.fromkeys(name for name, guess in self.wrong(params, solved) if value == guess != solved.answer))
        if not names:
            return None
        return Feedback(f"cache_size.mis.{names[0]}", {}, names[0], tuple(f"cache_size.mis.{n}" for n in names[1:]))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        cfg, f = model_of(params["model"]).config, solved.facts
        product = (f"2 × {cfg.num_hidden_layers} × {cfg.num_key_value_heads} × {head_dim_of(cfg)} × "
                   f"{f['bpt'] // (2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim_of(cfg))} = {f['bpt']:,}")
        lines = [t("cache_size.solution.bytes", lang, product=product),
                 t("cache_size.solution.pool", lang, target=f"{f['target']:.1%}", share=params["share"],
                   max=f"{f['max']:.1%}", pool=f"{f['pool']:,}",
                   rate=f"{f['rows'][GRID.index(f['pool'])]:.1%}")]
        if params["ask"] == "cpu_gib":
            lines.append(t("cache_size.solution.cpu", lang, gpu=f"{params['gpu']:,}"))
        lines.append(t("cache_size.solution.gib", lang, pool=f"{f['pool']:,}", bpt=f"{f['bpt']:,}",
                       gib=f"{f['pool'] * f['bpt'] / GIB:,.2f}", answer=solved.answer))
        return "\n\n".join(lines)
