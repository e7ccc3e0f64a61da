"""README snippets run exactly as written, and what the README says they show holds."""
import ast
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from blockviz.char_tokenizer import CharTokenizer
from blockviz.scenarios import PRESETS_DIR
from blockviz.recording.events import Preempted

README = Path(__file__).resolve().parents[1] / "README.md"


def fenced(language: str) -> list[str]:
    """The README's fenced blocks of `language` ("" for a plain one), each as written."""
    blocks, current, opened = [], [], None
    for line in README.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            if opened is None:
                opened, current = line[3:].strip(), []
            else:
                if opened == language:
                    blocks.append("".join(current))
                opened = None
        elif opened is not None:
            current.append(line)
    return blocks


def snippet(containing: str) -> str:
    """The README's fenced python block that contains `containing`, as written."""
    found = [block for block in fenced("python") if containing in block]
    assert len(found) == 1, f"{len(found)} README python blocks contain {containing!r}"
    return found[0]


def run(code: str, where: Path, names: dict | None = None) -> tuple[dict, str]:
    names, out, _ = run_showing(code, where, names)
    return names, out


class _Show(ast.NodeTransformer):
    """Each expression statement `e` (at any depth) becomes `_shown_(source of e, e)`: evaluated once,
    in its place, its value kept, as a notebook cell shows its last value."""

    def __init__(self, code: str):
        self.code = code

    def visit_Expr(self, node: ast.Expr) -> ast.Expr:
        source = ast.get_source_segment(self.code, node)
        call = ast.Call(ast.Name("_shown_", ast.Load()), [ast.Constant(source), node.value], [])
        return ast.copy_location(ast.Expr(ast.copy_location(call, node.value)), node)


def run_showing(code: str, where: Path, names: dict | None = None) -> tuple[dict, str, dict[str, object]]:
    """`code` run as written (in `where`, with `names` already defined); its names, what it printed,
    and the value of each expression statement, by its source as written (a README comment says
    what these show)."""
    names, shown = dict(names or {}), {}

    def keep(source: str, value):
        shown[source] = value
        return value
    names["_shown_"] = keep
    tree = ast.fix_missing_locations(_Show(code).visit(ast.parse(code)))
    readme = README.read_text(encoding="utf-8")
    if code in readme:   # a traceback then names the README's own lines
        ast.increment_lineno(tree, readme[:readme.index(code)].count("\n"))
    out = io.StringIO()
    with contextlib.chdir(where), contextlib.redirect_stdout(out):
        exec(compile(tree, str(README), "exec"), names)
    return names, out.getvalue(), shown


def test_the_first_simulator_example_preempts_b_as_the_readme_says(tmp_path):
    names, out = run(snippet("sim = Simulator(num_blocks=8, block_size=4)"), tmp_path)
    sim = names["sim"]
    a, b = (seq_id for seq_id, seq in sim.snapshot(0).seqs.items())
    block_size = sim.config.kvcache_block_size
    # B hits A's first three blocks at its first admission
    first = next(step for step in range(1, sim.last_step + 1) if b in sim.snapshot(step).scheduled)
    hit = sim.snapshot(first).scheduled[b][0]
    assert hit == 3 * block_size and sim.snapshot(first).seqs[b].block_table[:3] == sim.snapshot(first).seqs[a].block_table[:3]
    # preempted at step 3: its own decode needed a new block and none was free
    preempted = [step for step in range(1, sim.last_step + 1) if Preempted(b) in sim.events(step)]
    assert preempted == [3]
    before = sim.snapshot(2)
    assert not before.free_block_ids and before.seqs[b].num_tokens % block_size == 1
    # admitted again once A has finished, hitting cached blocks
    again = next(step for step in range(4, sim.last_step + 1) if b in sim.snapshot(step).scheduled)
    assert sim.snapshot(again).seqs[a].status == "finished" and sim.snapshot(again).scheduled[b][0] > 0
    # the text: the pool at the end, then at step 3 with B waiting and its kv back to 0
    last, at3 = out.split("step 3 ·")
    assert "B: finished" in last and "B: waiting  tokens 21  kv 0  table []" in at3
    assert not re.search(r"\bcached \d", out)  # kv N, no 'cached N' read as prefix-cache hits
    assert (tmp_path / "trace.jsonl").read_text(encoding="utf-8").count("\n") > sim.last_step


def test_the_traffic_snippet_shows_totals_of_its_per_request_arrays():
    names, _ = run(snippet("r = traffic.replay("), Path.cwd())
    r, trace = names["r"], names["trace"]
    assert round(trace.theoretical_hit_rate(), 3) == 0.374  # the number its comment gives
    assert isinstance(r.cached_tokens, np.ndarray) and len(r.cached_tokens) == len(r.preemptions) == len(r.trace)
    assert r.hit_rate == r.cached_tokens.sum() / r.prompt_tokens.sum()


def commands(first: str) -> list[str]:
    """The lines of the README's plain fenced block that starts with `first`."""
    found = [block for block in fenced("") if block.startswith(first)]
    assert len(found) == 1, f"{len(found)} README blocks start with {first!r}"
    return found[0].splitlines()


def shell(line: str, where: Path) -> subprocess.CompletedProcess:
    """`line` run by bash as written, `blockviz` being this checkout's command."""
    bin_dir = where / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "blockviz"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m blockviz "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(README.parent)}
    return subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True, text=True, timeout=300)


def test_the_command_lines_run_as_written_and_start_a_scenario_from_a_preset(tmp_path):
    lines = commands("blockviz simulate --list")
    results = {line.split("#")[0].strip(): shell(line, tmp_path) for line in lines}
    for line, result in results.items():
        assert result.returncode == 0, f"{line}: {result.stderr[-2000:]}"
    listing = results["blockviz simulate --list"].stdout
    assert "seed004" in listing and "blockviz simulate --print seed004 > my.toml" in listing
    assert (tmp_path / "my.toml").read_text(encoding="utf-8") == (PRESETS_DIR / "seed004.toml").read_text(encoding="utf-8")
    trace = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line) for line in trace) and len(trace) > 2  # JSON Lines: one value a line
    assert "JSON Lines" in results["blockviz simulate my.toml --trace out.jsonl"].stdout
    assert (tmp_path / "sheet.md").stat().st_size > 0


def test_the_workload_snippet_prints_the_hit_its_comment_gives():
    names, out = run(snippet("played = play(w)"), Path.cwd())
    w = names["w"]
    a, b = (CharTokenizer().encode(request.prompt) for request in w.requests)   # the Simulator's tokens
    shared = len(os.path.commonprefix([a, b])) // w.block_size * w.block_size   # whole blocks of the common prefix
    assert shared == 8 and out == f"[{shared}]\n"                                # "[8]: two blocks of A's prompt hit"
    assert names["played"].by_label("B").cached_at_admission == [shared]


def test_the_model_snippet_generates_the_tokens_it_asks_for():
    names, out = run(snippet("llm = LLM(kvcache_block_size=16"), Path.cwd())
    llm = names["llm"]
    assert (llm.config.kvcache_block_size, llm.config.num_kvcache_blocks) == (16, 64)
    printed = ast.literal_eval(out)
    assert len(printed) == 1 and len(printed[0]["token_ids"]) == 20   # max_tokens=20, greedy
    assert printed[0]["text"] == llm.tokenizer.decode(printed[0]["token_ids"])


def test_the_exercise_snippet_prints_the_prompt_and_a_correct_answers_message():
    names, out = run(snippet("from blockviz.exercises import make"), Path.cwd())
    ex = names["ex"]
    block_size, table, positions = 4, [5, 2, 7], [3, 4, 5, 6]   # as the snippet makes it
    slots = [table[p // block_size] * block_size + p % block_size for p in positions]
    assert slots == [23, 8, 9, 10]   # the answer the snippet types
    result = ex.check(", ".join(map(str, slots)))
    assert result.correct and out == f"{ex.prompt}\n{result.message}\n"
