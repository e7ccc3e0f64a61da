"""A request stream for the policy lab: what each request sends, in order.

A request's prompt is its own tokens, or, for a chat turn, the prompt and reply of the request it
`follows` and then its own tokens, so a turn can only be known once that reply exists. Requests run
in order, each to completion; the requests of one `group` are sent at once (a burst).
"""
from dataclasses import dataclass, replace
from functools import lru_cache
import re

from blockviz import checks
from blockviz.brief import brief


@dataclass(frozen=True)
class LabRequest:
    tokens: tuple[int, ...]        # this request's own tokens (a chat turn: the new user text)
    max_tokens: int = 4            # generated exactly (vLLM's ignore_eos), then fed to nano-vllm
    follows: int | None = None     # an earlier request: prompt = its prompt + its reply + tokens
    group: int | None = None       # requests with the same group, next to each other, are sent at once
    label: str | None = None


def check_stream(requests: list[LabRequest]) -> list[LabRequest]:
    """The stream as given, or a ValueError that names the request at fault."""
    if not requests:
        raise ValueError("the stream is empty: give at least one request")
    groups_done: set[int] = set()
    for i, r in enumerate(requests):
        checks.token_ids(f"request {i} tokens", list(r.tokens), allow_empty=r.follows is not None)
        checks.whole(f"request {i} max_tokens", r.max_tokens, 1)
        if r.follows is not None:
            checks.whole(f"request {i} follows", r.follows, 0, i - 1)
            if r.group is not None and requests[r.follows].group == r.group:
                raise ValueError(f"request {i} follows request {r.follows} of its own group {r.group}: "
                                 "a chat turn needs the reply first, so it cannot be sent at once with it")
        if r.group is not None:
            if r.group in groups_done and requests[i - 1].group != r.group:
                raise ValueError(f"request {i}: group {r.group} appears twice, apart; a group's requests are "
                                 "next to each other")
            groups_done.add(r.group)
    return requests


def batches(requests: list[LabRequest]) -> list[list[int]]:
    """Indices sent together: one request alone, or a whole group."""
    out: list[list[int]] = []
    for i, r in enumerate(requests):
        if out and r.group is not None and requests[out[-1][0]].group == r.group:
            out[-1].append(i)
        else:
            out.append([i])
    return out


# -- scripted streams: token ids taken in turn from a source text -------------------------------

class Source:
    """Fresh token ids, read in turn from a text (so no two prompts share tokens by accident)."""

    def __init__(self, ids: list[int], start: int = 0):
        if not ids:
            raise ValueError("the source text has no tokens")
        self.ids, self.at = ids, start

    def take(self, n: int) -> tuple[int, ...]:
        if self.at + n > len(self.ids):
            raise ValueError(f"the source text has {len(self.ids)} tokens, too few for this stream")
        out = tuple(self.ids[self.at:self.at + n])
        self.at += n
        return out


def shared_system_prompts(source: Source, systems: int = 2, system_len: int = 70, users: int = 6,
                          user_len: int = 20, max_tokens: int = 2) -> list[LabRequest]:
    """`users` requests, each a system prompt (one of `systems`, in turn) and its own question."""
    prompts = [source.take(system_len) for _ in range(systems)]
    return [LabRequest(prompts[u % systems] + source.take(user_len), max_tokens, label=f"S{u % systems}.{u}")
            for u in range(users)]


def chat(source: Source, turns: int = 4, first_len: int = 40, user_len: int = 12, max_tokens: int = 8,
         start: int = 0) -> list[LabRequest]:
    """One conversation: each turn's prompt is the previous prompt, its reply and new user text.
    `start`: the index the first turn will have in the whole stream."""
    out = [LabRequest(source.take(first_len), max_tokens, label="chat.0")]
    for t in range(1, turns):
        out.append(LabRequest(source.take(user_len), max_tokens, follows=start + t - 1, label=f"chat.{t}"))
    return out


def long_document(source: Source, document_len: int = 300, questions: int = 3, question_len: int = 10,
                  max_tokens: int = 2) -> list[LabRequest]:
    """The same long document, each time with another question after it."""
    document = source.take(document_len)
    return [LabRequest(document + source.take(question_len), max_tokens, label=f"doc.{q}") for q in range(questions)]


def burst(source: Source, requests: int = 6, shared_len: int = 64, own_len: int = 40, max_tokens: int = 2,
          group: int = 0) -> list[LabRequest]:
    """`requests` prompts sharing a prefix, sent at once: together they need more blocks than a small pool has."""
    shared = source.take(shared_len)
    return [LabRequest(shared + source.take(own_len), max_tokens, group=group, label=f"burst.{i}")
            for i in range(requests)]


def refill(source: Source, distinct: int = 14, length: int = 40, again: int = 4,
           max_tokens: int = 1) -> list[LabRequest]:
    """Built to make the engines differ: `distinct` prompts of one full block and a partial one, then
    the first `again` of them once more. Which of the early prompts are still cached depends on
    where each engine puts the freed partial blocks (rules.py: free_unhashed_first)."""
    prompts = [source.take(length) for _ in range(distinct)]
    out = [LabRequest(p, max_tokens, label=f"R{i}") for i, p in enumerate(prompts)]
    return out + [LabRequest(prompts[i], max_tokens, label=f"R{i}'") for i in range(again)]


def with_offset(requests: list[LabRequest], offset: int) -> list[LabRequest]:
    """The same requests placed `offset` positions later in a stream (their `follows` moved along)."""
    return [replace(r, follows=None if r.follows is None else r.follows + offset) for r in requests]


def concat(*parts: list[LabRequest]) -> list[LabRequest]:
    """Streams one after another (each part's `follows` counted from its own start)."""
    out: list[LabRequest] = []
    for part in parts:
        out += with_offset(part, len(out))
    return out


def mixed(source: Source) -> list[LabRequest]:
    """Every kind of stream above, one after another (the `blockviz vllm lab` default)."""
    return concat(shared_system_prompts(source), chat(source, turns=3), long_document(source),
                  refill(source), burst(source))


SCRIPTED = {"system": shared_system_prompts, "chat": chat, "document": long_document, "burst": burst,
            "refill": refill, "mixed": mixed}


@lru_cache(maxsize=1)
def corpus_ids() -> tuple[int, ...]:
    """Token ids of the embedded model's corpus text, the default source of scripted streams."""
    from blockviz.llm import TokenizerFile   # torch only when a scripted stream is asked for
    from blockviz.models import DEFAULT_MODEL_DIR
    tokenizer = TokenizerFile(DEFAULT_MODEL_DIR / "tokenizer.json")
    text = (DEFAULT_MODEL_DIR / "corpus" / "pride_and_prejudice.txt").read_text()[20_000:220_000]
    return tuple(tokenizer.encode(text))


def scripted(name: str, source: Source | None = None, **options) -> list[LabRequest]:
    checks.one_of("stream", name, tuple(SCRIPTED))
    return check_stream(SCRIPTED[name](source or Source(list(corpus_ids())), **options))


# -- typed streams --------------------------------------------------------------------------

_IDS = re.compile(r"\[\s*\d+(\s*,\s*\d+)*\s*,?\s*\]")


def parse(text: str, encode, max_tokens: int = 4) -> list[LabRequest]:
    """A stream typed by the user, one request a line:

        some text             a request (its text, tokenized by `encode`)
        [1, 2, 3]             a request given as token ids
        > more text           a chat turn: the previous request's prompt and reply, then this
        * text                requests on consecutive `*` lines are sent at once (a burst)
        # a comment           (and blank lines) ignored
    """
    out: list[LabRequest] = []
    group, last_starred = -1, False
    for n, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        follows = starred = False
        if body[0] in ">*":
            follows, starred = body[0] == ">", body[0] == "*"
            body = body[1:].strip()
        if follows and not out:
            raise ValueError(f"line {n}: a chat turn (>) needs a request before it")
        if _IDS.fullmatch(body):
            tokens = tuple(int(t) for t in re.findall(r"\d+", body))
        else:
            tokens = tuple(encode(body))
        if not tokens and not follows:
            raise ValueError(f"line {n}: no tokens in {brief(line, 60)}")
        if starred and not last_starred:
            group += 1
        out.append(LabRequest(tokens, max_tokens, follows=len(out) - 1 if follows else None,
                              group=group if starred else None))
        last_starred = starred
    return check_stream(out)
