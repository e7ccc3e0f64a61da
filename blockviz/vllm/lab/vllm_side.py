"""The vLLM side of the lab: a batch of prompts sent to the real server, what it reported it reused
and generated, and what its KV events say each of its steps stored and evicted."""
from concurrent.futures import ThreadPoolExecutor

from blockviz.vllm.client import Client, Completion
from blockviz.vllm.index import PrefixIndex
from blockviz.vllm.lab.outcome import Change, Key, Outcome
from blockviz.vllm.watch import Watch


class EventKeys:
    """vLLM block hash -> whole-prefix key, learnt from the BlockStored events in the order they came
    (a block's parent is stored before it). Blocks stored before the lab began have no key."""

    def __init__(self):
        self.keys: dict[object, Key] = {}

    def learn(self, record) -> Key | None:
        if record.parent is None:
            key = tuple(record.token_ids)
        elif record.parent in self.keys:
            key = self.keys[record.parent] + tuple(record.token_ids)
        else:
            return None
        if record.full:
            self.keys[record.hash] = key
        return key if record.full else None

    def resident(self, index: PrefixIndex) -> frozenset[Key]:
        return frozenset(self.keys[r.hash] for r in index.live.values()
                         if PrefixIndex.plain(r) and r.hash in self.keys)


def send_batch(client: Client, watch: Watch, keys: EventKeys, prompts: list[tuple[int, ...]],
               max_tokens: list[int]) -> tuple[list[Completion], list[Outcome]]:
    """Send the prompts at once (one alone: in turn), wait for their KV events, and read them. The
    watch must have settled before (run_lab settles it once; each batch settles after itself)."""
    first = watch.last_step + 1
    if len(prompts) == 1:
        replies = [client.complete(list(prompts[0]), max_tokens[0], ignore_eos=True)]
    else:
        with ThreadPoolExecutor(len(prompts)) as pool:
            replies = list(pool.map(lambda p, m: client.complete(list(p), m, ignore_eos=True), prompts, max_tokens))
    watch.settle()
    for prompt, reply in zip(prompts, replies):
        if len(reply.token_ids) != reply.completion_tokens or reply.prompt_tokens != len(prompt):
            raise RuntimeError(f"vLLM answered a {len(prompt)}-token prompt with {reply.prompt_tokens} prompt "
                               f"tokens and {len(reply.token_ids)} token ids for {reply.completion_tokens} "
                               "generated: the lab needs vLLM >= 0.10 (return_token_ids)")
    changes = []
    with watch.lock:
        for step in range(first, watch.last_step + 1):
            info = watch.index.step_info(step)
            stored = tuple(k for k in map(keys.learn, info.stored) if k is not None)
            evicted = () if info.cleared else tuple(keys.keys[r.hash] for r in info.removed if r.hash in keys.keys)
            changes.append(Change(step, stored, evicted))
        resident = keys.resident(watch.index)
    return replies, [Outcome(r.cached_tokens, tuple(changes), resident) for r in replies]



def admissions(batch: list[int], sequences: list[tuple[int, ...]], steps) -> list[tuple[int, int | None]]:
    """(request, vLLM step) for the requests of a burst, in the order vLLM admitted them, read from its
    events: a step's BlockStored events come in the order it scheduled the requests, so a request's
    place is that of the first block only it holds. Requests it stored nothing of their own for have
    no step and keep their order, last. sequences[i]: request i's prompt and reply."""
    first: dict[int, tuple[int, int]] = {}
    stored = [(change.step, key) for change in steps for key in change.stored]
    for place, (step, key) in enumerate(stored):
        holders = [i for i in batch if sequences[i][:len(key)] == key]
        if len(holders) == 1:
            first.setdefault(holders[0], (place, step))
    order = sorted(batch, key=lambda i: (i not in first, first.get(i, (0, 0))[0], batch.index(i)))
    return [(i, first[i][1] if i in first else None) for i in order]
