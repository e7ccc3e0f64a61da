"""Scenario files: a pool, a list of requests with arrival steps, run by the Simulator.

A scenario is TOML (see the presets beside this file):

    title = "..."
    title_zh = "..."                 # optional: the title in Chinese
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
from dataclasses import dataclass, field, fields
from pathlib import Path

from blockviz import checks
from blockviz.limits import blocks_needed
from blockviz.sim import Simulator

PRESETS_DIR = Path(__file__).parent
MAX_FILE_BYTES = 1_000_000
MAX_REQUESTS = 1000
MAX_STEPS = 5000  # a run of this many steps, and its table, print in a few seconds


def text(name: str, value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {value!r:.80}")
    return value


def tokens(name: str, value, allow_empty: bool = False) -> list[int]:
    """Text (one token per character) or a list of token ids, as the Simulator takes them."""
    ids = [ord(c) for c in value] if isinstance(value, str) else value
    return checks.token_ids(name, ids, allow_empty=allow_empty)


@dataclass
class Request:
    prompt: str | list[int]
    max_tokens: int = 4
    at_step: int = 0
    label: str | None = None
    script: str | list[int] | None = None
    ignore_eos: bool = False

    def __post_init__(self):
        self.num_prompt_tokens = len(tokens("prompt", self.prompt))
        checks.whole("max_tokens", self.max_tokens, 1)
        checks.whole("at_step", self.at_step, 0, MAX_STEPS)
        checks.label(self.label)
        if self.script is not None:
            tokens("script", self.script, allow_empty=True)
        checks.flag("ignore_eos", self.ignore_eos)


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
    title_zh: str = ""  # the title in Chinese (the English one is shown when there is none)

    def __post_init__(self):
        """Every value checked before the engine runs, so a bad file changes nothing and says why."""
        text("title", self.title)
        text("title_zh", self.title_zh)
        text("notes", self.notes)
        if not isinstance(self.tags, list) or not all(isinstance(tag, str) for tag in self.tags):
            raise ValueError(f"tags must be a list of texts, got {self.tags!r:.80}")
        checks.whole("block_size", self.block_size, 1)
        checks.whole("num_blocks", self.num_blocks, 1, checks.MAX_SIM_BLOCKS)
        checks.whole("max_num_seqs", self.max_num_seqs, 1)
        checks.whole("max_num_batched_tokens", self.max_num_batched_tokens, 1)
        checks.whole("max_steps", self.max_steps, 1, MAX_STEPS)
        order = self.free_order
        if order is not None and (not isinstance(order, list) or any(type(b) is not int for b in order)
                                  or sorted(order) != list(range(self.num_blocks))):
            raise ValueError(f"free_order must list every block id 0..{self.num_blocks - 1} once, "
                             f"got {self.free_order!r:.80}")
        if not 1 <= len(self.requests) <= MAX_REQUESTS:
            raise ValueError(f"a scenario has 1..{MAX_REQUESTS} [[requests]], got {len(self.requests)}")
        for i, r in enumerate(self.requests):
            longest = r.num_prompt_tokens + r.max_tokens
            if longest > checks.MAX_SIM_MODEL_LEN or blocks_needed(longest - 1, self.block_size) > self.num_blocks:
                raise ValueError(f"request {i + 1} ({r.num_prompt_tokens} prompt + {r.max_tokens} max_tokens) "
                                 f"can never fit in {self.num_blocks} blocks of {self.block_size}")

    def title_in(self, lang: str) -> str:
        return self.title_zh if lang == "zh" and self.title_zh else self.title

    def build(self, record: bool = True) -> Simulator:
        return Simulator(num_blocks=self.num_blocks, block_size=self.block_size, max_num_seqs=self.max_num_seqs,
                         max_num_batched_tokens=self.max_num_batched_tokens, free_order=self.free_order,
                         record=record)

    def run(self, sim: Simulator | None = None) -> Simulator:
        """Add each request at its arrival step and run until all are done."""
        try:
            return self.run_on(sim or self.build())
        except ValueError as e:
            raise ValueError(f"scenario {self.name}: {e}") from None

    def run_on(self, sim: Simulator) -> Simulator:
        pending = sorted(self.requests, key=lambda r: r.at_step)
        while sim.num_steps < self.max_steps:
            while pending and pending[0].at_step <= sim.num_steps:
                r = pending.pop(0)
                sim.add(r.prompt, max_tokens=r.max_tokens, ignore_eos=r.ignore_eos, label=r.label, script=r.script)
            if sim.is_finished():
                if not pending:
                    break
                raise ValueError(f"idle at step {sim.num_steps} "
                                 f"before a request arriving at step {pending[0].at_step}")
            sim.step()
        if pending or not sim.is_finished():
            raise ValueError(f"max_steps = {self.max_steps} ran out with requests still "
                             f"{'to arrive' if pending else 'running'}; raise max_steps")
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
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: a scenario file is at most {MAX_FILE_BYTES:,} bytes")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a scenario is TOML in UTF-8)") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: not valid TOML ({e})") from None
    try:
        return scenario_from(path.stem, data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def scenario_from(name: str, data: dict) -> Scenario:
    """A Scenario from parsed TOML, with a clear error for any unknown key or missing value."""
    keys = [f.name for f in fields(Scenario) if f.name != "name"]
    request_keys = [f.name for f in fields(Request)]
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}; a scenario has {', '.join(keys)}")
    missing = [k for k in ("title", "block_size", "num_blocks", "requests") if k not in data]
    if missing:
        raise ValueError(f"not a scenario: missing {', '.join(missing)}")
    if not isinstance(data["requests"], list) or not all(isinstance(r, dict) for r in data["requests"]):
        raise ValueError("requests must be [[requests]] tables")
    requests = []
    for i, r in enumerate(data["requests"]):
        unknown = [k for k in r if k not in request_keys]
        if unknown or "prompt" not in r:
            problem = f"unknown key {unknown[0]!r}" if unknown else "no prompt"
            raise ValueError(f"request {i + 1}: {problem}; a request has {', '.join(request_keys)}")
        try:
            requests.append(Request(**r))
        except ValueError as e:
            raise ValueError(f"request {i + 1}: {e}") from None
    return Scenario(name=name, **{**data, "requests": requests})
