"""Helpers shared by the scenario kinds: random prompts, rejection sampling, narration, checks."""
import string
from random import Random
from typing import Callable

from blockviz.limits import blocks_needed
from blockviz.exercises.setups import Built, build, check_scenario, encode
from blockviz.exercises.tables import show_blocks
from blockviz.i18n import t
from blockviz.recording import events as ev
from blockviz.recording.frame import Frame
from blockviz.brief import brief

LETTERS = string.ascii_lowercase


def fresh(rng: Random, n: int) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(n))


def shuffled_pool(rng: Random, block_size: int, num_blocks: int, setup: list) -> dict:
    """A scenario's pool whose free queue starts in a random order, so block ids are not 0, 1, 2...
    a learner could guess."""
    return {"block_size": block_size, "num_blocks": num_blocks,
            "free_order": rng.sample(range(num_blocks), num_blocks), "setup": setup}


def sample(rng: Random, make: Callable[[Random], dict], accept: Callable[[dict], bool], tries: int = 300) -> dict:
    """Draw params until `accept` (usually a question asked of the engine) holds. Deterministic per rng."""
    params = make(rng)
    for _ in range(tries):
        if accept(params):
            return params
        params = make(rng)
    return params


def settled(params: dict) -> Built | None:
    """The built setup, or None when it leaves a request waiting (the sampler then draws again)."""
    try:
        built = build(params)
    except (ValueError, RuntimeError, AssertionError):
        return None
    return None if built.sim.scheduler.waiting else built


def labels_in(params: dict) -> list[str]:
    return [op[1] for op in params.get("setup", []) if op[0] == "add"]


def check_new_request(params: dict, label: str = "R") -> dict:
    """Validate a scenario plus the new request `new` that the question is about."""
    check_scenario(params)
    new = params.get("new")
    if not new or not isinstance(new, (str, list)):
        raise ValueError(f"'new' must be the new request's prompt (a string or token ids), got {brief(new)}")
    if label in labels_in(params):
        raise ValueError(f"label {label} is reserved for the new request")
    built = build(params)
    if built.sim.scheduler.waiting:
        raise ValueError("the setup leaves a request waiting; the question needs every earlier request admitted")
    B, n = params["block_size"], params["num_blocks"]
    max_tokens = params.get("new_max_tokens", 4)
    if blocks_needed(len(encode(new)) + max_tokens - 1, B) > n:
        raise ValueError("the new request can never fit in this pool")
    return {**params, "new_max_tokens": max_tokens}


def narrate(built: Built, frames: list[Frame], lang: str, counts: bool = True) -> str:
    """One line per step: what was prefilled or decoded, who finished or was preempted."""
    lines = []
    for frame in frames:
        parts = []
        for e in frame.events:
            if isinstance(e, ev.Preempted):
                parts.append(t("ex.n.preempted", lang, label=built.label(e.seq_id)))
            elif isinstance(e, ev.Scheduled):
                if e.is_prefill:
                    who = t("ex.n.and", lang).join(
                        t("ex.n.computed", lang, label=built.label(s), n=n) if counts
                        else built.label(s) for s, n in zip(e.seq_ids, e.num_tokens))
                    parts.append(t("ex.n.prefill", lang, who=who))
                else:
                    who = t("ex.n.and", lang).join(built.label(s) for s in e.seq_ids)
                    parts.append(t("ex.n.decode", lang, who=who))
            elif isinstance(e, ev.Finished):
                parts.append(t("ex.n.finished", lang, label=built.label(e.seq_id)))
        lines.append("- " + t("ex.n.step", lang, step=frame.step, what=t("ex.n.then", lang).join(parts)))
    return "\n".join(lines)


def setup_story(params: dict, lang: str) -> str:
    """The setup in words, from the params (arrivals) and the engine (what each step did)."""
    built = build(params)
    lines = [t("ex.n.pool", lang, B=params["block_size"], n=params["num_blocks"])]
    if params.get("budget"):
        lines.append(t("ex.n.budget", lang, budget=params["budget"]))
    lines.append(ops_story(params.get("setup", []), built, built.frames, params["block_size"], lang))
    return "\n".join(line for line in lines if line)


def ops_story(ops: list, built: Built, frames: list[Frame], block_size: int, lang: str, counts: bool = True) -> str:
    """Scenario ops in words: each arrival with its prompt, each step as narrate() tells it."""
    lines = []
    frame_iter = iter(frames)
    for op in ops:
        if op[0] == "add":
            label, prompt, max_tokens = op[1:4]
            tokens = encode(prompt)
            lines.append("- " + t("ex.n.arrives", lang, label=label, prompt=show_blocks(tokens, block_size),
                                  n=len(tokens), max_tokens=max_tokens))
        else:
            for _ in range(op[1] if len(op) > 1 else 1):
                lines.append(narrate(built, [next(frame_iter)], lang, counts))
    return "\n".join(lines)
