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
from blockviz.sim import Simulator
from blockviz.workload import Workload, name_of, play, request

PRESETS_DIR = Path(__file__).parent
MAX_FILE_BYTES = 1_000_000
MAX_REQUESTS = 1000
MAX_STEPS = 5000  # a run of this many steps, and its table, print in a few seconds
REQUEST_KEYS = ("prompt", "max_tokens", "at_step", "label", "script", "ignore_eos")  # at_step: Request.arrival
POOL_KEYS = ("block_size", "num_blocks", "max_num_seqs", "max_num_batched_tokens", "free_order")


def text(name: str, value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {value!r:.80}")
    return value


@dataclass
class Scenario:
    """A scenario file: its words, and its pool and requests as a Workload (blockviz/workload.py)."""
    name: str
    title: str
    workload: Workload
    notes: str = ""
    max_steps: int = 1000
    tags: list[str] = field(default_factory=list)
    title_zh: str = ""  # the title in Chinese (the English one is shown when there is none)

    def __post_init__(self):
        text("title", self.title)
        text("title_zh", self.title_zh)
        text("notes", self.notes)
        if not isinstance(self.tags, list) or not all(isinstance(tag, str) for tag in self.tags):
            raise ValueError(f"tags must be a list of texts, got {self.tags!r:.80}")
        checks.whole("max_steps", self.max_steps, 1, MAX_STEPS)

    def title_in(self, lang: str) -> str:
        return self.title_zh if lang == "zh" and self.title_zh else self.title

    def build(self, record: bool = True) -> Simulator:
        return self.workload.simulator(record=record)

    def run(self, sim: Simulator | None = None) -> Simulator:
        """Add each request at its arrival step and run until all are done."""
        try:
            return play(self.workload, sim or self.build(), max_steps=self.max_steps).engine
        except ValueError as e:
            raise ValueError(f"scenario {self.name}: {e}") from None


class ScenarioNotFound(ValueError):
    """No file of that name and no preset either."""


def presets() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


def preset_path(name: str) -> Path:
    """The TOML file of a preset: the place to copy a scenario of one's own from."""
    if name not in presets():
        raise ScenarioNotFound(f"no preset {name!r}; presets: {', '.join(presets())}")
    return PRESETS_DIR / f"{name}.toml"


def load_scenario(name_or_path: str | Path) -> Scenario:
    """A preset by name (see presets()) or a TOML file by path."""
    path = Path(name_or_path)
    if not path.exists():
        path = PRESETS_DIR / f"{name_or_path}.toml"
        if not path.exists():
            raise ScenarioNotFound(f"no scenario file {name_or_path!r} and no preset of that name; "
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
    keys = [f.name for f in fields(Scenario) if f.name not in ("name", "workload")] + ["requests", *POOL_KEYS]
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}; a scenario has {', '.join(keys)}")
    missing = [k for k in ("title", "block_size", "num_blocks", "requests") if k not in data]
    if missing:
        raise ValueError(f"not a scenario: missing {', '.join(missing)}")
    if not isinstance(data["requests"], list) or not all(isinstance(r, dict) for r in data["requests"]):
        raise ValueError("requests must be [[requests]] tables")
    if not 1 <= len(data["requests"]) <= MAX_REQUESTS:
        raise ValueError(f"a scenario has 1..{MAX_REQUESTS} [[requests]], got {len(data['requests'])}")
    checks.whole("num_blocks", data["num_blocks"], 1, checks.MAX_SIM_BLOCKS)  # what a Simulator builds quickly
    requests = []
    for i, r in enumerate(data["requests"]):
        unknown = [k for k in r if k not in REQUEST_KEYS]
        if unknown or "prompt" not in r:
            problem = f"unknown key {unknown[0]!r}" if unknown else "no prompt"
            raise ValueError(f"request {i + 1}: {problem}; a request has {', '.join(REQUEST_KEYS)}")
        try:
            at_step = checks.whole("at_step", r.get("at_step", 0), 0, MAX_STEPS)
        except ValueError as e:
            raise ValueError(f"{name_of(i, label=r.get('label'))}: {e}") from None
        requests.append(request(i, **{k: v for k, v in r.items() if k != "at_step"}, arrival=at_step))
    pool = {k: data[k] for k in POOL_KEYS if k in data}
    words = {k: v for k, v in data.items() if k not in POOL_KEYS and k != "requests"}
    scenario = Scenario(name=name, workload=None, **words)  # its own fields checked before the pool's
    scenario.workload = Workload(requests=requests, **pool)
    return scenario
