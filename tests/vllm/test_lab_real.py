"""The policy lab against the real vLLM of the session (conftest.py, 16 blocks): a workload built to
make the engines differ, each explained difference checked against what both engines did."""
import subprocess
import sys

import pytest

from blockviz.recording.events import BlockAllocated
from blockviz.vllm.lab import LabRequest, Source, corpus_ids, run_lab
from blockviz.vllm.lab import rules
from blockviz.vllm.lab.saved import load_lab, save_lab
from blockviz.vllm.lab.stream import burst, chat, concat, refill

from tests.vllm.conftest import BLOCKS

pytestmark = pytest.mark.timeout(900)   # the first test of a session also waits for the server

DISTINCT, AGAIN, TURNS, BURST = 14, 3, 3, 4
FULL = DISTINCT + AGAIN + TURNS + 1   # a prompt of exactly two blocks, sent the second time


@pytest.fixture(scope="module")
def result(vllm_server, live_watch):
    source = Source(list(corpus_ids()), start=17_000)   # tokens no other test of the session sends
    stream = concat(refill(source, distinct=DISTINCT, length=40, again=AGAIN),
                    chat(source, turns=TURNS, first_len=50, user_len=10, max_tokens=20),
                    two_blocks(source),
                    burst(source, requests=BURST, shared_len=64, own_len=40, max_tokens=2))
    vllm_server.client.reset_prefix_cache()
    try:
        yield run_lab(stream, vllm_server.client, live_watch)
    finally:
        vllm_server.client.reset_prefix_cache()


def two_blocks(source: Source) -> list[LabRequest]:
    prompt = source.take(64)
    return [LabRequest(prompt, 1, label="full"), LabRequest(prompt, 1, label="full'")]


def in_order(result) -> range:
    """The requests sent one at a time (the burst comes last)."""
    return range(len(result.requests) - BURST)


def test_the_pool_is_read_from_the_server_and_nano_gets_one_block_less(result):
    assert (result.vllm_blocks, result.nano_blocks, result.block_size) == (BLOCKS, BLOCKS - 1, 32)
    assert len(result.nano_session.scheduler.block_manager.blocks) == BLOCKS - 1


def test_the_engines_differ_and_every_difference_in_order_is_explained(result):
    ordered = [d for d in result.differences if d.index in in_order(result)]
    assert any(d.what == "cached_tokens" for d in ordered), "the workload was built to make the engines differ"
    assert [d for d in ordered if not d.explained] == [], result.summary()
    assert result.last_token_rule_agrees() == []


def test_a_fully_cached_prompt_hits_all_but_its_last_block_in_both(result):
    # vLLM caps the hit at 63 tokens, nano-vllm never probes the last block: one block, 32 tokens
    assert result.prompts[FULL] == result.prompts[FULL - 1] and len(result.prompts[FULL]) == 64
    assert result.vllm[FULL].cached_tokens == result.nano[FULL].cached_tokens == 32
    # each computes block 1 again, a second copy of cached content: nothing new is stored
    assert result.vllm[FULL].stored == result.nano[FULL].stored == []


def test_the_re_sent_prompts_hit_in_vllm_because_nano_evicted_them(result):
    # vLLM reused the freed partial blocks first, so the refill evicted nothing there; nano-vllm's
    # tail-appended partial blocks let the oldest full blocks be taken instead
    refill_part = range(DISTINCT)
    assert sum(len(result.vllm[i].evicted) for i in refill_part) == 0
    assert sum(len(result.nano[i].evicted) for i in refill_part) > 0
    hits = [d for d in result.differences if d.what == "cached_tokens" and d.index in in_order(result)]
    assert {d.index for d in hits} == set(range(DISTINCT, DISTINCT + AGAIN))
    for d in hits:
        assert d.rules == (rules.FREE_UNHASHED_FIRST,) and (d.vllm, d.nano) == (32, 0)
        block = result.first_missing_block(d)
        assert block in result.vllm[d.index - 1].resident                   # vLLM still held it
        assert rules.evicted_where(block, result.vllm, d.index) is None     # its events never removed it
        assert rules.evicted_where(block, result.nano, d.index) is not None  # nano-vllm evicted it


def test_what_only_vllm_held_was_evicted_by_nano(result):
    for d in result.differences:
        if d.what == "resident" and d.rules == (rules.FREE_UNHASHED_FIRST,):
            evicted = {k for o in result.nano[:d.index + 1] for k in o.evicted}
            assert d.only_vllm <= evicted and not d.only_nano


def test_both_register_the_same_blocks_generated_tokens_included(result):
    same_hit = [i for i in in_order(result) if result.vllm[i].cached_tokens == result.nano[i].cached_tokens]
    assert len(same_hit) > DISTINCT
    for i in same_hit:   # the same hit, so the same blocks left to compute and register
        assert sorted(result.vllm[i].stored) == sorted(result.nano[i].stored), result.labels[i]
    for turn in range(DISTINCT + AGAIN + 1, DISTINCT + AGAIN + TURNS):
        previous = len(result.prompts[turn - 1])
        # the hit runs past the previous prompt: into the block its reply filled
        assert result.vllm[turn].cached_tokens == result.nano[turn].cached_tokens > previous // 32 * 32


def test_the_burst_hits_in_vllm_within_a_step_and_its_differences_are_shown(result):
    burst_part = range(len(result.requests) - BURST, len(result.requests))
    assert any(result.vllm[i].cached_tokens > 0 for i in burst_part)     # the shared prefix hit
    assert result.vllm_max_num_seqs == 4   # from the server's /server_info (blockviz vllm serve's CPU setting)
    for d in result.differences:
        if d.index in burst_part and d.what == "cached_tokens" and d.vllm > d.nano:
            named = {r for rs in (d.rules, *d.alternatives) for r in rs}
            assert named & {rules.REGISTER_WHEN_SCHEDULED, rules.RUNNING_CAP}, result.summary()
    # vLLM's timing of a burst is its own: what no rule explains is listed, never dropped
    shown = {(d.index, d.what) for d in result.unexplained}
    assert shown == {(d.index, d.what) for d in result.differences if not d.rules}


def test_nanos_log_agrees_with_its_recording(result):
    session = result.nano_session
    recorded = sum(isinstance(e, BlockAllocated) and e.evicted_hash != -1
                   for step in range(session.first_step, session.last_step + 1) for e in session.events(step))
    logged = len({(c.step, k) for o in result.nano for c in o.steps for k in c.evicted})
    assert recorded == logged > 0


def test_a_saved_run_loads_and_explains_the_same(result, tmp_path):
    save_lab(result, tmp_path / "lab.json", note="vLLM 0.32.0 CPU")
    loaded, note = load_lab(tmp_path / "lab.json")
    assert note == "vLLM 0.32.0 CPU"
    assert loaded.differences == result.differences and loaded.prompts == result.prompts
    assert loaded.hit_rates() == result.hit_rates()


def test_the_command_runs_a_typed_stream(vllm_server, tmp_path):
    typed = tmp_path / "stream.txt"
    typed.write_text("# a typed stream: a request, a chat turn after it, token ids\n"
                     "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
                     "must be in want of a wife. However little known the feelings or views of such a man may be\n"
                     "> on his first entering a neighbourhood, this truth is so well fixed\n"
                     "[5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, "
                     "30, 31, 32, 33, 34, 35, 36, 37]\n", encoding="utf-8")
    page = tmp_path / "lab.html"
    command = [sys.executable, "-m", "blockviz", "vllm", "lab", "--api", vllm_server.api, "--events",
               vllm_server.events, "--replay", vllm_server.replay, "--file", str(typed), "--max-tokens", "3",
               "--html", str(page), "--lang", "zh"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("3 requests; block size 32; vLLM 16 blocks")
    html = page.read_text(encoding="utf-8")
    assert 'data-view="lab"' in html and html.count("<tr data-index=") == 3 and "策略实验" in html
