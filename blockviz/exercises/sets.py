"""Practice sets, one per lesson: which exercises, in which order, with a note each.

The Markdown files under exercises/en and exercises/zh are rendered from here (tests check
they are in sync); regenerate them with

    python -m blockviz.exercises.sets exercises
"""
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from blockviz.course import LESSONS
from blockviz.exercises.core import Exercise
from blockviz.exercises.kinds.refs import SEED_004 as SEED_004_REFS
from blockviz.i18n import LANGS, STRINGS, t
from blockviz.scenarios import load_scenario
from blockviz.brief import brief

# Lesson 1's worked example (the scenario blockviz/scenarios/seed004.toml): B = 4, request A holds tokens
# 0..9, block_table [5, 2, 7]. The block ids come from the free queue:
# Simulator(free_order=[5, 2, 7, 0, 1, 3, 4, 6]) (setups.full_order).
SEED_004_SLOTS = {"block_size": 4, "block_table": [5, 2, 7], "num_tokens": 10, "positions": [3, 4, 5, 6]}


def preset(name: str) -> tuple[dict, list]:
    """A preset scenario (blockviz/scenarios, `blockviz simulate --list`) as exercise params: its pool, and
    its requests as setup ops, each added once as many steps have run as its at_step says."""
    workload = load_scenario(name).workload
    ops, steps = [], 0
    for r in workload.requests:  # in arrival order
        if r.arrival > steps:
            ops.append(["step", r.arrival - steps])
            steps = r.arrival
        ops.append(["add", r.label, r.prompt, r.max_tokens])
    return {"block_size": workload.block_size, "num_blocks": workload.num_blocks}, ops


# nano-vllm's bug reports (lesson 08): ops are [add A, step 1, add B] (#144), [add A, step 1, add C, step 1,
# add D] (#163), [add A, add B] (#219).
N144, N144_OPS = preset("nano144_aligned_prompt")
N163, N163_OPS = preset("nano163_reused_block")
N219, N219_OPS = preset("nano219_duplicate_blocks")

# Lesson 07's batch, with one token per character: A ran first; B (A's prompt and more) and C share a prefill.
LESSON7_BATCH = {"block_size": 4, "num_blocks": 16, "free_order": [9, 3, 12, 6, 1, 14, 7, 0, 10, 4],
                 "setup": [["add", "A", "thecatsaton", 1], ["step", 1], ["add", "B", "thecatsatonthemat", 4],
                           ["add", "C", "adog", 4]]}
# The classroom demo's first moment, small: the second request arrives while the first, with the same
# system prompt, is still running.
SYSTEM = "You_are_kind_"
DEMO_SHARE = {"block_size": 4, "num_blocks": 16, "setup": [["add", "A", SYSTEM + "Who?", 8], ["step", 1]]}

# The capstone (lesson 11): A and B share a two-block prefix in a pool of five blocks. B hits A's blocks
# while A runs; a decode crosses a block boundary with no block free and B is preempted; B waits, and
# when A has finished it re-hits its own freed blocks.
CAPSTONE = {"block_size": 4, "num_blocks": 5,
            "setup": [["add", "A", "You_are_Ann", 5], ["step", 1], ["add", "B", "You_are_Bob", 4], ["step", 7]]}

# Lesson 08b's first question: a block-aligned prompt asked again, after a request that extended it;
# SGLang with its default page of one token, nano-vllm with blocks of four.
LAST_BLOCK = {"block_size": 4, "page_size": 1, "max_tokens": 2, "requests": ["the_cat_", "the_cat_sat"],
              "new": "the_cat_"}

# Lesson 13's question: the smallest GPU pool, in GiB of a named model, that reaches half the maximum.
HALF_THE_MAX = {"trace": "conversation", "model": "llama-3.1-8b", "ask": "gpu_gib", "share": 50}


# Lesson 0's first moment: one prompt into an empty pool, the blocks it takes, the slots its last block
# leaves empty (paging's only waste), and what those blocks cost at a real model's size.
START = {"block_size": 4, "num_blocks": 8}
START_PROMPT = "hellopagedworld"


@dataclass(frozen=True)
class Item:
    kind: str
    seed: int | None = None
    params: dict = field(default_factory=dict)
    note: str | None = None  # a key in STRINGS

    def make(self, lang: str) -> Exercise:
        from blockviz.exercises import make
        return make(self.kind, self.seed, lang=lang, **self.params)

    def code(self, exercise: Exercise) -> str:
        if self.seed is not None and not self.params:
            return f'exercises.from_id("{exercise.id}")'
        args = ", ".join(f"{k}={json.dumps(v)}" for k, v in self.params.items())
        return f'exercises.make("{self.kind}", {args})'


@dataclass(frozen=True)
class PracticeSet:
    name: str    # "lesson" and the lesson's number: `blockviz exercise --set lesson3`, `--set lesson10b`
    lesson: str  # the lesson it practises (blockviz/course.py), whose title it takes
    items: list[Item]


SETS: dict[str, PracticeSet] = {s.name: s for s in [
    PracticeSet("lesson0", "00_start_here", [
        Item("admission_cost", params={**START, "setup": [], "new": START_PROMPT}, note="ex.set.note.start_blocks"),
        Item("lifetime", params={"block_size": 4, "prompt": START_PROMPT, "max_tokens": 6, "ask": "blocks"}),
        Item("wasted_slots", params={**START, "setup": [["add", "A", START_PROMPT, 2], ["add", "B", "hi", 2], ["step", 1]]},
             note="ex.set.note.start_waste"),
        Item("kv_bytes", params={"model": "qwen3-0.6b", "dtype": "bfloat16", "block_size": 16, "ask": "token_bytes"},
             note="ex.set.note.start_scale"),
        Item("kv_bytes", params={"model": "qwen3-0.6b", "dtype": "bfloat16", "block_size": 256, "ask": "blocks_fit",
                                 "memory": "2G"}),
    ]),
    PracticeSet("lesson1", "01_token_to_slot", [
        Item("slot_mapping", params=SEED_004_SLOTS, note="ex.set.note.seed004_slots"),
        Item("slot", params={"block_size": 4, "block_table": [5, 2, 7], "num_tokens": 10, "position": 9}),
        Item("slot", 11), Item("slot", 12), Item("slot_mapping", 21), Item("slot_mapping", 22),
    ]),
    PracticeSet("lesson2", "02_block_lifecycle", [
        Item("ref_counts", params=SEED_004_REFS, note="ex.set.note.seed004_refs"),
        Item("ref_counts", 3), Item("ref_counts", 4),
        Item("pool_states", 1, note="ex.set.note.states"), Item("pool_states", 2),
        Item("next_block", 1), Item("next_block", 2),
    ]),
    PracticeSet("lesson3", "03_prefix_identity", [
        Item("hit_pattern", 1, note="ex.set.note.hit_pattern"), Item("hit_pattern", 2),
        Item("can_allocate", 1), Item("can_allocate", 2),
        Item("block_table", 1), Item("block_table", 2),
        Item("admission_cost", 1, note="ex.set.note.cost"), Item("admission_cost", 2),
    ]),
    PracticeSet("lesson4", "04_decode", [
        Item("decode_block", 1, note="ex.set.note.decode"), Item("decode_block", 2), Item("decode_block", 3),
    ]),
    PracticeSet("lesson5", "05_under_pressure", [
        Item("wasted_slots", 1), Item("wasted_slots", 2),
        Item("can_allocate", 5), Item("preemption", 1, note="ex.set.note.preempt"), Item("preemption", 2),
    ]),
    PracticeSet("lesson6", "06_live_generation", [
        Item("kv_bytes", params={"model": "default", "dtype": "float32", "block_size": 16, "ask": "block_bytes"},
             note="ex.set.note.kv_default"),
        Item("kv_bytes", params={"model": "qwen3-0.6b", "dtype": "bfloat16", "block_size": 256, "ask": "block_mib"},
             note="ex.set.note.kv_qwen"),
        Item("kv_bytes", 2), Item("kv_bytes", 5),
        Item("can_allocate", params={"block_size": 4, "num_blocks": 16, "new": "Itisatruthuniversally",
                                     "setup": [["add", "A", "Itisatruthuniversally", 1], ["step", 1]]},
             note="ex.set.note.again"),
        Item("lifetime", params={"block_size": 4, "prompt": "Itisatruthuniversally", "max_tokens": 8,
                                 "earlier": "Itisatruthuniversally", "ask": "slots"}, note="ex.set.note.lifetime"),
        Item("lifetime", 3), Item("slot", 13),
    ]),
    PracticeSet("lesson7", "07_paged_attention", [
        Item("prefill_batch", params={**LESSON7_BATCH, "ask": "cu_seqlens_q"}, note="ex.set.note.lesson7_batch"),
        Item("prefill_batch", params={**LESSON7_BATCH, "ask": "cu_seqlens_k"}),
        Item("prefill_batch", 1), Item("prefill_batch", 6), Item("prefill_batch", 0),
        Item("decode_mask", 1, note="ex.set.note.decode_mask"), Item("decode_mask", 2),
        Item("slot_mapping", 7),
    ]),
    PracticeSet("lesson8", "08_beyond_nano_vllm", [
        Item("hit_pattern", params={**N144, "setup": N144_OPS[:2], "new": N144_OPS[2][2]}, note="ex.set.note.n144"),
        Item("prefill_batch", params={**N144, "setup": N144_OPS, "ask": "slot_mapping"}, note="ex.set.note.n144_slots"),
        Item("hit_pattern", params={**N163, "setup": N163_OPS[:4], "new": N163_OPS[4][2]}, note="ex.set.note.n163"),
        Item("admission_cost", params={**N163, "setup": N163_OPS[:4], "new": N163_OPS[4][2]}),
        Item("ref_counts", params={**N219, "setup": [], "then": N219_OPS + [["step", 1]], "ask": [0, 1, 3, 4]},
             note="ex.set.note.n219"),
        Item("pool_states", params={**N219, "setup": N219_OPS + [["step", 2]], "ask": [0, 1, 3, 4]},
             note="ex.set.note.n219_after"),
        Item("block_table", params={**N219, "setup": N219_OPS + [["step", 2]], "new": N219_OPS[0][2] + "xyz"}),
    ]),
    PracticeSet("lesson8b", "08b_radix_tree", [
        Item("recompute", params=LAST_BLOCK, note="ex.set.note.last_block"),
        Item("recompute", params={"block_size": 4, "page_size": 4, "max_tokens": 3,
                                  "requests": ["You_are_kind._Ann?"], "new": "You_are_kind._Bob?"},
             note="ex.set.note.same_page"),
        Item("recompute", 1), Item("recompute", 2), Item("recompute", 5), Item("recompute", 7),
    ]),
    PracticeSet("lesson9", "09_classroom_demo", [
        Item("can_allocate", params={**DEMO_SHARE, "new": SYSTEM + "Why_not?"}, note="ex.set.note.demo_share"),
        Item("admission_cost", params={**DEMO_SHARE, "new": SYSTEM + "Why_not?"}),
        Item("ref_counts", params={**DEMO_SHARE, "ask": [0, 1, 2, 3],
                                   "then": [["add", "B", SYSTEM + "Why_not?", 8], ["step", 1],
                                            ["add", "C", SYSTEM + "Where?", 8], ["step", 1]]}),
        Item("decode_block", 4, note="ex.set.note.decode"),
        Item("lifetime", 2, note="ex.set.note.lifetime"),
        Item("kv_bytes", params={"model": "qwen3-0.6b", "dtype": "bfloat16", "block_size": 16, "ask": "blocks_fit",
                                 "memory": "2G"}, note="ex.set.note.demo_memory"),
        Item("preemption", 3, note="ex.set.note.preempt"),
    ]),
    PracticeSet("lesson10", "10_real_engine", [
        Item("vllm_cached", 1, note="ex.set.note.recorded"), Item("vllm_cached", 2), Item("vllm_cached", 3),
        Item("vllm_cached", 4),
    ]),
    PracticeSet("lesson10b", "10b_router", [
        Item("router_pick", 1, note="ex.set.note.router"), Item("router_pick", 2), Item("router_pick", 3),
    ]),
    PracticeSet("lesson11", "11_capstone", [
        Item("steps_table", params=CAPSTONE, note="ex.set.note.capstone"),
        Item("steps_table", 2), Item("steps_table", 3), Item("steps_table", 4),
    ]),
    PracticeSet("lesson13", "13_real_traffic", [
        Item("cache_size", params=HALF_THE_MAX, note="ex.set.note.cache_half"),
        Item("cache_size", params={"trace": "conversation", "model": "qwen3-8b", "ask": "cpu_gib", "share": 75,
                                   "gpu": 5_000_000}, note="ex.set.note.cache_cpu"),
        Item("cache_size", 1), Item("cache_size", 4), Item("cache_size", 6),
    ]),
    # lessons 01-07 interleaved: no two neighbours from the same lesson, every kind of those lessons once
    PracticeSet("lesson12", "12_review", [
        Item("slot_mapping", 31), Item("ref_counts", 31), Item("hit_pattern", 31), Item("decode_block", 31),
        Item("wasted_slots", 31), Item("kv_bytes", 31), Item("prefill_batch", 31), Item("pool_states", 32),
        Item("can_allocate", 32), Item("preemption", 32), Item("slot", 32), Item("next_block", 33),
        Item("lifetime", 33), Item("block_table", 33), Item("decode_mask", 33), Item("admission_cost", 34),
    ]),
]}


def set_exercises(name: str, lang: str = "en") -> list[Exercise]:
    if name not in SETS:
        raise ValueError(f"unknown practice set {brief(name)}; choose one of {', '.join(SETS)}")
    return [item.make(lang) for item in SETS[name].items]


def set_title(name: str, lang: str) -> str:
    """"Lesson 2 · The block lifecycle — six states, ...": the lesson's title from the course, and what
    the set practises when it says more (ex.set.NAME.focus)."""
    lesson = SETS[name].lesson
    title = {"number": lesson.split("_")[0].lstrip("0") or "0", "title": LESSONS[lesson][lang]}  # "3", "10b"
    if f"ex.set.{name}.focus" in STRINGS:
        return t("ex.set.title.focus", lang, **title, focus=t(f"ex.set.{name}.focus", lang))
    return t("ex.set.title", lang, **title)


def render_set(name: str, lang: str) -> str:
    practice = SETS[name]
    parts = [f"# {set_title(name, lang)}", t(f"ex.set.{name}.intro", lang),
             t("ex.set.how", lang, name=name, language=lang)]
    for i, item in enumerate(practice.items, 1):
        ex = item.make(lang)
        part = f"## {i}\n\n"
        if item.note:
            part += f"> {t(item.note, lang)}\n\n"
        part += f"```python\n{item.code(ex)}\n```\n\n{ex.prompt_in(lang)}"
        parts.append(part)
    return "\n\n".join(parts) + "\n"


def render_index(lang: str) -> str:
    lines = [f"# {t('ex.set.index.title', lang)}", "", t("ex.set.index.intro", lang), ""]
    for name, practice in SETS.items():
        lines.append(f"- [{set_title(name, lang)}]({name}.md) · {len(practice.items)}")
    return "\n".join(lines) + "\n"


def files(root: Path) -> dict[Path, str]:
    out = {}
    for lang in LANGS:
        out[root / lang / "README.md"] = render_index(lang)
        for name in SETS:
            out[root / lang / f"{name}.md"] = render_set(name, lang)
    return out


def write_all(root: Path) -> list[Path]:
    written = []
    for path, text in files(root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "exercises")):
        print(path)
