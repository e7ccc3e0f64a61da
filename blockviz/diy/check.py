"""check(MyBlockManager, "allocate"): the learner's methods against the engine's on seeded random
workloads, the first step where they differ reported with both pictures.

Lesson b0's stage ("paging") runs beside nano-vllm's engine with its prefix cache left out
(cacheless.py: `hash_blocks` registers nothing, every other method is nano-vllm's own). Its
comparison skips no field: every block's hash stays -1 and its token_ids empty, and
hash_to_block_id stays empty, on both sides, since nothing registers; a learner who keeps no hash
state matches them as they are. Its workloads are the same seeded ones with the real hash (a weak
hash, there to make blocks collide in the cache, has nothing to collide in)."""
from dataclasses import replace

from blockviz.diy.assemble import missing_of
from blockviz.diy.lockstep import lockstep
from blockviz.diy.report import Report
from blockviz.diy.stages import methods_checked, reference_of
from blockviz.diy.workloads import workload
from blockviz.brief import brief
from blockviz.checks import whole
from blockviz.engine.block_manager import BlockManager
from blockviz.i18n import LANGS


def check(block_manager: type, stage: str | None = None, *, workloads: int = 40, seed: int = 0,
          lang: str = "en") -> Report:
    """Run `workloads` workloads (seeds seed, seed + 1, ...) through nano-vllm's Scheduler twice, once
    with `block_manager` (a BlockManager subclass, or a class with the same attributes and methods)
    and once with the engine's, comparing every step. `stage` picks the methods checked (see
    stages.py; None: all of them); the others, and any not written yet (a bare
    `raise NotImplementedError`), are the engine's: for "paging", the engine without its cache, which
    is then also the side compared with (see above)."""
    if not isinstance(block_manager, type):
        raise TypeError(f"check() takes the class itself (MyBlockManager, not MyBlockManager(...)), "
                        f"got {brief(block_manager)}")
    whole("workloads", workloads, 1)
    whole("seed", seed, 0)
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {brief(lang)}")
    checked = methods_checked(stage)
    missing = missing_of(block_manager, checked)
    report = Report(stage, checked, missing, 0, 0, None, lang)
    if not report.written:
        return report
    reference = reference_of(stage)
    seeded = [workload(seed + i) for i in range(workloads)]
    if reference is not BlockManager:  # no cache: no hash to weaken
        seeded = [replace(w, hash_values=None) for w in seeded]
    divergence, report.workloads, report.steps = lockstep(block_manager, checked, seeded, reference=reference)
    if divergence is not None:
        # run it again, keeping each step's pictures up to the difference (cheap: one workload)
        again = lockstep(block_manager, checked, [divergence.workload], pictures=True, until=divergence.step,
                         reference=reference)[0]
        report.flaky = again is None or again.step != divergence.step
        report.divergence = again if again is not None else divergence
    return report
