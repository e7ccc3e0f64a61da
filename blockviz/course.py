"""The course: its lessons in order, their titles (the only place a lesson's title is written: the practice
sets take theirs from here), the languages they are written in. Below both the lessons and the
exercises, which read it."""
from pathlib import Path

from blockviz.i18n import LANGS

REPO_DIR = Path(__file__).resolve().parents[1]

# name -> title; the order is the course order
LESSONS: dict[str, dict[str, str]] = {
    "00_start_here": {"en": "Start here", "zh": "从这里开始"},
    "01_token_to_slot": {"en": "Logical token → physical slot", "zh": "从逻辑 token 到物理槽位"},
    "02_block_lifecycle": {"en": "The block lifecycle", "zh": "块的生命周期"},
    "03_prefix_identity": {"en": "Prefix identity", "zh": "前缀的身份"},
    "03b_hit_limits": {"en": "The last block, and hits on free blocks", "zh": "最后一块，以及命中空闲块"},
    "04_decode": {"en": "Decode", "zh": "解码阶段"},
    "05_under_pressure": {"en": "Under pressure", "zh": "显存紧张时"},
    "05b_preemption": {"en": "Preemption", "zh": "抢占"},
    "06_live_generation": {"en": "Live generation: a real model fills the pool", "zh": "实时生成：真实模型写满 KV 池"},
    "07_paged_attention": {"en": "Paged attention", "zh": "分页注意力"},
    "08_beyond_nano_vllm": {"en": "Beyond nano-vllm (optional)", "zh": "nano-vllm 之外（选学）"},
    "08b_radix_tree": {"en": "Hash chain or radix tree (optional)", "zh": "哈希链还是基数树（选学）"},
    "09_classroom_demo": {"en": "The classroom demo", "zh": "课堂演示"},
    "10_real_engine": {"en": "A real engine: vLLM's prefix cache, live", "zh": "真实的引擎：实时观察 vLLM 的前缀缓存"},
    "10b_router": {"en": "Routing by cache: several vLLM engines", "zh": "按缓存路由：多个 vLLM 引擎"},
    "11_capstone": {"en": "Capstone: predict a whole run", "zh": "综合练习：预测一整段运行"},
    "12_review": {"en": "Review: lessons 01–07, mixed", "zh": "复习：第 01–07 课交错练习"},
    "13_real_traffic": {"en": "Real traffic", "zh": "真实流量"},
    # the build-it-yourself track (blockviz/diy/): after the numbered lessons
    "b0_paging": {"en": "Build it: paging, without a cache", "zh": "自己动手：分页，先不要缓存"},
    "b1_allocate": {"en": "Build it: admission", "zh": "自己动手：入场"},
    "b2_deallocate": {"en": "Build it: release", "zh": "自己动手：释放"},
    "b3_hash_blocks": {"en": "Build it: hash the computed blocks", "zh": "自己动手：为算完的块登记 hash"},
    "b4_decode": {"en": "Build it: a block for the next token", "zh": "自己动手：为下一个 token 准备块"},
}


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"LANG must be one of {LANGS}, got {lang!r}")
    return lang
