"""One publisher's batches back in order, by their sequence numbers.

vLLM numbers each publisher's batches 0, 1, 2, ... and keeps the last ones (10 000 by default) for
replay. A subscriber that sees a jump (a dropped message, a subscriber that joined late, the
ZMQ slow-joiner loss of the first messages) holds what comes next, asks the replay endpoint for
the missing ones and passes everything on in order. What the replay cannot give any more is
counted as lost, never waited for forever. A sequence number that falls back to 0 means the
publisher restarted: a new engine process, whose cache starts empty.
"""
from dataclasses import dataclass, field

Ready = tuple[int, bytes, str, int]   # (seq, payload, "live" | "replay", batches lost just before)


@dataclass
class Sequencer:
    has_replay: bool
    last: int | None = None             # the last sequence number passed on
    held: dict[int, bytes] = field(default_factory=dict)
    awaiting_replay: bool = False
    duplicates: int = 0
    lost: int = 0
    restarts: int = 0

    def live(self, seq: int, payload: bytes) -> tuple[list[Ready], bool, bool]:
        """Take a live batch: (batches ready, ask for a replay from self.next_needed?, restarted?)."""
        restarted = seq == 0 and self.last is not None
        if restarted:
            self.restarts += 1
            self.last, self.awaiting_replay = None, False
            self.held.clear()
        if self.last is not None and seq <= self.last:
            self.duplicates += 1
            return [], False, restarted
        if self.awaiting_replay or (seq != self.next_needed and self.has_replay):
            self.held[seq] = payload
            ask = not self.awaiting_replay
            self.awaiting_replay = True
            return [], ask, restarted
        return [self._pass(seq, payload, "live")], False, restarted

    @property
    def next_needed(self) -> int:
        return 0 if self.last is None else self.last + 1

    def ask_replay(self) -> int:
        """Start a replay now (a watch that starts asks once, to catch up); from which seq."""
        self.awaiting_replay = True
        return self.next_needed

    def replayed(self, seq: int, payload: bytes) -> list[Ready]:
        if self.last is not None and seq <= self.last:
            return []
        self.held.pop(seq, None)
        return [self._pass(seq, payload, "replay")]

    def replay_done(self) -> list[Ready]:
        """The replay ended (its end marker, or it timed out): pass on what was held, counting gaps."""
        self.awaiting_replay = False
        ready = []
        for seq in sorted(self.held):
            if self.last is None or seq > self.last:
                ready.append(self._pass(seq, self.held[seq], "live"))
        self.held.clear()
        return ready

    def _pass(self, seq: int, payload: bytes, via: str) -> Ready:
        lost = seq - self.next_needed
        self.lost += lost
        self.last = seq
        return seq, payload, via, lost
