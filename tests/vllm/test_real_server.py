"""Against a real vLLM server (conftest.py): its KV events decode, the index predicts exactly the
prompt tokens vLLM reports it reused through evictions, gaps are filled from its replay endpoint,
a late watch catches up, /reset_prefix_cache empties the index, junk is counted and skipped."""
import random
import time

import pytest

from blockviz.llm import TokenizerFile
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm import Watch

from tests.vllm.relay import Relay

pytestmark = pytest.mark.timeout(900)   # the first test also waits for the server (60-90 s on 2 cores)

BLOCK = 32


@pytest.fixture(scope="module")
def texts():
    tokenizer = TokenizerFile(DEFAULT_MODEL_DIR / "tokenizer.json")
    corpus = (DEFAULT_MODEL_DIR / "corpus" / "pride_and_prejudice.txt").read_text()[20_000:220_000]
    ids = tokenizer.encode(corpus)
    return tokenizer, ids


def keys(watch: Watch) -> set:
    return {(r.hash, r.parent, r.token_ids) for r in watch.picture().blocks}


def test_events_arrive_and_decode(vllm_server, live_watch, texts):
    _, ids = texts
    prompt = ids[:3 * BLOCK + 5]
    vllm_server.client.complete(prompt, max_tokens=1)
    live_watch.settle()
    blocks = {r.token_ids: r for r in live_watch.picture().blocks}
    chain = [tuple(prompt[i * BLOCK:(i + 1) * BLOCK]) for i in range(3)]
    assert all(c in blocks for c in chain)
    first, second, third = (blocks[c] for c in chain)
    assert first.parent is None and second.parent == first.hash and third.parent == second.hash
    assert {(r.block_size, r.medium) for r in blocks.values()} == {(BLOCK, "GPU")}
    assert not live_watch.problems
    assert "ready" in vllm_server.ready_line


def test_predictions_equal_the_reuse_vllm_reports_through_evictions(vllm_server, live_watch, texts):
    _, ids = texts
    rng = random.Random(7)
    prefixes = [ids[i * 400:i * 400 + rng.choice([64, 96, 130])] for i in range(4)]   # shared system prompts
    before = vllm_server.client.prefix_cache_counters()
    results = []
    for n in range(24):
        prefix = prefixes[rng.randrange(len(prefixes))]
        tail = ids[5000 + n * 50:5000 + n * 50 + rng.choice([0, 1, 20, 45])]
        prompt = (prefix + tail)[:rng.choice([len(prefix) + len(tail), 64, 65, 97])]
        live_watch.settle()
        predicted = live_watch.cached_tokens(prompt)
        reported = vllm_server.client.complete(prompt, max_tokens=2).cached_tokens
        results.append((len(prompt), predicted, reported))
    assert [p for _, p, _ in results] == [r for _, _, r in results], results
    assert sum(r > 0 for _, _, r in results) >= 8             # the shared prefixes did hit
    live_watch.settle()
    assert live_watch.picture().info.removed_total > 0       # and the small pool evicted
    # the hit rate the views show comes from /metrics: the same tokens, counted by the server
    after = wait_for_counters(vllm_server.client, before, sum(n for n, _, _ in results))
    assert after["hits"] - before["hits"] == sum(r for _, _, r in results)


def wait_for_counters(client, before: dict, queried: int, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        after = client.prefix_cache_counters()
        if after["queries"] - before["queries"] >= queried or time.monotonic() > deadline:
            assert after["queries"] - before["queries"] == queried
            return after
        time.sleep(0.2)


def test_the_views_draw_the_real_cache_with_its_text(live_watch, texts):
    from blockviz.markup import CONTROL_PICTURES
    from blockviz.views.render_forest import render_forest, short
    from blockviz.views.svg import visible
    from tests.views.svgtools import parse
    tokenizer, _ = texts
    live_watch.settle()
    picture = live_watch.picture()
    svg = render_forest(picture, decode=live_watch.decode)
    cells = {el.get("data-hash"): el for el in parse(svg).iter() if el.get("data-state") in ("cached", "stored")}
    assert set(cells) == {short(r.hash) for r in picture.blocks}
    block = picture.blocks[-1]
    label = cells[short(block.hash)].get("aria-label")
    assert visible(tokenizer.decode(list(block.token_ids))).translate(CONTROL_PICTURES) in label


def test_a_gap_from_dropped_messages_is_filled_from_replay(vllm_server, live_watch, texts, tmp_path):
    _, ids = texts
    relay = Relay(vllm_server.events, f"ipc://{tmp_path}/relay")
    with Watch(f"ipc://{tmp_path}/relay", None, vllm_server.replay) as watch:
        live_watch.settle()
        watch.settle()
        next_seq = live_watch.index.steps[-1].seq + 1
        relay.drop = {next_seq, next_seq + 1}
        for n in range(4):
            vllm_server.client.complete(ids[9000 + n * 300:9000 + n * 300 + 70], max_tokens=1)
        live_watch.settle()
        watch.settle()
        assert {next_seq, next_seq + 1} <= set(relay.seen)
        replayed = {info.seq for info in watch.index.steps if info.via == "replay"}
        assert {next_seq, next_seq + 1} <= replayed
        assert keys(watch) == keys(live_watch)
        assert sum(info.lost_before for info in watch.index.steps) == 0
    relay.close()


def test_a_watch_started_after_the_server_catches_up(vllm_server, live_watch):
    live_watch.settle()
    with Watch(vllm_server.events, None, vllm_server.replay) as late:
        late.settle()
        assert late.index.steps[0].seq == 0 and late.index.steps[0].via == "replay"
        assert keys(late) == keys(live_watch)


def test_a_malformed_message_is_reported_and_skipped(vllm_server, live_watch, texts, tmp_path):
    _, ids = texts
    relay = Relay(vllm_server.events, f"ipc://{tmp_path}/relay")
    with Watch(f"ipc://{tmp_path}/relay", None, vllm_server.replay) as watch:
        live_watch.settle()
        watch.settle()
        relay.inject[live_watch.index.steps[-1].seq + 1] = [b"", b"\x00" * 8 + b"!", b"\xc1junk"]
        vllm_server.client.complete(ids[12000:12070], max_tokens=1)
        live_watch.settle()
        watch.settle()
        assert len(watch.problems) == 1 and "unreadable message header" in watch.problems[0].reason
        assert keys(watch) == keys(live_watch)
    relay.close()


def test_reset_prefix_cache_empties_the_index(vllm_server, live_watch, texts):
    _, ids = texts
    live_watch.settle()
    assert live_watch.picture().blocks
    vllm_server.client.reset_prefix_cache()
    prompt = ids[15000:15000 + 2 * BLOCK + 3]
    vllm_server.client.complete(prompt, max_tokens=1)   # the clear comes with the next step's batch
    live_watch.settle()
    cleared = [info for info in live_watch.index.steps if info.cleared]
    assert cleared
    after = live_watch.index.resident(cleared[-1].step)
    assert {r.token_ids for r in after} <= {tuple(prompt[:BLOCK]), tuple(prompt[BLOCK:2 * BLOCK])}
    assert live_watch.cached_tokens(ids[:200]) == 0
