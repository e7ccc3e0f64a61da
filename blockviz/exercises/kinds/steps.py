"""steps_table: predict a whole run, one row per step: who runs, blocks allocated, cache hits, blocks freed.

params: a scenario (engine.build) whose setup is the run itself: arrivals (["add", ...]) and steps.
The answer is read from the events of every step the engine ran; the first wrong cell is diagnosed
from the same events (who was preempted or refused, what was revived, shared, appended, released),
so no diagnosis is typed in.
"""
from dataclasses import dataclass
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.setups import Built, build, check_scenario, encode
from blockviz.exercises.kinds.common import fresh, labels_in, sample
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import queue_line, show_blocks, table
from blockviz.i18n import t
from blockviz.limits import blocks_needed
from blockviz.recording import events as ev
from blockviz.recording.frame import Frame

COLUMNS = ("runs", "allocated", "hits", "freed")
MAX_ROWS = 16  # a table a learner fills in by hand
MAX_RUN = 40   # steps a generated run may take to finish


@dataclass
class Step:
    """What one engine step did, in the table's terms, and the facts its diagnoses use."""
    step: int
    is_prefill: bool
    runs: list[str]         # labels scheduled, sorted (the table does not ask for the order)
    allocated: int          # blocks _allocate_block handed out (allocate and may_append)
    hits: int               # cache hits: shared (used) + revived (free)
    freed: int              # blocks whose ref_count reached 0 and went back to the free queue
    shared: int
    revived: int
    appended: int           # blocks may_append took for a decode that starts a new block
    released: int           # every ref_count decrement, whether or not the block was freed
    freed_by_preemption: int
    freed_by_finish: int
    preempted: list[str]
    refused: dict[str, tuple[int, int]]  # label -> (blocks needed, blocks free) where can_allocate said -1
    full_hit_last: int      # admitted requests whose every probed block hit and whose last block is full
    before: set[str]        # labels present before the step: arrived and not finished
    waiting: set[str]       # labels waiting before the step
    readmitted: set[str]    # labels prefilled again after a preemption

    @property
    def row(self) -> list:
        return [self.runs, self.allocated, self.hits, self.freed]


def step_facts(built: Built, frames: list[Frame]) -> list[Step]:
    steps, previous, preempted_ever = [], None, set()
    for frame in frames:
        label = built.label
        events = frame.events
        kinds = lambda cls: [e for e in events if isinstance(e, cls)]  # noqa: E731
        scheduled = kinds(ev.Scheduled)
        is_prefill = bool(scheduled and scheduled[0].is_prefill)
        runs = sorted(label(s) for e in scheduled for s in e.seq_ids)
        preempted = [label(e.seq_id) for e in kinds(ev.Preempted)]
        finished = {e.seq_id for e in kinds(ev.Finished)}
        victims = {e.seq_id for e in kinds(ev.Preempted)}
        freed = [e for e in kinds(ev.BlockReleased) if e.ref_count == 0]
        snap = previous.snapshot if previous is not None else None
        before = set() if snap is None else {seq.label for seq in snap.seqs.values() if seq.status != "finished"}
        before |= {label(e.seq_id) for e in kinds(ev.RequestAdded)}
        waiting = ({snap.seqs[i].label for i in snap.waiting} if snap is not None else set()) \
            | {label(e.seq_id) for e in kinds(ev.RequestAdded)}
        admitted = [e for e in kinds(ev.CanAllocate) if e.result != -1]
        computed = {s: start + n for e in scheduled for s, start, n in zip(e.seq_ids, e.starts, e.num_tokens)}
        B = built.bm.block_size
        full_hit_last = sum(1 for e in admitted if computed.get(e.seq_id, 0) % B == 0
                            and e.result == computed[e.seq_id] // B - 1 > 0)
        steps.append(Step(
            frame.step, is_prefill, runs, len(kinds(ev.BlockAllocated)),
            len(kinds(ev.BlockShared)) + len(kinds(ev.BlockRevived)), len(freed),
            len(kinds(ev.BlockShared)), len(kinds(ev.BlockRevived)), len(kinds(ev.BlockAppended)),
            len(kinds(ev.BlockReleased)), sum(1 for e in freed if e.seq_id in victims),
            sum(1 for e in freed if e.seq_id in finished), preempted,
            {label(e.seq_id): (e.num_new_blocks, e.num_free_blocks) for e in kinds(ev.CanAllocate) if e.result == -1},
            full_hit_last, before, waiting, {r for r in runs if is_prefill and r in preempted_ever}))
        preempted_ever |= set(preempted)
        previous = frame
    return steps


def arrivals(params: dict) -> list[tuple[int, list]]:
    """(the step before which it arrives, its add op) for each request."""
    out, step = [], 1
    for op in params["setup"]:
        if op[0] == "add":
            out.append((step, op))
        else:
            step += op[1]
    return out


# --- random runs ---------------------------------------------------------------------------

def random_run(rng: Random) -> dict:
    """Two requests sharing a prefix of whole blocks, the second arriving a step later (a hit on a used
    block), perhaps a third; a pool so tight that decode may preempt; run to the end."""
    B = rng.choice([2, 4, 4])
    shared = fresh(rng, B * rng.randint(1, 2))
    a = shared + fresh(rng, rng.randint(1, B))
    b = shared + fresh(rng, rng.randint(1, B))
    setup = [["add", "A", a, rng.randint(2, 6)], ["step", 1], ["add", "B", b, rng.randint(2, 5)]]
    if rng.random() < 0.4:
        setup.append(["add", "C", fresh(rng, rng.randint(1, 2 * B)), rng.randint(1, 3)])
    need = max(blocks_needed(len(encode(op[2])) + op[3] - 1, B) for op in setup if op[0] == "add")
    num_blocks = rng.randint(need, need + 2)
    params = {"block_size": B, "num_blocks": num_blocks, "free_order": rng.sample(range(num_blocks), num_blocks),
              "setup": setup}
    try:
        built = build(params)
        steps = 0
        while (built.sim.scheduler.waiting or built.sim.scheduler.running) and steps < MAX_RUN:
            built.step()
            steps += 1
    except (ValueError, RuntimeError, AssertionError):
        return {**params, "setup": setup + [["step", MAX_RUN]]}  # refused by the sampler
    return {**params, "setup": setup + [["step", steps]]} if steps else params


class StepsTable(Kind):
    name = "steps_table"
    param_names = SCENARIO
    lesson = 11

    def generate(self, rng: Random) -> dict:
        def ok(params: dict) -> bool:
            try:
                self.validate(params)
                built = build(params)
            except ValueError:
                return False
            facts = step_facts(built, built.frames)
            done = not built.sim.scheduler.waiting and not built.sim.scheduler.running
            return done and any(s.hits for s in facts) and any(s.preempted or s.appended for s in facts)
        return sample(rng, random_run, ok, tries=200)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        steps = sum(op[1] for op in params.get("setup", []) if op[0] == "step")
        if not labels_in(params) or not 1 <= steps <= MAX_ROWS:
            raise ValueError(f"a steps table needs requests and 1..{MAX_ROWS} steps in setup, got {steps} steps")
        return params

    def solve(self, params: dict) -> Solved:
        built = build(params)
        facts = step_facts(built, built.frames)
        return Solved([s.row for s in facts], {"built": built, "steps": facts, "labels": labels_in(params)})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        empty = build({**params, "setup": []})
        lines = [t("ex.n.pool", lang, B=params["block_size"], n=params["num_blocks"])]
        if params.get("budget"):
            lines.append(t("ex.n.budget", lang, budget=params["budget"]))
        lines.append(queue_line(empty.bm, lang))
        for step, op in arrivals(params):
            tokens = encode(op[2])
            lines.append("- " + t("steps_table.before", lang, step=step) + t(
                "ex.n.arrives", lang, label=op[1], prompt=show_blocks(tokens, params["block_size"]), n=len(tokens),
                s="" if len(tokens) == 1 else "s", max_tokens=op[3]))
        return "\n".join(lines) + "\n\n" + t("steps_table.task", lang, steps=len(solved.answer))

    def parse(self, answer, params: dict, solved: Solved) -> list:
        known = solved.facts["labels"]
        rows = []
        for n, (runs, *counts) in enumerate(answers.parse_rows(answer, len(COLUMNS), len(solved.answer)), start=1):
            row = [sorted(answers.cell(lambda text: answers.parse_labels(text, known), runs, n, "steps_table.col.runs"))]
            row += [answers.cell(answers.parse_int, text, n, f"steps_table.col.{column}")
                    for text, column in zip(counts, COLUMNS[1:])]
            rows.append(row)
        return rows

    def diagnose(self, params: dict, solved: Solved, value: list) -> Feedback | None:
        for step, row in zip(solved.facts["steps"], value):
            for column, mine, right in zip(COLUMNS, row, step.row):
                if mine != right:
                    reason, fmt, misconception = getattr(self, f"why_{column}")(step, mine)
                    return Feedback(f"steps_table.mis.{reason}", {"step": step.step, **fmt}, misconception,
                                    lead=f"steps_table.first.{column}")
        return None

    # the first wrong cell, column by column: (message key suffix, its fields, misconception)
    @staticmethod
    def why_runs(s: Step, mine: list[str]):
        for label in sorted(set(mine) - set(s.runs)):
            if label in s.preempted:
                return "preempted", {"label": label}, "preempted_runs"
            if label in s.refused:
                need, free = s.refused[label]
                return "refused", {"label": label, "need": need, "free": free}, "admitted_without_room"
            if label not in s.before:
                return "not_there", {"label": label}, None
            if s.is_prefill and label not in s.waiting:
                return "prefill_only", {"label": label}, "prefill_with_decode"
        missing = set(s.runs) - set(mine)
        if missing & s.readmitted:
            return "readmitted", {}, "preempted_gone"
        if missing and s.is_prefill:
            return "admitted", {}, None
        if missing:
            return "decode_all", {}, None
        return "runs", {}, None

    @staticmethod
    def why_allocated(s: Step, mine: int):
        if s.revived and mine == s.allocated + s.revived:
            return "revived_allocated", {}, "revive_is_allocate"
        if s.shared and mine == s.allocated + s.shared:
            return "shared_allocated", {}, "share_is_allocate"
        if s.appended and mine == s.allocated - s.appended:
            return "boundary", {}, "decode_boundary"
        if not s.is_prefill and not s.appended and mine > s.allocated:
            return "no_boundary", {}, "decode_boundary"
        return "allocated", {}, None

    @staticmethod
    def why_hits(s: Step, mine: int):
        if s.revived and mine == s.shared:
            return "free_is_miss", {}, "free_is_miss"
        if not s.is_prefill and mine:
            return "decode_no_hits", {}, None
        if s.shared and mine == s.revived:
            return "used_missed", {}, None
        if s.full_hit_last and mine == s.hits + s.full_hit_last:
            return "last_block", {}, "last_block_hit"
        return "hits", {}, None

    @staticmethod
    def why_freed(s: Step, mine: int):
        if s.released > s.freed and mine == s.released:
            return "shared_kept", {}, "release_frees_shared"
        if s.freed_by_preemption and mine == s.freed - s.freed_by_preemption:
            return "preemption_frees", {}, "preemption_keeps_blocks"
        if s.freed_by_finish and mine == s.freed - s.freed_by_finish:
            return "finish_frees", {}, None
        return "freed", {}, None

    def answer_lines(self, params: dict, solved: Solved) -> int:
        return len(solved.answer)

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        header = [t("steps_table.col.step", lang), t("steps_table.col.phase", lang)] + [
            t(f"steps_table.col.{c}", lang) for c in COLUMNS] + [t("steps_table.col.notes", lang)]
        rows = []
        for s in solved.facts["steps"]:
            notes = [t("ex.n.preempted", lang, label=label) for label in s.preempted]
            notes += [t("steps_table.note.refused", lang, label=label, need=need, free=free)
                      for label, (need, free) in s.refused.items()]
            if s.appended:
                notes.append(t("steps_table.note.appended", lang, n=s.appended))
            if s.revived:
                notes.append(t("steps_table.note.revived", lang, n=s.revived))
            rows.append([s.step, t("steps_table.phase." + ("prefill" if s.is_prefill else "decode"), lang),
                         " ".join(s.runs), s.allocated, s.hits, s.freed, t("ex.n.then", lang).join(notes)])
        return (table(header, rows) + "\n\n" + t("steps_table.solution", lang) + "\n\n```\n"
                + self.answer_text(solved, lang) + "\n```")

    def answer_text(self, solved: Solved, lang: str) -> str:
        return "\n".join(f"{s.step} | {' '.join(s.runs)} | {s.allocated} | {s.hits} | {s.freed}"
                         for s in solved.facts["steps"])
