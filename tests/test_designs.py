"""side_by_side: nano-vllm's blocks and SGLang's tree on the same requests, counted by the engines."""
from blockviz.designs import DESIGNS, EvictionCount, LastTables, side_by_side
from blockviz.sim import Simulator

PROMPTS = ["the cat sat on the mat", "the cat sat on the hat", "a dog ran far away from here",
           "the cat sat on the mat"]


def test_every_prompt_token_is_hit_or_recomputed_in_whole_blocks():
    served = side_by_side(PROMPTS, num_blocks=12, block_size=4)
    assert tuple(served) == DESIGNS
    for rows in served.values():
        assert [r.prompt for r in rows] == [len(p) for p in PROMPTS]   # the char tokenizer: one token a character
        assert all(r.hit + r.recompute == r.prompt and r.hit % 4 == 0 for r in rows)
        assert rows[0].hit == 0 and rows[1].hit == 16     # "the cat sat on the " shared, whole blocks only


def test_a_pool_large_enough_evicts_nothing_and_a_small_one_evicts_in_both():
    roomy = side_by_side(PROMPTS, num_blocks=64, block_size=4)
    assert all(r.evict == 0 for rows in roomy.values() for r in rows)
    whole_blocks = (len(PROMPTS[3]) - 1) // 4 * 4   # the mat prompt again: all its full blocks still cached
    assert all(rows[3].hit == whole_blocks for rows in roomy.values())
    tight = side_by_side(PROMPTS, num_blocks=12, block_size=4)
    assert all(sum(r.evict for r in rows) > 0 for rows in tight.values())


def test_the_counter_lets_go():
    for policy in DESIGNS:
        bm = Simulator(num_blocks=8, block_size=4, policy=policy, record=False).scheduler.block_manager
        count = EvictionCount(bm)
        count.close()
        assert "evict" not in vars(getattr(bm, "tree", bm)) and "_allocate_block" not in vars(bm)


def test_each_request_keeps_its_block_table_and_the_keeper_lets_go():
    served = side_by_side(PROMPTS, num_blocks=64, block_size=4)
    for rows in served.values():
        assert rows[0].blocks and rows[3].blocks[:4] == rows[0].blocks[:4]   # the mat prompt again: its first 4 blocks hit
    for policy in DESIGNS:
        bm = Simulator(num_blocks=8, block_size=4, policy=policy, record=False).scheduler.block_manager
        LastTables(bm).close()
        assert "deallocate" not in vars(bm)
