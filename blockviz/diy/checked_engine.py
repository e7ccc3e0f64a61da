"""One engine of a check: a Simulator whose scheduler runs a given BlockManager class as its block
policy (blockviz.policies: built in the engine's make_block_manager hook), with the scheduler's
calls into it logged, the learner's code under a line limit, and its pictures."""
from dataclasses import replace

from blockviz.diy.assemble import CallLog, assemble
from blockviz.diy.compare import StepResult
from blockviz.diy.culprit import PoolCallLog
from blockviz.diy.faults import Fault, Stop, engine_raised
from blockviz.diy.limit import LineLimit, codes_of
from blockviz.diy.pictures import Pictures
from blockviz.diy.state import state_of
from blockviz.diy.workloads import SeededWorkload
from blockviz.config import Config
from blockviz.engine.block_manager import BlockManager
from blockviz.policies import Policy
from blockviz.policies.scheduler import PolicyScheduler
from blockviz.recording.events import Scheduled
from blockviz.workload import Request, add


class BuildScheduler(PolicyScheduler):
    """nano-vllm's Scheduler around a block manager class of the check's choosing (its policy),
    remembering what schedule() decided (postprocess resets num_scheduled_tokens), also as the
    event the views read."""

    def __init__(self, config: Config, block_manager_class: type[BlockManager]):
        self.decided: tuple | None = None
        self.scheduled: Scheduled | None = None
        policy = Policy(f"build-it-yourself ({block_manager_class.__name__})", block_manager_class,
                        "the learner's BlockManager, the stage's reference for what it leaves out")
        super().__init__(config, policy, fast_free_queue=False)

    def schedule(self):
        self.decided = self.scheduled = None
        seqs, is_prefill = super().schedule()
        self.decided = (is_prefill, tuple((seq.seq_id, seq.num_scheduled_tokens) for seq in seqs))
        self.scheduled = Scheduled(is_prefill, tuple(s.seq_id for s in seqs), tuple(s.num_scheduled_tokens for s in seqs),
                                   tuple(s.num_cached_tokens for s in seqs))
        return seqs, is_prefill


class Side:

    def __init__(self, learner: type, checked: tuple[str, ...], seeded: SeededWorkload, pictures: bool,
                 reference: type = BlockManager):
        self.log = CallLog()
        self.pool_log = PoolCallLog() if pictures else None  # the run that draws the pictures also finds the method at fault
        block_manager, self.missing = assemble(learner, checked, self.log, seeded.hash_values, self.pool_log,
                                                reference)
        self.limit = LineLimit(codes_of(learner, BlockManager))
        order = seeded.workload.free_order
        self.sim = replace(seeded.workload, free_order=None).simulator(record=False)
        self.pictures = Pictures(self.sim) if pictures else None
        # Before any request, the Session's scheduler is rebuilt around this block manager (its
        # __init__ is the learner's when written): blockviz/engine stays nano-vllm's.
        with self.limit.step():
            self.sim.scheduler = BuildScheduler(self.sim.config, block_manager)
        if order is not None:
            self.sim.arrange_free_queue(list(order))

    def add(self, requests: list[Request]):
        for request in requests:
            add(self.sim, request)

    def step(self) -> tuple[StepResult | None, Fault | None]:
        """One engine step: what it did, or what stopped the learner's code."""
        self.log.calls.clear()
        if self.pool_log is not None:
            self.pool_log.calls.clear()
        failed = None
        try:
            with self.limit.step():
                self.sim.advance()
        except Stop as stop:
            return None, stop.fault
        except RuntimeError as e:  # the Session ended the step's batch with the engine's own error
            failed = str(e)
        except Exception as e:
            return None, engine_raised(e)
        return self.outcome(failed)

    def calls(self) -> tuple:
        """This step's calls so far, each request by its label."""
        labels = self.sim.labels
        return tuple((c.method, labels.get(c.seq_id, "?"), c.args, c.result) for c in self.log.calls)

    def outcome(self, failed: str | None = None) -> tuple[StepResult | None, Fault | None]:
        labels = self.sim.labels
        try:
            calls = self.calls()
            decided = self.sim.scheduler.decided
            if decided is not None:
                decided = (decided[0], tuple((labels[seq_id], n) for seq_id, n in decided[1]))
            return StepResult(calls, decided, failed, state_of(self.sim)), None
        except Exception as e:  # a state no engine can have: a block id that is not a block, say
            return None, engine_raised(e)

    def picture(self, step: int):
        if self.pictures is not None:
            scheduled = self.sim.scheduler.scheduled if step else None
            self.pictures.take(self.sim, step, () if scheduled is None else (scheduled,))
