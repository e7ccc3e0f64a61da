"""Run a stream through a real vLLM and nano-vllm, side by side, and explain where they differ."""
from dataclasses import dataclass, field

from blockviz.sim import Simulator
from blockviz.vllm.client import Client, ServerError
from blockviz.vllm.lab import rules
from blockviz.vllm.lab.nano import run_nano
from blockviz.vllm.lab.outcome import Key, Outcome, hit_rate_curve
from blockviz.vllm.lab.stream import LabRequest, batches, check_stream
from blockviz.vllm.lab.vllm_side import EventKeys, admissions, send_batch
from blockviz.vllm.watch import Watch


@dataclass
class LabResult:
    """One stream through both engines. Lists are per request, in the stream's order."""
    requests: list[LabRequest]
    prompts: list[tuple[int, ...]]
    generated: list[tuple[int, ...]]       # vLLM's tokens, nano-vllm's script
    batches: list[list[int]]               # request indices sent at once, a burst in vLLM's admission order
    vllm: list[Outcome]
    variants: dict[frozenset[str], list[Outcome]]   # nano-vllm, and with each set of vLLM's rules put in
    block_size: int
    vllm_blocks: int                       # vLLM's pool (--blocks), its null block included
    vllm_max_num_seqs: int | None = None   # vLLM's running cap (rules.RUNNING_CAP); None: not known
    nano_session: Simulator | None = None  # nano-vllm's recorded run: a Timeline for blockviz's views
    vllm_admitted: dict[int, int] = field(default_factory=dict)   # a burst's request -> vLLM step it began at
    differences: list[rules.Difference] = field(init=False)   # computed: rules.explain

    def __post_init__(self):
        self.differences = rules.explain(self.vllm, self.variants)

    @property
    def nano(self) -> list[Outcome]:
        return self.variants[frozenset()]

    @property
    def nano_blocks(self) -> int:
        return self.vllm_blocks - 1

    @property
    def labels(self) -> list[str]:
        return [r.label or str(i) for i, r in enumerate(self.requests)]

    @property
    def unexplained(self) -> list[rules.Difference]:
        return [d for d in self.differences if not d.explained]

    def hit_rates(self) -> dict[str, list[float]]:
        lengths = [len(p) for p in self.prompts]
        return {"vllm": hit_rate_curve(lengths, [o.cached_tokens for o in self.vllm]),
                "nano": hit_rate_curve(lengths, [o.cached_tokens for o in self.nano])}

    def block_place(self, key: Key) -> tuple[int, int]:
        """(the first request whose prompt or reply holds the block, its index there); -1 for none."""
        for i, (p, g) in enumerate(zip(self.prompts, self.generated)):
            if tuple((p + g)[:len(key)]) == key:
                return i, len(key) // self.block_size - 1
        return -1, len(key) // self.block_size - 1

    def block_name(self, key: Key) -> str:
        """A block as `label:index` (block_place), e.g. "R3:0"."""
        request, index = self.block_place(key)
        return f"{self.labels[request] if request >= 0 else '?'}:{index}"

    def last_token_rule_agrees(self) -> list[int]:
        """Requests where the two engines' hit limits differ (rules.LAST_TOKEN): none, by arithmetic."""
        return [i for i, p in enumerate(self.prompts)
                if len(set(rules.hit_limits(len(p), self.block_size))) > 1]

    @property
    def with_every_rule(self) -> list[Outcome]:
        """nano-vllm with every re-runnable rule put in: what is left of an unexplained difference."""
        return self.variants[max(self.variants, key=len)]

    def first_missing_block(self, difference: rules.Difference) -> Key | None:
        """For a cached-tokens difference: the block one engine hit and the other did not."""
        if difference.what != "cached_tokens":
            return None
        hit = min(difference.vllm, difference.nano)
        return self.prompts[difference.index][:hit + self.block_size]

    def __repr__(self) -> str:
        # a result left bare in a cell shows this (its lab view is LabView(result): views import the
        # lab, not the other way), not a dataclass repr of every prompt and outcome
        return f"<LabResult: {self.summary()}\n(LabView(result) draws it)>"

    def summary(self) -> str:
        lines = [f"{len(self.requests)} requests; block size {self.block_size}; vLLM {self.vllm_blocks} blocks "
                 f"(one null), nano-vllm {self.nano_blocks}"]
        rates = self.hit_rates()
        lines.append(f"hit rate: vLLM {rates['vllm'][-1]:.1%}, nano-vllm {rates['nano'][-1]:.1%}")
        for d in self.differences:
            why = " + ".join(d.rules) if d.rules else "UNEXPLAINED"
            why += "".join(f" (or {' + '.join(a)})" for a in d.alternatives)
            lines.append(f"  {self.labels[d.index]}: {d.what} vLLM {d.vllm} nano-vllm {d.nano}: {why}")
        return "\n".join(lines)


def resolve(requests: list[LabRequest], i: int, prompts: list, generated: list) -> tuple[int, ...]:
    r = requests[i]
    if r.follows is None:
        return r.tokens
    return prompts[r.follows] + generated[r.follows] + r.tokens


def server_pool(client: Client) -> tuple[int, int]:
    """(num_gpu_blocks, block_size) as the server reports them."""
    config = client.cache_config()
    try:
        return int(config["num_gpu_blocks"]), int(config["block_size"])
    except (KeyError, ValueError):
        raise ServerError(f"{client.api} does not report its pool (vllm:cache_config_info in /metrics): "
                          "give blocks= and block_size=") from None


def run_lab(stream: list[LabRequest], client: Client, watch: Watch, blocks: int | None = None,
            block_size: int | None = None, reset: bool = True, record: bool = True) -> LabResult:
    """Send the stream to the vLLM behind `client` (watched by `watch`) and replay it through nano-vllm
    with vLLM's pool less its null block. reset: empty vLLM's prefix cache first and after (needs the
    server's dev mode), so both engines start from nothing. record: keep nano-vllm's run for the views.
    vLLM's --max-num-seqs comes from its /server_info (dev mode); without it, running_cap is not tried."""
    stream = check_stream(list(stream))
    max_num_seqs = client.server_config().get("scheduler_config", {}).get("max_num_seqs")
    if blocks is None or block_size is None:
        reported = server_pool(client)
        blocks, block_size = blocks or reported[0], block_size or reported[1]
    if blocks < 2:
        raise ValueError(f"vLLM's pool has {blocks} blocks: nano-vllm would get none (one is vLLM's null block)")
    if reset:
        client.reset_prefix_cache()
    prompts: list[tuple[int, ...]] = [()] * len(stream)
    generated: list[tuple[int, ...]] = [()] * len(stream)
    vllm: list[Outcome | None] = [None] * len(stream)
    keys = EventKeys()
    order = batches(stream)
    watch.settle()   # whatever came before is in: the first batch's steps start after it
    try:
        for batch in order:
            for i in batch:
                prompts[i] = resolve(stream, i, prompts, generated)
            replies, outcomes = send_batch(client, watch, keys, [prompts[i] for i in batch],
                                           [stream[i].max_tokens for i in batch])
            for i, reply, outcome in zip(batch, replies, outcomes):
                generated[i], vllm[i] = reply.token_ids, outcome
    finally:
        if reset:
            client.reset_prefix_cache()
    return replay(stream, prompts, generated, vllm, block_size, blocks, record, max_num_seqs)


def replay(stream: list[LabRequest], prompts: list[tuple[int, ...]], generated: list[tuple[int, ...]],
           vllm: list[Outcome], block_size: int, vllm_blocks: int, record: bool = True,
           vllm_max_num_seqs: int | None = None) -> LabResult:
    """The nano-vllm half: the same sequences through nano-vllm, plain and with each set of vLLM's
    rules, and the differences explained. Pure: the lab's tests call it with hand-built vLLM outcomes."""
    sequences = [p + g for p, g in zip(prompts, generated)]
    taken = [admissions(batch, sequences, vllm[batch[0]].steps) if len(batch) > 1 else [(batch[0], None)]
             for batch in batches(stream)]   # a burst in the order vLLM took it (its requests race there)
    order = [[i for i, _ in batch] for batch in taken]
    admitted = {i: step for batch in taken for i, step in batch if step is not None}
    played = [[(prompts[i], generated[i]) for i in batch] for batch in order]
    tried = tuple(r for r in rules.VARIANT_RULES if r != rules.RUNNING_CAP or vllm_max_num_seqs is not None)
    variants, session = {}, None
    sent = [i for batch in order for i in batch]
    for subset in rules.subsets(tried):
        sim, outcomes = run_nano(played, vllm_blocks - 1, block_size, subset, record=record and not subset,
                                 max_num_seqs=vllm_max_num_seqs)
        variants[subset] = [outcome for _, outcome in sorted(zip(sent, outcomes))]   # back in the stream's order
        if not subset and record:
            session = sim
    return LabResult(list(stream), prompts, generated, order, vllm, variants, block_size, vllm_blocks,
                     vllm_max_num_seqs, session, admitted)

