"""What the tests without vLLM share: free loopback ports, and a small cache that emits the KV
events vLLM would (stored chains, LRU removals) for a stream of prompts."""
import socket
from collections import OrderedDict

from blockviz.vllm.wire import cleared, removed, stored


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tcp() -> str:
    return f"tcp://127.0.0.1:{free_port()}"


class ToyCache:
    """Full blocks of prompts, chained by content; the least recently stored goes first when full.
    Its hashes are content tuples, so tests can compare against it exactly."""

    def __init__(self, capacity: int, block_size: int):
        self.capacity, self.block_size = capacity, block_size
        self.blocks: OrderedDict[int, tuple] = OrderedDict()   # hash -> (parent, tokens)
        self.next_hash = 1

    def hit_blocks(self, tokens: list[int]) -> int:
        B, parent, n = self.block_size, None, 0
        while n < (len(tokens) - 1) // B:
            h = self._find(parent, tuple(tokens[n * B:(n + 1) * B]))
            if h is None:
                break
            parent, n = h, n + 1
        return n

    def _find(self, parent, chunk):
        for h, (p, t) in self.blocks.items():
            if p == parent and t == chunk:
                return h
        return None

    def run(self, tokens: list[int]) -> list:
        """The events of admitting a prompt: its missing full blocks stored, old ones removed."""
        B = self.block_size
        events, parent, path = [], None, set()
        new_hashes, new_tokens, first_parent = [], [], None
        for i in range(len(tokens) // B):
            chunk = tuple(tokens[i * B:(i + 1) * B])
            h = self._find(parent, chunk)
            if h is None:
                if len(self.blocks) >= self.capacity:   # evict the oldest block this prompt does not hold
                    old = next((k for k in self.blocks if k not in path), None)
                    if old is None:
                        break
                    del self.blocks[old]
                    events.append(removed([old]))
                h = self.next_hash
                self.next_hash += 1
                self.blocks[h] = (parent, chunk)
                if not new_hashes:
                    first_parent = parent
                new_hashes.append(h)
                new_tokens += chunk
            elif new_hashes:
                events.append(stored(new_hashes, first_parent, new_tokens, B))
                new_hashes, new_tokens = [], []
            parent = h
            path.add(h)
        if new_hashes:
            events.append(stored(new_hashes, first_parent, new_tokens, B))
        return events

    def clear(self) -> list:
        self.blocks.clear()
        return [cleared()]
