"""Scenario files: a pool, a list of requests with arrival steps, run by the Simulator.

A scenario is TOML (see the presets beside this file):

    title = "..."
    block_size = 4
    num_blocks = 8
    max_num_batched_tokens = 16384   # optional, as are max_num_seqs and free_order
    [[requests]]
    prompt = "hello world"   # text (one token per character) or a list of token ids
    max_tokens = 4
    at_step = 0              # added once this many engine steps have run
    script = "..."           # optional: the tokens it 'generates'
"""
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from blockviz.sim import Simulator

PRESETS_DIR = Path(__file__).parent


@dataclass
class Request:
    prompt: str | list[int]
    max_tokens: int = 4
    at_step: int = 0
    label: str | None = None
    script: str | list[int] | None = None
    ignore_eos: bool = False


@dataclass
class Scenario:
    name: str
    title: str
    block_size: int
    num_blocks: int
    requests: list[Request]
    max_num_seqs: int = 512
    max_num_batched_tokens: int = 16384
    free_order: list[int] | None = None
    notes: str = ""
    max_steps: int = 1000
    tags: list[str] = field(default_factory=list)

    def build(self, record: bool = True) -> Simulator:
        return Simulator(num_blocks=self.num_blocks, block_size=self.block_size, max_num_seqs=self.max_num_seqs,
                         max_num_batched_tokens=self.max_num_batched_tokens, free_order=self.free_order,
                         record=record)

    def run(self, sim: Simulator | None = None) -> Simulator:
        """Add each request at its arrival step and run until all are done."""
        sim = sim or self.build()
        pending = sorted(self.requests, key=lambda r: r.at_step)
        while sim.num_steps < self.max_steps:
            while pending and pending[0].at_step <= sim.num_steps:
                r = pending.pop(0)
                sim.add(r.prompt, max_tokens=r.max_tokens, ignore_eos=r.ignore_eos, label=r.label, script=r.script)
            if sim.is_finished():
                if not pending:
                    break
                raise ValueError(f"scenario {self.name}: idle at step {sim.num_steps} "
                                 f"before a request arriving at step {pending[0].at_step}")
            sim.step()
        return sim


def presets() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


def load_scenario(name_or_path: str | Path) -> Scenario:
    """A preset by name (see presets()) or a TOML file by path."""
    path = Path(name_or_path)
    if not path.exists():
        path = PRESETS_DIR / f"{name_or_path}.toml"
        if not path.exists():
            raise ValueError(f"no scenario file {name_or_path!r} and no preset of that name; "
                             f"presets: {', '.join(presets())}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: not valid TOML ({e})") from None
    try:
        requests = [Request(**r) for r in data.pop("requests")]
        return Scenario(name=path.stem, requests=requests, **data)
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a scenario ({e})") from None
