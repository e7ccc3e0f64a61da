"""Run the learner's block manager and the engine's side by side on one workload, step by step,
and stop at the first step where they differ."""
from dataclasses import dataclass

from blockviz.diy.compare import Mismatch, call_differences, differences
from blockviz.diy.faults import Fault, Stop, engine_raised
from blockviz.diy.pictures import Pictures
from blockviz.diy.side import Side
from blockviz.diy.workloads import SeededWorkload
from blockviz.engine.block_manager import BlockManager
from blockviz.workload import Player


@dataclass
class Divergence:
    workload: SeededWorkload
    step: int                             # 0: before the first step (the learner's __init__)
    differences: tuple[Mismatch, ...]   # with a fault: only a call that returned something else before it
    fault: Fault | None
    mine: Pictures | None                 # each side's pictures up to this step, when asked for
    engine: Pictures | None


def lockstep(learner: type, checked: tuple[str, ...], workload: SeededWorkload,
             pictures: bool = False) -> tuple[Divergence | None, int]:
    """The first divergence (None: the same at every step) and the steps compared."""
    engine = Side(BlockManager, (), workload, pictures)
    try:
        mine = Side(learner, checked, workload, pictures)
    except Stop as stop:
        return Divergence(workload, 0, (), stop.fault, None, engine.pictures), 0
    except Exception as e:  # arrange_free_queue on a pool the learner's __init__ built wrong
        return Divergence(workload, 0, (), engine_raised(e), None, engine.pictures), 0
    step = 0
    with Player(workload.workload, engine.sim) as player:  # the engine's side decides when requests arrive
        while True:
            mine.add([s.request for s in player.admit()])
            if step == 0:
                found = compare(workload, mine, engine, mine.outcome(), engine.outcome(), 0)
                if found:
                    return found, 0
            if player.done:
                return None, step
            step += 1
            ours, theirs = mine.step(), engine.step()
            player.stepped()
            found = compare(workload, mine, engine, ours, theirs, step)
            if found:
                return found, step


def compare(workload: SeededWorkload, mine: Side, engine: Side, mine_after, engine_after, step: int) -> Divergence | None:
    (ours, fault), (theirs, engine_fault) = mine_after, engine_after
    if engine_fault is not None:  # the workloads are ones the engine runs: this is the checker's bug
        raise RuntimeError(f"the engine failed on workload {workload.seed}: {engine_fault.message}")
    mine.picture(step)
    engine.picture(step)
    if fault is not None:  # what the learner's calls returned before it stopped can still differ
        made = mine.calls()
        early = call_differences(made, theirs.calls[:len(made)]) if step else []
        return Divergence(workload, step, tuple(early), fault, mine.pictures, engine.pictures)
    found = differences(ours, theirs)
    if found:
        return Divergence(workload, step, tuple(found), None, mine.pictures, engine.pictures)
    return None
