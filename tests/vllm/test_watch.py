"""The Watch against the in-process publisher: sockets, replay, ranks, engines, problems, saving."""
import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.vllm import Watch, load
from tests.vllm.publisher import Publisher
from blockviz.vllm.wire import stored

from tests.vllm.synthetic import ToyCache, tcp


def wait_until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def prompts(n, seed=0):
    rng = random.Random(seed)
    return [[rng.randrange(4) for _ in range(rng.randrange(1, 18))] for _ in range(n)]


@pytest.fixture
def pair():
    """A watch that binds (the publisher connects, as vLLM does without `*`) with a replay endpoint."""
    events, replay = tcp(), tcp()
    watch = Watch(events, None, replay)
    publisher = Publisher(events, replay)
    publisher.wait_for_subscribers()   # ZMQ's slow joiner: a batch sent before this is lost, with nothing after it to show the gap
    yield watch, publisher
    watch.close()
    publisher.close()


def test_predictions_follow_the_cache_through_evictions_and_dropped_messages(pair):
    watch, publisher = pair
    cache = ToyCache(capacity=8, block_size=4)
    for i, p in enumerate(prompts(150)):
        publisher.publish(cache.run(p), drop=i % 11 == 3)
        nxt = prompts(151)[i + 1]
        if i % 11 != 3:   # a gap shows only once the next batch arrives
            watch.sync()
            wait_until(lambda: watch.last_step == i)
            assert watch.cached_tokens(nxt) == cache.hit_blocks(nxt) * 4
    assert [info.seq for info in watch.index.steps] == list(range(150))
    assert sum(info.via == "replay" for info in watch.index.steps) >= 13
    assert watch.problems == type(watch.problems)() and sum(i.lost_before for i in watch.index.steps) == 0


def test_a_watch_may_start_before_its_publisher_and_after_it():
    events, replay = "ipc://@blockviz-test-" + str(random.random()), tcp()
    early = Watch(events, None, replay)        # nothing there yet: creating it must not need the server
    publisher = Publisher(events, replay)      # ipc: the publisher binds, the watches connect
    publisher.wait_for_subscribers()           # the early watch's SUB has reconnected: no batch lost live
    cache = ToyCache(capacity=20, block_size=2)
    for p in prompts(30):
        publisher.publish(cache.run(p))
    late = Watch(events, None, replay)
    wait_until(lambda: late.last_step == 29 and early.last_step == 29)
    for w in (early, late):
        assert {r.hash for r in w.picture().blocks} == set(cache.blocks)
        w.close()
    publisher.close()


def test_malformed_and_foreign_messages_are_counted_and_skipped(pair):
    watch, publisher = pair
    publisher.publish([stored([1], None, [1, 2], 2)])
    wait_until(lambda: watch.last_step == 0)
    publisher.send_raw([b"kv", b"\x00" * 8])                              # two frames
    publisher.send_raw([b"kv", b"\x01", b"x"])                            # a short sequence number
    publisher.publish_payload(b"\x93\xa3not")                              # not msgpack of a batch
    publisher.publish([stored([2], 1, [3, 4, 5], 2), stored([3], None, [7, 8], 2)])   # one bad event
    wait_until(lambda: watch.last_step == 1)
    watch.sync()
    reasons = [p.reason for p in watch.problems]
    assert len(reasons) == 4, reasons
    assert "2 frames" in reasons[0] and "8" in reasons[1] and "not a KV-event batch" in reasons[2]
    assert "3 token ids for 1 blocks of 2" in reasons[3]
    assert {r.hash for r in watch.picture().blocks} == {1, 3}
    assert watch.index.steps[-1].lost_before == 0    # the bad payload still took its sequence number


def test_a_restarted_publisher_means_an_empty_cache(pair):
    watch, publisher = pair
    publisher.publish([stored([1], None, [1, 2], 2)])
    wait_until(lambda: watch.last_step == 0)
    publisher.restart()
    publisher.publish([stored([5], None, [3, 4], 2)])
    wait_until(lambda: watch.last_step == 1)
    assert [r.hash for r in watch.picture().blocks] == [5] and watch.picture().info.cleared
    assert "restarted" in watch.problems[-1].reason


def test_data_parallel_ranks_publish_on_consecutive_ports_and_stay_apart():
    base = tcp()
    watch = Watch(base, None, None, data_parallel_size=2)
    port = int(base.rsplit(":", 1)[1])
    ranks = [Publisher(f"tcp://127.0.0.1:{port + r}", data_parallel_rank=r) for r in range(2)]
    for publisher in ranks:   # no replay here: no batch before the watch has subscribed
        publisher.wait_for_subscribers()
    for r, publisher in enumerate(ranks):
        publisher.publish([stored([100 + r], None, [1, 2], 2)])
    wait_until(lambda: watch.last_step == 1)
    assert len(watch.sources) == 2
    with pytest.raises(ValueError, match="follows 2 engines"):
        watch.cached_tokens([1, 2, 3])
    assert [watch.cached_tokens([1, 2, 3], source=s) for s in watch.sources] == [2, 2]
    watch.close()
    for p in ranks:
        p.close()


def test_engines_on_one_address_are_told_apart_by_topic():
    events = tcp()
    watch = Watch(events)
    engines = [Publisher(events, topic=f"engine{i}") for i in range(2)]
    for engine in engines:
        engine.wait_for_subscribers()
    engines[0].publish([stored([1], None, [1, 2], 2)])
    engines[1].publish([stored([2], None, [3, 4], 2)])
    engines[1].publish([stored([3], 2, [5, 6], 2)])
    wait_until(lambda: watch.last_step == 2)
    assert watch.sources == [f"{events} [engine0]", f"{events} [engine1]"]
    assert watch.cached_tokens([3, 4, 5, 6, 0], source=f"{events} [engine1]") == 4
    assert watch.cached_tokens([3, 4, 5, 6, 0], source=f"{events} [engine0]") == 0
    watch.close()
    for p in engines:
        p.close()


def test_the_cursor_follows_until_a_seek_and_listeners_hear_of_each_change(pair):
    watch, publisher = pair
    heard = []
    watch.on_change(heard.append)
    for i in range(3):
        publisher.publish([stored([i + 1], i or None, [i, i], 2)])
    wait_until(lambda: watch.last_step == 2)
    assert watch.cursor == 2 and heard[-1] == 2
    assert len(watch.seek(0).blocks) == 1 and not watch.follow and heard[-1] == 0
    publisher.publish([stored([9], None, [9, 9], 2)])
    wait_until(lambda: watch.last_step == 3)
    assert watch.cursor == 0
    watch.live()
    assert watch.cursor == 3
    with pytest.raises(IndexError):
        watch.seek(4)


def test_a_saved_watch_replays_offline_with_its_window(tmp_path):
    events, replay = tcp(), tcp()
    watch = Watch(events, None, replay, history=10)
    publisher = Publisher(events, replay)
    publisher.wait_for_subscribers()
    cache = ToyCache(capacity=6, block_size=2)
    for p in prompts(40, seed=3):
        publisher.publish(cache.run(p))
    wait_until(lambda: watch.last_step == 39)
    watch.save(tmp_path / "run.jsonl")
    again = load(tmp_path / "run.jsonl")
    assert (again.first_step, again.last_step) == (30, 39)
    for s in range(30, 40):
        assert [(r.hash, r.stored_at, r.removed_at) for r in again.picture(s).blocks] == \
            [(r.hash, r.stored_at, r.removed_at) for r in watch.picture(s).blocks]
    watch.close()
    publisher.close()


@pytest.mark.parametrize("line, message", [
    ('{"kind": "header", "format": "other", "version": 1, "first_step": 0}', "not a blockviz vLLM recording"),
    ('{"kind": "header", "format": "blockviz-vllm-events", "version": 9, "first_step": 0}', "version 9"),
    ('{"kind": "message", "step": 0}', "line 1: Object missing required field"),
    ('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', "line 1"),
])
def test_a_recording_that_is_not_one_gets_a_clear_error(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ValueError, match=message):
        load(path)


def test_a_recording_with_a_wrong_step_or_type_names_its_line(tmp_path):
    header = '{"kind": "header", "format": "blockviz-vllm-events", "version": 1, "first_step": 0}'
    msg = '{"kind": "message", "step": %s, "source": "s", "seq": 0, "ts": 0.0, "received_at": 0.0, "via": "live", ' \
          '"lost_before": 0, "payload": "kZA="}'
    for body, message in ((msg % 3, "line 2: step 3, expected 0"), (msg % "true", "line 2: Expected `int`")):
        (tmp_path / "r.jsonl").write_text(header + "\n" + body + "\n")
        with pytest.raises(ValueError, match=message):
            load(tmp_path / "r.jsonl")


def test_an_address_already_taken_is_a_clear_error():
    events = tcp()
    with Watch(events):
        with pytest.raises(OSError, match=f"cannot listen for KV events on {events}"):
            Watch(events)


def test_a_replay_endpoint_that_never_answers_delays_the_stream_only_briefly():
    events = tcp()
    watch = Watch(events, None, tcp(), replay_timeout=0.3)   # nothing listens there
    with Publisher(events) as publisher:
        publisher.wait_for_subscribers()   # connected: no batch lost before the first
        publisher.publish([stored([1], None, [1, 2], 2)])
        publisher.publish([stored([2], 1, [3, 4], 2)])
        wait_until(lambda: watch.last_step == 1)
    assert "did not answer within 0.3 s" in watch.problems[-1].reason
    assert [r.hash for r in watch.picture().blocks] == [1, 2]
    watch.close()


def test_endpoints_are_checked_when_the_watch_is_made():
    with pytest.raises(ValueError, match="one per events endpoint"):
        Watch([tcp(), tcp()], None, tcp())
    with pytest.raises(ValueError, match="2 event endpoints but 1 replay"):
        Watch([tcp(), tcp()], None, [tcp()])
    with pytest.raises(ValueError, match="should start with tcp://"):
        Watch("localhost:5557")
    with pytest.raises(ValueError, match="has no port"):
        Watch("tcp://127.0.0.1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=80) | st.from_regex(r'\{"kind": "(header|block|message)".{0,60}\}', fullmatch=True)
                .map(str.encode), max_size=4))
def test_any_recording_file_loads_or_says_what_is_wrong(tmp_path, lines):
    header = b'{"kind": "header", "format": "blockviz-vllm-events", "version": 1, "first_step": 0}'
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"\n".join([header, *[line.replace(b"\n", b" ") for line in lines]]))
    try:
        load(path)
    except ValueError as e:
        assert str(path) in str(e)


def test_a_far_ahead_sequence_number_does_not_blind_the_watch(pair):
    watch, publisher = pair
    publisher.publish([stored([1], None, [1, 2], 2)])
    wait_until(lambda: watch.last_step == 0)
    publisher.next_seq = 2**62                          # one stray batch numbered far ahead
    publisher.publish([stored([2], None, [3, 4], 2)])
    publisher.next_seq = 1                              # then the real numbering goes on
    for i in range(5):
        publisher.publish([stored([10 + i], None, [5, i], 2)])
    wait_until(lambda: watch.last_step == 6)
    watch.sync()
    reasons = " ".join(p.reason for p in watch.problems)
    assert "no replay can fill" in reasons and "went backwards" in reasons
    assert {14, 13}.issubset({r.hash for r in watch.picture().blocks})


def test_a_replay_that_answers_far_ahead_does_not_blind_the_watch(pair):
    watch, publisher = pair
    publisher.publish([stored([1], None, [1, 2], 2)])
    wait_until(lambda: watch.last_step == 0)
    with publisher.lock:
        publisher.buffer.append((2**62, publisher.buffer[0][1]))   # the replay will answer this too
    publisher.publish([stored([2], None, [3, 4], 2)], drop=True)   # a gap: the watch asks the replay
    publisher.publish([stored([3], None, [5, 6], 2)])
    for i in range(3):
        publisher.publish([stored([20 + i], None, [7, i], 2)])
    wait_until(lambda: watch.last_step >= 4)
    watch.sync()
    assert [info.seq for info in watch.index.steps][-3:] == [3, 4, 5]
    assert any("past the one asked" in p.reason for p in watch.problems)


def test_made_up_topics_cannot_grow_the_watch(monkeypatch):
    from blockviz.vllm import subscriber
    monkeypatch.setattr(subscriber, "MAX_PUBLISHERS", 8)
    events = tcp()
    watch = Watch(events, None)
    publisher = Publisher(events)
    publisher.wait_for_subscribers()
    for i in range(60):  # one publisher socket, a new topic on every batch
        publisher.topic = f"t{i}".encode()
        publisher.publish([stored([i + 1], None, [i, i], 2)])
    wait_until(lambda: watch.last_step == 59)
    watch.sync()
    assert len(watch.subscriber.publishers) <= 8 and watch.subscriber.forgotten == 52
    assert sum("least recently heard from" in p.reason for p in watch.problems) == 1
    watch.close()
    publisher.close()


def test_settle_ends_quiet_seconds_after_the_last_batch_and_never_before_quiet_seconds_from_the_call(pair):
    watch, publisher = pair
    publisher.publish([stored([1], None, [1, 1], 2)])
    wait_until(lambda: watch.last_step == 0)
    time.sleep(0.3)
    start = time.monotonic()
    watch.settle(quiet=0.2)          # the last batch came 0.3 s ago: still 0.2 s from the call (a reply's
    assert time.monotonic() - start >= 0.2   # events may follow it), not at once
    late = threading.Timer(0.1, publisher.publish, [[stored([2], 1, [2, 2], 2)]])
    start = time.monotonic()
    late.start()
    watch.settle(quiet=1.0)          # a batch 0.1 s in: quiet is counted again from its arrival
    assert watch.last_step == 1 and time.monotonic() - start >= 1.1


def test_settle_gives_up_on_a_stream_that_never_pauses(pair):
    watch, publisher = pair
    stop = threading.Event()

    def flood():
        for i in range(1000):
            if stop.wait(0.02):
                return
            publisher.publish([stored([i + 1], i or None, [i, i], 2)])

    flooding = threading.Thread(target=flood)
    flooding.start()
    try:
        with pytest.raises(TimeoutError, match="kept arriving"):
            watch.settle(quiet=1.0, timeout=1.5)   # a batch every 20 ms
    finally:
        stop.set()
        flooding.join()
