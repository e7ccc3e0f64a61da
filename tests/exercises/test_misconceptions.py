"""Each known mistake gets its own message. The instances are small explicit scenarios; the
premise of each test (the engine's answer) is asserted first, then the wrong answer."""
import pytest

from blockviz import exercises


def mistake(kind: str, answer, wrong, name: str, **params):
    ex = exercises.make(kind, **params)
    assert ex.answer() == answer, ex.answer()  # the premise, computed by the engine
    for lang in ("en", "zh"):
        result = ex.check(wrong, lang)
        assert not result.correct
        assert result.misconception == name, (wrong, result)
        assert result.message
    return ex


SLOT = dict(block_size=4, block_table=[5, 2, 7], num_tokens=10, position=6)  # t=6 -> 2*4+2 = 10


@pytest.mark.parametrize("wrong, name", [
    ("6", "logical"),        # logical block 1 × 4 + 2
    ("4", "no_times_b"),     # 2 + 2
    ("14", "position_as_offset"),
    ("22", "table_index"),   # table[0] × 4 + 2
    ("9", "off_by_one"), ("11", "off_by_one"),
])
def test_slot_mistakes(wrong, name):
    mistake("slot", 10, wrong, name, **SLOT)


SEED004 = dict(block_size=4, block_table=[5, 2, 7], num_tokens=10, positions=[3, 4, 5, 6])


@pytest.mark.parametrize("wrong, name", [
    ("3, 4, 5, 6", "logical"), ("24, 9, 10, 11", "off_by_one"), ("22, 7, 8, 9", "off_by_one"),
    ("23, 24, 25, 26", "contiguous"), ("8, 2, 3, 4", "no_times_b"),
])
def test_slot_mapping_mistakes(wrong, name):
    mistake("slot_mapping", [23, 8, 9, 10], wrong, name, **SEED004)


# A finished after computing "abcd|efgh": both full blocks stay cached in the free queue.
FINISHED = dict(block_size=4, num_blocks=8, free_order=[3, 6], setup=[["add", "A", "abcdefgh", 1], ["step", 1]])
RUNNING = dict(block_size=4, num_blocks=8, free_order=[3, 6], setup=[["add", "A", "abcdefgh", 4], ["step", 1]])


def test_last_block_counted_as_a_hit():
    mistake("hit_pattern", ["F", "-"], "F, F", "last_block_hit", new="abcdefgh", **FINISHED)
    mistake("can_allocate", 1, "2", "last_block_hit", new="abcdefgh", **FINISHED)
    mistake("block_table", [3, 0], "3, 6", "last_block_hit", new="abcdefgh", **FINISHED)
    mistake("admission_cost", 1, "0", "last_block_hit", new="abcdefgh", **RUNNING)
    mistake("ref_counts", [2, 1], "2, 2", "last_block_hit", block_size=4, num_blocks=8, free_order=[3, 6],
            setup=[["add", "A", "abcdefgh", 4], ["step", 1]], then=[["add", "B", "abcdefgh", 4], ["step", 1]],
            ask=[3, 6])


def test_hit_on_a_free_block_treated_as_free_of_charge():
    mistake("admission_cost", 2, "1", "free_hit_costs_nothing", new="abcdefgh", **FINISHED)
    # 4 blocks; A's two full blocks are cached-free, X holds one, 3 are free. R needs 4
    # (its two hits are on free blocks): -1. Counting free hits as costless gives 2.
    mistake("can_allocate", -1, "2", "free_hit_costs_nothing", block_size=4, num_blocks=4,
            setup=[["add", "A", "abcdefghij", 1], ["step", 1], ["add", "X", "wxyz", 4], ["step", 1]],
            new="abcdefghklmnop", new_max_tokens=1)


def test_hits_on_used_blocks():
    mistake("hit_pattern", ["U", "U", "-"], "F, F, -", "used_vs_free", new="abcdefghxy", **RUNNING)
    mistake("admission_cost", 1, "3", "used_hit_costs", new="abcdefghxy", **RUNNING)


def test_hit_after_the_first_miss():
    # A and C both compute "abcd" in one step; C registers it last, then D's allocations evict C's
    # block: the map loses "abcd" while A still holds "abcd|efgh" under the next chained hash.
    scenario = dict(block_size=4, num_blocks=8, new="abcdefghzz",
                    setup=[["add", "A", "abcdefghi", 4], ["add", "C", "abcdz", 1], ["step", 1],
                           ["add", "D", "mnopqrstuvwxyzmnopqr", 1], ["step", 1]])
    mistake("hit_pattern", ["M", "-", "-"], "M, U, -", "hit_after_miss", **scenario)
    mistake("can_allocate", 0, "1", "hit_after_miss", **scenario)
    mistake("hit_pattern", ["M", "-", "-"], "-, -, -", "miss_vs_skip", **scenario)


def test_mod_zero_instead_of_mod_one():
    # after prefill A has 7 + 1 = 8 tokens (8 % 4 == 0: fits), B has 8 + 1 = 9 (9 % 4 == 1: new block)
    mistake("decode_block", ["B"], "A", "mod_zero", block_size=4, num_blocks=8,
            setup=[["add", "A", "abcdefg", 4], ["add", "B", "qrstuvwx", 4], ["step", 1]])


# A finished and its block 0 ("abcd") sits at the head of the free queue; C's blocks follow.
HEAD_CACHED = dict(block_size=4, num_blocks=4,
                   setup=[["add", "A", "abcdx", 1], ["step", 1], ["add", "C", "pqrstuvwx", 1], ["step", 1]])


def test_allocation_mistakes():
    mistake("block_table", [0, 1], "0, 0", "revived_stays_queued", new="abcdyz", **HEAD_CACHED)
    mistake("next_block", (1, "none"), "0, none", "revived_is_allocated", new="abcdyz", **HEAD_CACHED)
    mistake("next_block", (1, "none"), "2, none", "from_tail", new="abcdyz", **HEAD_CACHED)
    mistake("next_block", (0, "h1"), "0, none", "cached_not_evicted", new="wxyzq", **HEAD_CACHED)
    # two identical prompts in one step: the second registration wins, block 0 is stale-free
    mistake("next_block", (0, "none"), "0, h1", "stale_evicts", block_size=4, num_blocks=2, new="wxyzq",
            setup=[["add", "X", "abcd", 1], ["add", "X2", "abcd", 1], ["step", 1]])
    mistake("block_table", [3, 6, 0], "3, 6, 7", "from_tail", new="abcdefghxyz", **FINISHED)
    mistake("block_table", [3, 6, 0], "0, 1, 2", "ignored_hits", new="abcdefghxyz", **FINISHED)


def test_ref_count_mistakes():
    release = dict(block_size=4, num_blocks=8, free_order=[5, 2, 7],
                   setup=[["add", "A", list(range(10)), 2], ["step", 1]],
                   then=[["add", "B", list(range(8)) + [20, 21], 6], ["step", 2]], ask=[5, 2, 7])
    mistake("ref_counts", [1, 1, 0], "0, 0, 0", "release_to_zero", **release)
    revive = dict(block_size=4, num_blocks=8, setup=[["add", "C", "abcdefghi", 1], ["step", 1]],
                  then=[["add", "B", "abcdxy", 4], ["step", 1]], ask=[0])
    mistake("ref_counts", [1], "0", "free_is_miss", **revive)
    mistake("ref_counts", [1], "2", "free_plus_one", **revive)


def test_pool_state_confusions():
    ex = mistake("pool_states", ["stale-free", "free", "cached-free", "free"], "cached-free, free, stale-free, free",
                 "cached_vs_stale", block_size=4, num_blocks=4, ask=[0, 1, 2, 3],
                 setup=[["add", "X", "abcde", 1], ["add", "X2", "abcde", 1], ["step", 1]])
    assert ex.check("free, free, cached-free, free").misconception == "free_keeps_hash"
    assert ex.check("空闲，空闲，可复用缓存，空闲").misconception == "free_keeps_hash"
    assert ex.check("SF, F, CF, F").correct


def test_preemption_mistakes():
    # A (7 tokens) and B (5) fill the 4 blocks; two decode steps later A needs a block: B, the tail, goes.
    tail = dict(block_size=4, num_blocks=4, setup=[["add", "A", "abcdefg", 8], ["add", "B", "hijkl", 8], ["step", 2]])
    mistake("preemption", (["B"], [3, 2]), "A: 3", "victim_needs_block", **tail)
    mistake("preemption", (["B"], [3, 2]), "B: 2, 3", "table_order", **tail)
    # C shares A's first block; preempting C frees only its own block
    shared = dict(block_size=4, num_blocks=4, setup=[["add", "A", "abcdefg", 8], ["step", 1],
                                                     ["add", "C", "abcdxyz", 8], ["step", 2]])
    mistake("preemption", (["C"], [2]), "C: 2, 0", "shared_blocks_freed", **shared)


def test_wasted_slot_mistakes():
    mistake("wasted_slots", 2, "1", "sampled_token_stored", block_size=4, num_blocks=8,
            setup=[["add", "A", "abcdef", 4], ["step", 1]])
    mistake("wasted_slots", 7, "3", "reserved_blocks_ignored", block_size=4, num_blocks=8, budget=5,
            setup=[["add", "A", "abcdefghijk", 2], ["step", 1]])
    mistake("wasted_slots", 0, "4", "full_block_wastes", block_size=4, num_blocks=8,
            setup=[["add", "A", "abcdefgh", 4], ["step", 1]])
    mistake("wasted_slots", 2, "26", "free_blocks_counted", block_size=4, num_blocks=8,
            setup=[["add", "A", "abcdef", 4], ["step", 1]])


def named(kind: str, answer, wrong, name: str, also: str | None = None, **params):
    """As mistake(), and the message is a real sentence in both languages (a missing string shows its key)."""
    ex = mistake(kind, answer, wrong, name, **params)
    for lang in ("en", "zh"):
        message = ex.check(wrong, lang).message
        assert ".mis." not in message, message
        if also is not None:
            assert STRINGS[also][lang].split("：")[0][:20] in message, (also, message)
    return ex


DEFAULT_BLOCK = dict(model="default", dtype="float32", block_size=16, ask="block_bytes")  # 2·4·16·2·64·4 = 65536


@pytest.mark.parametrize("wrong, name, also", [
    ("32768", "no_kv_factor", "kv_bytes.mis.itemsize"),   # float32 read as 2 bytes gives the same
    ("16384", "no_layers", None),
    ("131072", "query_heads", "kv_bytes.mis.hidden_size"),  # 4 query heads × 64 = hidden_size 256
    ("524288", "bits", None),
    ("4096", "no_block_size", None),
])
def test_kv_bytes_mistakes(wrong, name, also):
    named("kv_bytes", 65536, wrong, name, also, **DEFAULT_BLOCK)


QWEN_MIB = dict(model="qwen3-0.6b", dtype="bfloat16", block_size=256, ask="block_mib")  # 29,360,128 bytes


@pytest.mark.parametrize("wrong, name", [
    ("29360128", "bytes_not_mib"), ("28672", "kib_not_mib"), ("29", "decimal_units"), ("14", "no_kv_factor"),
    ("1", "no_layers"),
])
def test_kv_mib_mistakes(wrong, name):
    named("kv_bytes", 28, wrong, name, **QWEN_MIB)


QWEN_2G = dict(model="qwen3-0.6b", dtype="bfloat16", block_size=16, ask="blocks_fit", memory="2G")  # lesson 09


@pytest.mark.parametrize("wrong, name, also", [
    ("1171", "rounded_up", None), ("1089", "decimal_units", None), ("2340", "no_kv_factor", None),
    ("585", "query_heads", "kv_bytes.mis.itemsize"), ("18724", "no_block_size", None),
])
def test_kv_blocks_fit_mistakes(wrong, name, also):
    ex = named("kv_bytes", 1170, wrong, name, also, **QWEN_2G)
    assert ex.check("1,170 blocks").correct and ex.check("１１７０块").correct


@pytest.mark.parametrize("wrong, name, params", [
    ("13", "last_token_computed", dict(prompt="abcdefghij", max_tokens=3, ask="slots")),       # 10 + 3 − 1 = 12
    ("10", "prompt_only", dict(prompt="abcdefghij", max_tokens=3, ask="slots")),
    ("4", "last_token_computed", dict(prompt="abcdefghij", max_tokens=3, ask="blocks")),      # ⌈12 / 4⌉ = 3
    ("1", "prompt_only", dict(prompt="abcd", max_tokens=6, ask="blocks")),                    # ⌈9 / 4⌉ = 3
    ("2", "rounded_down", dict(prompt="abcd", max_tokens=6, ask="blocks")),
    ("9", "slots_not_blocks", dict(prompt="abcd", max_tokens=6, ask="blocks")),
])
def test_lifetime_mistakes(wrong, name, params):
    answer = {"slots": 12, "blocks": 3}[params["ask"]]
    named("lifetime", answer, wrong, name, block_size=4, **params)


def test_lifetime_hits_are_not_written_again():
    # E computed "abcd|efgh"; A revives both blocks, computes "ij" and 2 decode positions
    cached = dict(block_size=4, prompt="abcdefghij", earlier="abcdefghXY", max_tokens=3, ask="slots")
    named("lifetime", 4, "12", "hits_rewritten", **cached)
    named("lifetime", 4, "5", "last_token_computed", **cached)
    named("lifetime", 4, "2", "prompt_only", **cached)


# Lesson 07's batch: B hits A's two full blocks (8 cached, 9 new), C computes 4.
from blockviz.exercises.sets import LESSON7_BATCH  # noqa: E402
from blockviz.i18n import STRINGS  # noqa: E402


@pytest.mark.parametrize("ask, answer, wrong, name", [
    ("cu_seqlens_q", [0, 9, 13], "9, 13", "no_leading_zero"),
    ("cu_seqlens_q", [0, 9, 13], "0, 17, 21", "cached_in_q"),
    ("cu_seqlens_q", [0, 9, 13], "0, 9, 4", "not_cumulative"),
    ("cu_seqlens_q", [0, 9, 13], "9, 4", "not_cumulative"),
    ("cu_seqlens_k", [0, 17, 21], "17, 21", "no_leading_zero"),
    ("cu_seqlens_k", [0, 17, 21], "0, 9, 13", "q_for_k"),
    ("cu_seqlens_k", [0, 17, 21], "0, 17, 4", "not_cumulative"),
    ("slot_mapping", [24, 25, 26, 27, 4, 5, 6, 7, 56, 28, 29, 30, 31], "8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 1, 2, 3",
     "positions_not_slots"),
    ("slot_mapping", [24, 25, 26, 27, 4, 5, 6, 7, 56, 28, 29, 30, 31], list(range(13)), "rows_not_slots"),
    ("slot_mapping", [24, 25, 26, 27, 4, 5, 6, 7, 56, 28, 29, 30, 31],
     [36, 37, 38, 39, 12, 13, 14, 15, 24, 25, 26, 27, 4, 5, 6, 7, 56, 28, 29, 30, 31], "cached_rewritten"),
])
def test_prefill_batch_mistakes(ask, answer, wrong, name):
    named("prefill_batch", answer, wrong, name, **LESSON7_BATCH, ask=ask)


CHUNKED = dict(block_size=4, num_blocks=8, budget=5, setup=[["add", "X", "abcdefghijklmn", 2], ["step", 1]])


def test_prefill_batch_chunk_mistakes():
    # X's second chunk: 5 cached, 5 computed, 4 still to come
    named("prefill_batch", [0, 5], "0, 9", "budget_ignored", **CHUNKED, ask="cu_seqlens_q")
    named("prefill_batch", [0, 10], "0, 14", "whole_prompt", **CHUNKED, ask="cu_seqlens_k")
    ex = exercises.make("prefill_batch", **CHUNKED, ask="cu_seqlens_k")
    assert "Expected 2" in ex.check("1, 2, 3, 4").message  # a wrong count says how many numbers (one request: 2)


# A (9 tokens) and B (2) decode: A holds 3 blocks, B one; the tables are padded to 3 blocks of 4.
# Decode gathers up to the longest context (A's 10 keys), so B's row hides 10 - 3.
DECODE = dict(block_size=4, num_blocks=8, setup=[["add", "A", "abcdefghi", 4], ["add", "B", "xy", 4], ["step", 1]])


@pytest.mark.parametrize("wrong, name", [
    ("1", "own_blocks"), ("8", "current_not_key"), ("3", "visible_keys"), ("9", "whole_blocks"),
    ("10", "gathered_keys"),
])
def test_decode_mask_mistakes(wrong, name):
    named("decode_mask", 7, wrong, name, **DECODE, label="B")


def test_a_hit_on_a_free_block_treated_as_a_miss():
    # "M -" where "F -" is right, and can_allocate answered 0: the free block's content was still cached
    mistake("hit_pattern", ["F", "-"], "M, -", "free_is_miss", new="abcdefgh", **FINISHED)
    mistake("hit_pattern", ["F", "-"], "M，-", "free_is_miss", new="abcdefgh", **FINISHED)
    mistake("can_allocate", 1, "0", "free_is_miss", new="abcdefgh", **FINISHED)
    mistake("can_allocate", 1, "0 blocks", "free_is_miss", new="abcdefgh", **FINISHED)


def test_a_partly_filled_last_block_counted_as_shared():
    from blockviz.exercises.kinds.refs import SEED_004
    ex = mistake("ref_counts", [2, 2, 1], "2, 2, 2", "partial_block_shared", **SEED_004)
    assert "hash" in ex.check("2、2、2", "zh").message


def test_blocks_at_the_same_place_counted_as_shared():
    # B shares only "abcd" with A; counting A's other blocks that sit where B's do is sharing by position
    params = dict(block_size=4, num_blocks=8, setup=[["add", "A", "abcdefghij", 8], ["step", 1]],
                  then=[["add", "B", "abcdxyzwq", 4], ["step", 1]], ask=[0, 1, 2])
    mistake("ref_counts", [2, 1, 1], "2, 2, 2", "position_shared", **params)
    ex = exercises.make("ref_counts", **params)
    assert "2" not in ex.check("2, 2, 2", "en").message.replace("2, 2, 2", "")  # the diagnosis gives no count


def test_the_headline_misconception_is_named_on_generated_instances():
    """For each generated instance with a hit on a free block, the answer of a learner who takes that hit
    for a miss (hand_walk's free_is_miss, on the instance's own pool) gets the free-is-miss diagnosis."""
    from blockviz.exercises.setups import encode
    from blockviz.exercises.kinds.prefix import hand_walk
    seen = {"hit_pattern": 0, "can_allocate": 0}
    for kind in seen:
        for seed in range(40):
            ex = exercises.make(kind, seed)
            adm = ex.solved.facts["adm"]
            if "F" not in adm.codes or ex.answer() == -1:
                continue
            codes, _ = hand_walk(adm.before.bm, encode(ex.params["new"]), ex.params["block_size"], free_is_miss=True)
            wrong = ", ".join(codes) if kind == "hit_pattern" else str(codes.count("U"))
            assert ex.check(wrong).misconception == "free_is_miss", (ex.id, wrong)
            seen[kind] += 1
    assert all(seen.values()), seen
