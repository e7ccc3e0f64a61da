"""The build-it-yourself track in stages: which BlockManager methods the learner writes in which lesson."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str                 # what check(..., stage=) takes
    methods: tuple[str, ...]  # the learner writes these; every other method is the engine's
    lesson: str               # the notebook that teaches it


STAGES = (
    Stage("allocate", ("can_allocate", "_allocate_block", "allocate"), "b1_allocate"),
    Stage("deallocate", ("deallocate", "_deallocate_block"), "b2_deallocate"),
    Stage("hash_blocks", ("hash_blocks",), "b3_hash_blocks"),
    Stage("decode", ("can_append", "may_append"), "b4_decode"),
)
METHODS = tuple(name for stage in STAGES for name in stage.methods)
# What the scheduler calls: each call and what it returned is compared, not only the state after.
CALLED_BY_SCHEDULER = ("can_allocate", "allocate", "deallocate", "can_append", "may_append", "hash_blocks")


def stage_named(name: str) -> Stage:
    for stage in STAGES:
        if stage.name == name:
            return stage
    raise ValueError(f"unknown stage {name!r}; the stages are {', '.join(s.name for s in STAGES)}")


def methods_checked(stage: str | None) -> tuple[str, ...]:
    """The learner's methods a check runs: one stage's, or (None) every stage's."""
    return METHODS if stage is None else stage_named(stage).methods
