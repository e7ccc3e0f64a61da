"""Run the learner's block manager and the engine's side by side on one workload, step by step,
and stop at the first step where they differ.

The engine's side runs here; the learner's in a child process (child.py) that sends each step's
plain values: the comparison is the parent's own code on the parent's own classes, whatever the
learner's code patched or broke in the child."""
import pickle
from dataclasses import dataclass

from blockviz.diy.child import Child, Send
from blockviz.diy.compare import Mismatch, StepResult, call_differences, differences
from blockviz.diy.culprit import Culprit, LoggedCall, culprit
from blockviz.diy.faults import Fault, Stop, engine_raised
from blockviz.diy.pictures import Pictures
from blockviz.diy.plain_values import plain
from blockviz.diy.checked_engine import Side
from blockviz.diy.position import WHERE
from blockviz.diy.workloads import SeededWorkload
from blockviz.engine.block_manager import BlockManager
from blockviz.workload import Driver, Request


@dataclass
class Divergence:
    workload: SeededWorkload
    step: int                             # 0: before the first step (the learner's __init__)
    differences: tuple[Mismatch, ...]   # with a fault: only a call that returned something else before it
    fault: Fault | None
    mine: Pictures | None                 # each side's pictures up to this step, when asked for
    engine: Pictures | None
    culprit: Culprit | None = None        # with pictures: the first call that went another way


@dataclass
class EngineRun:
    arrivals: list[tuple[Request, ...]]  # arrivals[s]: the requests added after step s (0: before the first)
    results: list[StepResult]            # results[s]: the engine after step s (0: after the first arrivals)
    pictures: Pictures | None
    calls: list[list[LoggedCall]]        # with pictures: calls[s], step s's calls as culprit.py keeps them


def lockstep(learner: type, checked: tuple[str, ...], workloads: list[SeededWorkload], pictures: bool = False,
             until: int | None = None, reference: type = BlockManager) -> tuple[Divergence | None, int, int]:
    """The first divergence over the workloads in turn (None: the same at every step of each), the
    workloads run and the steps compared; with `pictures`, each side's pictures up to step `until`
    (None: the end). One child runs the learner's side of them all. `reference` is the engine's
    side (stages.py: the whole engine, or the engine without its cache for lesson b0)."""
    engines = [run_engine(w, pictures, until, reference) for w in workloads]
    arrivals = [e.arrivals if until is None else e.arrivals[:until + 1] for e in engines]
    found: Divergence | None = None
    current, steps = 0, 0
    with Child(lambda send: run_learner(learner, checked, workloads, arrivals, pictures, send,
                                                     reference)) as child:
        for message in child.messages():
            kind = message[0]
            engine, workload = engines[current], workloads[current]
            if kind == "workload":
                current = message[1]
            elif kind == "step":
                step, ours, calls, labels = message[1:]
                steps += step > 0
                differing = differences(ours, engine.results[step])
                if differing:
                    at_fault = None if calls is None else culprit(calls, engine.calls[step], labels)
                    found = Divergence(workload, step, tuple(differing), None, None, engine.pictures, at_fault)
            elif kind == "fault":
                step, fault, made = message[1:]
                early = call_differences(made, engine.results[step].calls[:len(made)]) if step else []
                found = Divergence(workload, step, tuple(early), fault, None, engine.pictures)
            elif kind == "lost":
                step, method = WHERE.read()
                found = Divergence(workload, step, (), Fault("raised", method or "?", message[1], message[2]), None,
                                   engine.pictures)
            elif kind == "pictures":
                if found is not None:
                    found.mine = message[1]
                break
            if found is not None and not pictures:
                break
    return found, current + 1, steps


def run_engine(workload: SeededWorkload, pictures: bool, until: int | None,
               reference: type = BlockManager) -> EngineRun:
    """The engine's side to its end: what arrives when (as the learner's side is told) and each step."""
    engine = Side(reference, (), workload, pictures, reference)
    run = EngineRun([], [], engine.pictures, [])
    step = 0
    with Driver(workload.workload, engine.sim) as driver:  # the engine's side decides when requests arrive
        while True:
            run.arrivals.append(tuple(served.request for served in driver.admit()))
            if step == 0:
                run.results.append(engine_result(workload, engine.outcome()))
                run.calls.append(logged_calls(engine))
                take(engine, step, until)
            if driver.done or (until is not None and step >= until):
                return run
            step += 1
            run.results.append(engine_result(workload, engine.step()))
            run.calls.append(logged_calls(engine))
            driver.stepped()
            take(engine, step, until)


def engine_result(workload: SeededWorkload, after: tuple[StepResult | None, Fault | None]) -> StepResult:
    result, fault = after
    if fault is not None:  # the workloads are ones the engine runs: this is the checker's bug
        raise RuntimeError(f"the engine failed on workload {workload.seed}: {fault.message}")
    return result


def logged_calls(side: Side) -> list[LoggedCall]:
    return [] if side.pool_log is None else list(side.pool_log.calls)


def take(side: Side, step: int, until: int | None):
    if until is None or step <= until:
        side.picture(step)


def run_learner(learner: type, checked: tuple[str, ...], workloads: list[SeededWorkload],
                arrivals: list[list[tuple[Request, ...]]], pictures: bool, send: Send, reference: type = BlockManager):
    """In the child: the learner's side of each workload, step by step as the engine's arrivals say,
    each step sent; it stops at the first fault (the parent stops reading at the first difference)."""
    for index, workload in enumerate(workloads):
        send(("workload", index))
        mine = one_workload(learner, checked, workload, arrivals[index], pictures, send, reference)
        if mine is None or pictures:
            if pictures:
                send(("pictures", sendable(None if mine is None else mine.pictures)))
            return


def one_workload(learner: type, checked: tuple[str, ...], workload: SeededWorkload, arrivals: list[tuple[Request, ...]],
                 pictures: bool, send: Send, reference: type = BlockManager) -> Side | None:
    """The learner's side of one workload, sent step by step; None where it stopped with a fault."""
    WHERE.at(0, "")
    try:
        mine = Side(learner, checked, workload, pictures, reference)
    except Stop as stop:
        send(("fault", 0, stop.fault, ()))
        return None
    except Exception as e:  # arrange_free_queue on a pool the learner's __init__ built wrong
        send(("fault", 0, engine_raised(e), ()))
        return None
    for step, arriving in enumerate(arrivals):
        WHERE.at(step, "")
        if step == 0:
            mine.add(arriving)
        ours, fault = mine.outcome() if step == 0 else mine.step()
        mine.picture(step)
        if fault is not None:  # what the learner's calls returned before it stopped can still differ
            send(("fault", step, fault, plain(mine.calls())))
            return None if not pictures else mine
        with_calls = mine.pool_log is not None  # the run with pictures also finds the method at fault (culprit.py)
        send(("step", step, plain(ours), plain(mine.pool_log.calls) if with_calls else None,
              dict(mine.sim.labels) if with_calls else None))
        if step:
            mine.add(arriving)
    return mine


def sendable(pictures: Pictures | None) -> Pictures | None:
    """The pictures, unless the learner's values in them cannot travel (their reason kept instead)."""
    try:
        pickle.dumps(pictures)
        return pictures
    except Exception as e:
        if pictures is not None:
            pictures.frames.clear()
            pictures.unreadable = f"{type(e).__name__}: {e}"
        return pictures
