"""Two real vLLM servers behind the router: the session's server (conftest.py) is instance A, and
this module starts B with the same small settings. One chat stream goes through the KV-aware
router and through round-robin, every prefix cache emptied before each; every prediction must
equal the cached tokens the chosen server reported, /metrics must count the same hits, and
KV-aware routing must reuse more."""
import time

import pytest

from blockviz.llm import TokenizerFile
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm import router
from blockviz.vllm.fleet import Fleet, chat_stream
from blockviz.vllm.serve import Server, ServerSettings, _group_alive

from tests.test_readme import run_showing, snippet
from tests.vllm.conftest import BLOCKS, need_vllm
from tests.vllm.synthetic import free_port

pytestmark = pytest.mark.timeout(900)   # waits for two servers (each 1-4 minutes on 2 loaded cores)


@pytest.fixture(scope="module")
def second_server(tmp_path_factory):
    """Instance B, started before the session server is asked for, so the two start together."""
    need_vllm()
    folder = tmp_path_factory.mktemp("vllm-b")
    settings = ServerSettings(port=free_port(), events=f"ipc://{folder}/kv-events",
                              replay=f"tcp://127.0.0.1:{free_port()}", blocks=BLOCKS, dev_mode=True)
    server = Server(settings, folder / "vllm.log").start()
    yield server
    started = time.monotonic()
    server.stop()
    print(f"\n[second vLLM server stopped in {time.monotonic() - started:.1f} s]")
    assert not _group_alive(server.process.pid), "instance B's engine outlived its server"


@pytest.fixture(scope="module")
def fleet(second_server, vllm_server):
    waited = time.monotonic()
    second_server.wait_ready()
    print(f"\n[second vLLM server ready {time.monotonic() - waited:.1f} s after the session's]")
    port = int(vllm_server.api.rsplit(":", 1)[1])
    a = ServerSettings(port=port, events=vllm_server.events, replay=vllm_server.replay, blocks=BLOCKS, dev_mode=True)
    fleet = Fleet([a, second_server.settings])   # attached: the fixtures own the processes
    fleet.reset_prefix_caches()
    yield fleet
    fleet.reset_prefix_caches()   # the session server goes on empty, as it started


@pytest.fixture(scope="module")
def stream():
    tokenizer = TokenizerFile(DEFAULT_MODEL_DIR / "tokenizer.json")
    text = (DEFAULT_MODEL_DIR / "corpus" / "pride_and_prejudice.txt").read_text()[300_000:310_000]
    return chat_stream(tokenizer.encode(text), users=3, systems=2, turns=3, system_tokens=64, message_tokens=40)


def test_the_readme_fleet_snippet_runs_on_these_servers_and_kv_aware_routing_reuses_more(fleet, tmp_path):
    """README.md's fleet snippet, as written but for its first line: that line attaches to the servers
    `blockviz vllm serve --instances 2` started on vLLM's default ports (tests/test_readme_commands.py checks
    it is the line that command prints); here `fleet` is this module's two servers, attached the same way.
    What it shows is then checked: every prediction equals the cached tokens the chosen server reported,
    /metrics count the same hits, and KV-aware routing reuses more."""
    code = snippet("fleet.compare(")
    attach, = (line for line in code.splitlines() if line.startswith("fleet = Fleet.of("))
    started = time.monotonic()
    names, _, shown = run_showing(code.replace(attach + "\n", ""), tmp_path, {"fleet": fleet})
    took = time.monotonic() - started
    outcomes, stream = names["outcomes"], names["stream"]
    kv, rr = outcomes[router.KV_AWARE], outcomes[router.ROUND_ROBIN]
    assert shown['outcomes["kv-aware"].hit_rate, outcomes["round-robin"].hit_rate'] == (kv.hit_rate, rr.hit_rate)
    for outcome in (kv, rr):
        print(f"\n[{outcome.policy}: hit rate {outcome.hit_rate:.1%} ({outcome.cached_tokens}/"
              f"{outcome.prompt_tokens} prompt tokens), /metrics {outcome.metrics_hit_rate:.1%}, "
              f"sent {dict(outcome.sent)}]")
        assert outcome.mispredicted == [], [(r.choice.instance, r.choice.cached_tokens, r.cached_tokens)
                                            for r in outcome.mispredicted]
        assert outcome.prompt_tokens == sum(map(len, stream))
        assert sum(m["hits"] for m in outcome.metrics.values()) == outcome.cached_tokens
    print(f"[the README's fleet snippet, both policies over {len(stream)} prompts: {took:.1f} s]")
    assert kv.cached_tokens > rr.cached_tokens > 0
    assert set(kv.sent) == set(rr.sent) == {"A", "B"}   # KV-aware still spreads unseen users
    choice = names["choice"]   # after round-robin's run: the last prompt's cached prefix per instance
    assert shown["router.explain(choice)"] == router.explain(choice) and choice.instance in ("A", "B")
    assert shown["view.route(stream[-1])"] == choice   # the view marks the router's pick


def test_after_a_reset_the_router_sees_empty_caches(fleet, stream):
    with fleet.watch() as watch:
        fleet.reset_prefix_caches()
        watch.settle()
        choice = router.choose(watch, stream[-1], fleet.instances)
        assert choice.cached_tokens == {"A": 0, "B": 0} and choice.reason == router.TIE_ORDER
