"""`blockviz vllm serve` and `blockviz vllm watch` without starting vLLM (the real server is in
conftest.py and test_real_server.py)."""
import json
import signal
import subprocess
import sys

import pytest

from blockviz.commands import main
from blockviz.vllm import load, serve
from blockviz.vllm.endpoints import offset_port, peer_address, publisher_binds
from tests.vllm.publisher import Publisher
from blockviz.vllm.serve import ServeError, ServerSettings, command, environment
from blockviz.vllm.wire import stored

from tests.vllm.fake_vllm import fake_vllm, running
from tests.vllm.synthetic import free_port


def test_missing_vllm_says_the_one_command_that_makes_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(serve, "PROJECT_VLLM_PYTHON", tmp_path / "none" / "python")
    assert main(["vllm", "serve"]) == 2
    err = capsys.readouterr().err
    assert "bash scripts/vllm_env.sh" in err and "3.4 GB" in err and "--vllm-python" in err


def test_the_command_turns_on_prefix_caching_events_replay_and_prompt_details(tmp_path):
    python = tmp_path / "python"
    python.write_text("")
    settings = ServerSettings(port=8123, events="tcp://127.0.0.1:6000", blocks=24, vllm_python=python,
                              extra=["--seed", "3"])
    cmd = command(settings)
    assert cmd[:3] == [str(python), "-m", "vllm.entrypoints.openai.api_server"]
    flags = dict(zip(cmd, cmd[1:]))
    assert flags["--host"] == "127.0.0.1" and flags["--port"] == "8123" and flags["--block-size"] == "32"
    assert {"--enable-prefix-caching", "--enable-prompt-tokens-details"} <= set(cmd)
    assert json.loads(flags["--kv-events-config"]) == {
        "enable_kv_cache_events": True, "publisher": "zmq", "endpoint": "tcp://127.0.0.1:6000",
        "replay_endpoint": "tcp://127.0.0.1:6001", "topic": ""}
    assert flags["--num-gpu-blocks-override"] == "24" and flags["--max-model-len"] == "512"
    assert "--enforce-eager" not in cmd and cmd[-2:] == ["--seed", "3"]   # another vLLM: no CPU settings
    assert "VLLM_SERVER_DEV_MODE" not in environment(settings)


def test_a_small_pool_gets_a_model_length_it_can_hold(tmp_path):
    python = tmp_path / "python"
    python.write_text("")
    flags = dict(zip(cmd := command(ServerSettings(blocks=8, vllm_python=python)), cmd[1:]))
    assert flags["--max-model-len"] == str(7 * 32)
    with pytest.raises(ServeError, match="does not fit in 8 blocks"):
        command(ServerSettings(blocks=8, max_model_len=400, vllm_python=python))
    with pytest.raises(ServeError, match="at least 2"):
        command(ServerSettings(blocks=1, vllm_python=python))


def test_endpoint_rules_are_vllms():
    assert publisher_binds("tcp://*:5557") and publisher_binds("ipc:///tmp/x") and publisher_binds("tcp://[::]:1")
    assert not publisher_binds("tcp://127.0.0.1:5557")
    assert peer_address("tcp://*:5557") == "tcp://127.0.0.1:5557"
    assert peer_address("tcp://*:5557", "gpu-7") == peer_address("tcp://[::]:5557", "gpu-7") == "tcp://gpu-7:5557"
    assert offset_port("tcp://127.0.0.1:5557", 2) == "tcp://127.0.0.1:5559"
    assert offset_port("ipc:///tmp/kv", 1) == "ipc:///tmp/kv_dp1"


def test_the_terminal_watch_prints_each_batch_and_saves_at_ctrl_c(tmp_path):
    port = free_port()
    events, saved = f"tcp://127.0.0.1:{port}", tmp_path / "seen.jsonl"
    watcher = subprocess.Popen([sys.executable, "-m", "blockviz", "vllm", "watch", "--events", events, "--replay",
                                "none", "--tree", "--save", str(saved)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert "watching" in watcher.stdout.readline()
    with Publisher(events) as publisher:
        publisher.wait_for_subscribers()
        publisher.publish([stored([1, 2], None, [1, 2, 3, 4], 2)])
        lines = [watcher.stdout.readline() for _ in range(4)]
    watcher.send_signal(signal.SIGINT)
    out = watcher.communicate(timeout=20)[0]
    assert watcher.returncode == 0
    assert lines[0].startswith("step 0 · tcp://127.0.0.1") and "+2 stored" in lines[0]
    assert "saved steps 0..0" in out and len(load(saved).picture(0).blocks) == 2


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_serve_says_ready_and_a_stop_leaves_no_engine_behind(tmp_path, stop):
    fake, pids = fake_vllm(tmp_path)
    port = free_port()
    serving = subprocess.Popen([sys.executable, "-m", "blockviz", "vllm", "serve", "--vllm-python", str(fake),
                                "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    assert "ready at http://127.0.0.1:" in serving.stdout.readline()
    engine = int((pids / str(port)).read_text())
    serving.send_signal(stop)
    assert serving.wait(timeout=30) == 0
    assert not running(engine)


