"""What the real-engine kinds share: the vLLM recordings shipped with lesson 10 (lesson/data),
their caches as Markdown, prompts cut from what they hold, and the hand count of cached tokens.

A recording is the KV events of real vLLM servers (scripts/record_lesson10.py); a question is
about the cache at its last step. `hand_cached` redoes vLLM's lookup by hand, with a switch per
known mistake; without switches it equals `predict.cached_tokens` (tests check it), and the
answers themselves always come from predict.py and router.py.
"""
from functools import lru_cache
from pathlib import Path
from random import Random

from blockviz.exercises.tables import table
from blockviz.i18n import t
from blockviz.jsonfile import read_json
from blockviz.markup import CONTROL_PICTURES
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm.index import BlockRecord, PrefixIndex, phase_ends
from blockviz.vllm.watch import Watch, load, watch_until
from blockviz.brief import brief

DATA_DIR = Path(__file__).resolve().parents[3] / "lesson" / "data"
SINGLE, FLEET = "10_single", "10_fleet"
RECORDINGS = (SINGLE, FLEET)
FRESH_TEXT = DEFAULT_MODEL_DIR / "corpus" / "persuasion.txt"   # another book: none of it is cached


def instances(name: str) -> dict[str, str]:
    """A recording's instances numbered from 1 (name -> source), in the order its sidecar `.json`
    lists them (the router's instance order); one source for a single server."""
    sidecar = DATA_DIR / f"{name}.json"
    named = read_json(sidecar, dict).get("instances") if sidecar.is_file() else None
    sources = list(named.values()) if named else load(DATA_DIR / f"{name}.jsonl").index.sources()
    return {str(i + 1): source for i, source in enumerate(sources)}


def check_recording(name: str, allowed: tuple[str, ...] = RECORDINGS) -> str:
    if name not in allowed:
        raise ValueError(f"recording must be one of {', '.join(allowed)} (lesson/data), got {brief(name, 40)}")
    if not (DATA_DIR / f"{name}.jsonl").is_file():
        raise ValueError(f"recording {name}: {DATA_DIR / name}.jsonl is missing (scripts/record_lesson10.py makes it)")
    return name


def check_token_prompt(value) -> list[int]:
    if not isinstance(value, list):
        raise ValueError("prompt must be token ids of the recorded model (a list), not text")
    vocab = tokenizer().get_vocab_size()
    if any(t >= vocab for t in value):
        raise ValueError(f"prompt: the recorded model's token ids are 0..{vocab - 1}")
    return value


@lru_cache(maxsize=4)
def recorded(name: str) -> Watch:
    """The recording replayed: its index at the step `question_step` names is the cache a question shows."""
    path = DATA_DIR / f"{name}.jsonl"
    return watch_until(path, question_step(load(path)))


def question_step(watch: Watch) -> int:
    """The last step, or in a fleet recording (one policy after another, every cache emptied before
    each) the end of the first policy's run: the KV-aware router's caches, not round-robin's copies."""
    return phase_ends(watch.index)[0]


@lru_cache(maxsize=1)
def tokenizer():
    from tokenizers import Tokenizer   # the recorded model's tokenizer, without torch
    return Tokenizer.from_file(str(DEFAULT_MODEL_DIR / "tokenizer.json"))


def decode(token_ids) -> str:
    return tokenizer().decode(list(token_ids), skip_special_tokens=False)


@lru_cache(maxsize=1)
def fresh_ids() -> tuple[int, ...]:
    text = FRESH_TEXT.read_text(encoding="utf-8")[30_000:60_000]
    return tuple(tokenizer().encode(text, add_special_tokens=False).ids)


def fresh(rng: Random, n: int) -> list[int]:
    ids = fresh_ids()
    at = rng.randrange(len(ids) - n)
    return list(ids[at:at + n])


def plain_blocks(index: PrefixIndex, source: str) -> list[BlockRecord]:
    """The cached blocks of `source` a plain prompt can hit, in the order they were stored."""
    return [r for r in index.live.values() if r.source == source and PrefixIndex.plain(r)]


def chains(index: PrefixIndex, source: str) -> list[list[BlockRecord]]:
    """Every cached path from a first block (no parent) down to a block, shortest first."""
    blocks = plain_blocks(index, source)
    by_hash = {r.hash: r for r in blocks}
    out = []
    for r in blocks:
        path, node = [r], r
        while node.parent is not None and node.parent in by_hash:
            node = by_hash[node.parent]
            path.append(node)
        if node.parent is None:
            out.append(path[::-1])
    return sorted(out, key=len)


def text_cell(token_ids) -> str:
    """Decoded tokens in a code span that survives a Markdown table (no pipes, backticks or new lines)."""
    text = decode(token_ids).translate(CONTROL_PICTURES).replace("\n", "↵").replace("|", "│").replace("`", "ˋ")
    return f"`{text}`"


def short(block_hash) -> str:
    from blockviz.views.render_forest import short as short_hash   # the views' name for a hash
    return short_hash(block_hash)


def cache_table(index: PrefixIndex, sources: dict[str, str], lang: str) -> str:
    """The cached blocks of each instance (name -> source): hash, parent hash, tokens as text."""
    rows = []
    for name, source in sources.items():
        for r in plain_blocks(index, source):
            parent = short(r.parent) if r.parent is not None else t("ex.t.none", lang)
            rows.append(([name] if len(sources) > 1 else []) + [f"`{short(r.hash)}`",
                                                                 f"`{parent}`" if r.parent is not None else parent,
                                                                 text_cell(r.token_ids)])
    header = ([t("recorded.col.instance", lang)] if len(sources) > 1 else []) + [
        t("recorded.col.block", lang), t("recorded.col.parent", lang), t("recorded.col.tokens", lang)]
    return table(header, rows)


def prompt_table(token_ids: list[int], block_size: int, lang: str) -> str:
    rows = []
    for i in range(0, len(token_ids), block_size):
        part = token_ids[i:i + block_size]
        rows.append([i // block_size, len(part), text_cell(part)])
    return table([t("recorded.col.logical", lang), t("recorded.col.count", lang), t("recorded.col.tokens", lang)],
                 rows)


def recorded_note(lang: str) -> str:
    return t("recorded.note", lang)


def hand_cached(index: PrefixIndex, source: str, token_ids: list[int], cap: bool = True,
                whole_blocks: bool = True, follow_parent: bool = True) -> int:
    """vLLM's lookup by hand: leading full blocks, each found under the previous one's hash, at most
    num_tokens - 1 tokens. The switches are the mistakes: no cap; the shared tokens of the first
    block that does not match counted too; any cached block with the same tokens counted, under
    whatever parent and past the first miss."""
    size = index.block_sizes.get(source)
    if size is None or not token_ids:
        return 0
    limit = len(token_ids) - 1 if cap else len(token_ids)
    blocks = plain_blocks(index, source)
    contents = {r.token_ids for r in blocks}
    if not follow_parent:
        return size * sum(tuple(token_ids[i:i + size]) in contents for i in range(0, limit - size + 1, size))
    parent, count = None, 0
    while count + size <= limit:
        record = index.child(source, parent, tuple(token_ids[count:count + size]))
        if record is None:
            break
        parent, count = record.hash, count + size
    if not whole_blocks:
        rest = token_ids[count:limit]
        count += max((shared_prefix(rest, r.token_ids) for r in blocks if r.parent == parent), default=0)
    return count


def shared_prefix(a, b) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def cut_prompt(rng: Random, path: list[BlockRecord], shape: str) -> list[int]:
    """A prompt from a cached path: `aligned` (exactly some of its blocks), `tail` (blocks then fresh
    tokens), `partial` (blocks, the start of the next cached block, fresh tokens), `miss` (a fresh
    block in place of one of them, the cached ones after it kept)."""
    size = path[0].block_size
    tokens = lambda blocks: [t for r in blocks for t in r.token_ids]   # noqa: E731
    if shape == "aligned":
        return tokens(path[:rng.randint(1, len(path))])
    if shape == "partial" and len(path) >= 2:
        m = rng.randint(1, len(path) - 1)
        return tokens(path[:m]) + list(path[m].token_ids[:rng.randint(3, size - 3)]) + fresh(rng, rng.randint(5, 20))
    if shape == "miss" and len(path) >= 2:
        j = rng.randrange(len(path) - 1)
        return tokens(path[:j]) + fresh(rng, size) + tokens(path[j + 1:]) + fresh(rng, rng.randint(1, 12))
    return tokens(path[:rng.randint(1, len(path))]) + fresh(rng, rng.randint(1, size - 1))
