"""One publisher's batches back in order, by their sequence numbers.

vLLM numbers each publisher's batches 0, 1, 2, ... and keeps the last ones (10 000 by default) for
replay. A subscriber that sees a jump (a dropped message, a subscriber that joined late, the
ZMQ slow-joiner loss of the first messages) holds what comes next, asks the replay endpoint for
the missing ones and passes everything on in order. What the replay cannot give any more is
counted as lost, never waited for forever. A sequence number that falls back to 0 means the
publisher restarted: a new engine process, whose cache starts empty.

A number no gap fill could explain (more than MAX_GAP ahead, or behind the last one passed on) is
noted with its reason (the watch's problems) and taken as the publisher's new numbering: one stray
2**62 cannot make every later batch look like an old one, and no replay is asked for a gap that
no replay buffer holds. Batches held for a replay are capped at MAX_HELD.
"""
from dataclasses import dataclass, field

Ready = tuple[int, bytes, str, int]   # (seq, payload, "live" | "replay", batches lost just before)
MAX_GAP = 100_000   # ten times vLLM's replay buffer (10 000 batches): a larger jump is not a gap
MAX_HELD = 10_000   # live batches held while a replay runs; more and they pass on without it


@dataclass
class Sequencer:
    has_replay: bool
    last: int | None = None             # the last sequence number passed on
    held: dict[int, bytes] = field(default_factory=dict)
    awaiting_replay: bool = False
    duplicates: int = 0
    lost: int = 0
    restarts: int = 0
    jumps: int = 0                      # numbers far ahead taken as a new numbering
    backwards: int = 0                  # numbers behind the last one taken as a new numbering
    notes: list[str] = field(default_factory=list)  # problems in words, taken by the subscriber

    def live(self, seq: int, payload: bytes) -> tuple[list[Ready], bool, bool]:
        """Take a live batch: (batches ready, ask for a replay from self.next_needed?, restarted?)."""
        restarted = seq == 0 and self.last is not None
        if restarted:
            self.restarts += 1
            self.last, self.awaiting_replay = None, False
            self.held.clear()
        if self.last is not None and seq == self.last:
            self.duplicates += 1
            return [], False, restarted
        if self.last is not None and (seq < self.last or seq - self.next_needed > MAX_GAP):
            return [self._renumber(seq, payload)], False, restarted
        if self.awaiting_replay and len(self.held) >= MAX_HELD:
            self.notes.append(f"{MAX_HELD} batches held for a replay that has not filled the gap; going on without it")
            return self.replay_done() + [self._pass(seq, payload, "live")], False, restarted
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
        if self.last is not None and seq - self.next_needed > MAX_GAP:  # a replay answers what it was asked
            self.notes.append(f"the replay answered with batch {seq}, {seq - self.next_needed} past the one asked for; "
                              f"ignored")
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

    def _renumber(self, seq: int, payload: bytes) -> Ready:
        """Take `seq` as the publisher's numbering from now on (nothing counted lost for the jump)."""
        if seq < self.last:
            self.backwards += 1
            self.notes.append(f"batch {seq} came after batch {self.last}: the numbering went backwards; "
                              f"following the new numbering")
        else:
            self.jumps += 1
            self.notes.append(f"batch {seq} came after batch {self.last}: a jump of {seq - self.last} no replay can "
                              f"fill; following the new numbering")
        self.awaiting_replay = False
        self.held.clear()
        self.last = seq
        return seq, payload, "live", 0

    def take_notes(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes

    def _pass(self, seq: int, payload: bytes, via: str) -> Ready:
        lost = seq - self.next_needed
        if lost > MAX_GAP:  # the first batch a watch sees, numbered far from 0: not that many lost
            self.jumps += 1
            self.notes.append(f"the first batch is numbered {seq}: the batches before it are not counted as lost")
            lost = 0
        self.lost += lost
        self.last = seq
        return seq, payload, via, lost
