"""Several servers without vLLM: how `--instances N` lays them out, starting and stopping them all
(with a stand-in vLLM python), one watch over their events named per instance, the chat stream.
The real two-server run is test_fleet_real.py."""
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from blockviz.commands import main
from blockviz.vllm import router
from blockviz.vllm.fleet import Fleet, chat_stream, instance_settings, log_path
from tests.vllm.publisher import Publisher
from blockviz.vllm.serve import ServeError, ServerSettings
from blockviz.vllm.wire import stored

from tests.vllm.fake_vllm import fake_vllm, running
from tests.vllm.synthetic import free_port


def test_instances_get_their_own_ports_and_endpoints():
    a, b, c = instance_settings(ServerSettings(port=8000, events="tcp://127.0.0.1:5557", blocks=16), 3)
    assert [s.port for s in (a, b, c)] == [8000, 8001, 8002] and {s.blocks for s in (a, b, c)} == {16}
    assert [(s.events, s.replay_endpoint) for s in (a, b, c)] == [
        ("tcp://127.0.0.1:5557", "tcp://127.0.0.1:5558"), ("tcp://127.0.0.1:5559", "tcp://127.0.0.1:5560"),
        ("tcp://127.0.0.1:5561", "tcp://127.0.0.1:5562")]
    x, y = instance_settings(ServerSettings(events="ipc:///tmp/kv", replay="tcp://127.0.0.1:7000"), 2)
    assert (x.events, y.events, x.replay, y.replay) == ("ipc:///tmp/kv", "ipc:///tmp/kv-1", "tcp://127.0.0.1:7000",
                                                        "tcp://127.0.0.1:7002")
    with pytest.raises(ServeError, match="give 1 to 26"):
        instance_settings(ServerSettings(), 0)
    assert log_path("/tmp/vllm.log", "B").name == "vllm-B.log"


def test_a_fleet_refuses_instances_that_share_a_port_or_endpoint():
    same = ServerSettings(port=8000)
    with pytest.raises(ServeError, match="own HTTP port"):
        Fleet([same, ServerSettings(port=8000, events="tcp://127.0.0.1:6000")])
    with pytest.raises(ServeError, match="own events endpoint"):
        Fleet([same, ServerSettings(port=8001)])
    with pytest.raises(ValueError, match="distinct names"):
        Fleet(instance_settings(same, 2), names=["A", "A"])
    fleet = Fleet.of(2, same)
    assert fleet.names == ["A", "B"] and fleet.instances == {"A": "tcp://127.0.0.1:5557", "B": "tcp://127.0.0.1:5559"}
    fleet.stop()   # made from settings only: nothing was started, nothing to stop


def test_one_watch_follows_every_instance_and_the_router_names_them(tmp_path):
    fleet = Fleet(instance_settings(ServerSettings(events=f"ipc://{tmp_path}/kv",
                                                   replay=f"tcp://127.0.0.1:{free_port()}"), 1)
                  + instance_settings(ServerSettings(port=8001, events=f"ipc://{tmp_path}/kv-b",
                                                     replay=f"tcp://127.0.0.1:{free_port()}"), 1))
    a, b = fleet.settings.values()
    with Publisher(a.events, a.replay) as pa, Publisher(b.events, b.replay) as pb, fleet.watch() as watch:
        pa.wait_for_subscribers(), pb.wait_for_subscribers()   # ZMQ's slow joiner: one batch each, none to lose
        pa.publish([stored([1], None, list(range(32)), 32)])
        pb.publish([stored([2, 3], None, list(range(64)), 32)])
        deadline = time.monotonic() + 10
        while watch.last_step < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sorted(watch.sources) == sorted(fleet.instances.values())
        choice = router.choose(watch, list(range(70)), fleet.instances)
        assert (choice.instance, choice.cached_tokens) == ("B", {"A": 32, "B": 64})


def free_ports(span: int = 2) -> int:
    """A free port whose next `span - 1` ports are free too (the other instances')."""
    for _ in range(50):
        port = free_port()
        try:
            for other in range(port + 1, port + span):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", other))
            return port
        except OSError:
            continue
    raise RuntimeError(f"no {span} consecutive free ports")


def test_serve_instances_says_where_each_is_and_ctrl_c_stops_every_engine(tmp_path):
    fake, pids = fake_vllm(tmp_path)
    port = free_ports()
    serving = subprocess.Popen([sys.executable, "-m", "blockviz", "vllm", "serve", "--instances", "2", "--vllm-python",
                                str(fake), "--port", str(port), "--events", f"ipc://{tmp_path}/kv"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = [serving.stdout.readline() for _ in range(7)]
    assert "2 instances ready" in lines[0]
    assert f"A at http://127.0.0.1:{port} (KV events ipc://{tmp_path}/kv," in lines[1]
    assert f"B at http://127.0.0.1:{port + 1} (KV events ipc://{tmp_path}/kv-1," in lines[2]
    assert f"Fleet.of(2, ServerSettings(port={port}, events='ipc://{tmp_path}/kv'))" in lines[5]
    engines = [int(p.read_text()) for p in sorted(pids.iterdir())]
    assert len(engines) == 2 and all(running(pid) for pid in engines)
    serving.send_signal(signal.SIGINT)
    assert serving.wait(timeout=30) == 0
    assert not any(running(pid) for pid in engines)


def test_an_instance_that_fails_to_start_stops_the_others_and_is_named(tmp_path):
    port = free_ports()
    fake, pids = fake_vllm(tmp_path, fail=port + 1)
    fleet = Fleet.of(2, ServerSettings(port=port, events=f"ipc://{tmp_path}/kv", vllm_python=fake), log=tmp_path / "v.log")
    with pytest.raises(ServeError, match="instance B: vLLM exited with code 3 before it served; its log: .*v-B.log"):
        with fleet:
            pass
    (engine,) = [int(p.read_text()) for p in pids.iterdir()]
    assert not running(engine) and fleet.exited() is not None


def test_serve_instances_needs_a_sensible_count(capsys):
    assert main(["vllm", "serve", "--instances", "0"]) == 2
    assert "give 1 to 26" in capsys.readouterr().err


def test_the_chat_stream_grows_each_users_conversation_under_a_shared_system_prompt():
    text = list(range(1000))
    stream = chat_stream(text, users=3, systems=2, turns=2, system_tokens=10, message_tokens=5)
    assert len(stream) == 6
    u0, u1, u2, u0_again = stream[0], stream[1], stream[2], stream[3]
    assert u0[:10] == u2[:10] == text[:10] and u1[:10] == text[10:20]
    assert u0_again[:len(u0)] == u0 and len(u0_again) == len(u0) + 5
    assert len({tuple(p[10:]) for p in stream}) == 6
    with pytest.raises(ValueError, match="needs 50 tokens"):
        chat_stream(text[:49], users=3, systems=2, turns=2, system_tokens=10, message_tokens=5)


def test_a_shuffled_stream_has_the_same_prompts_in_another_order_each_turn():
    text = list(range(1000))
    plain = chat_stream(text, users=4, turns=3, system_tokens=10, message_tokens=5)
    mixed = chat_stream(text, users=4, turns=3, system_tokens=10, message_tokens=5, shuffle=1)
    assert mixed == chat_stream(text, users=4, turns=3, system_tokens=10, message_tokens=5, shuffle=1)
    assert sorted(map(tuple, mixed)) == sorted(map(tuple, plain)) and mixed != plain
    for turn in range(3):   # each turn still holds every user's next prompt
        assert sorted(map(len, mixed[turn * 4:(turn + 1) * 4])) == [10 + 5 * (turn + 1)] * 4


def shown_after_publishing(publisher: Publisher, events: list, lines: queue.Queue, tries: int = 10) -> str:
    """The watch's line for `publisher`'s batch. Without a replay endpoint a lost batch stays lost, and
    under load one sent just after the subscription was seen went missing (3 times in 40, with the watch
    in its own process): the batch is sent again, as the next step, until the watch shows one."""
    for _ in range(tries):
        publisher.publish(events)
        try:
            while True:
                line = lines.get(timeout=3)
                if publisher.endpoint in line:
                    return line
        except queue.Empty:
            continue
    pytest.fail(f"the watch showed none of {tries} batches from {publisher.endpoint}")


def test_the_terminal_watch_follows_every_instance_of_serve_instances():
    port = free_ports(3)
    a, b = instance_settings(ServerSettings(events=f"tcp://127.0.0.1:{port}"), 2)
    watcher = subprocess.Popen([sys.executable, "-m", "blockviz", "vllm", "watch", "--instances", "2", "--events",
                                a.events, "--replay", "none"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    lines: queue.Queue = queue.Queue()   # read on a thread: a line that never comes fails the test, not hangs it
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    try:
        assert f"watching {a.events}, {b.events}" in lines.get(timeout=60)
        with Publisher(a.events) as pa, Publisher(b.events) as pb:
            pa.wait_for_subscribers(), pb.wait_for_subscribers()
            first = shown_after_publishing(pa, [stored([1], None, [1, 2], 2)], lines)
            second = shown_after_publishing(pb, [stored([2], None, [3, 4], 2)], lines)
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=20) == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert a.events in first and b.events in second and "2 cached" in second
