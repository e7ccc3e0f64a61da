"""The build-it-yourself track in stages: which BlockManager methods the learner writes in which lesson."""
from dataclasses import dataclass

from blockviz.diy.cacheless import CachelessBlockManager
from blockviz.engine.block_manager import BlockManager


@dataclass(frozen=True)
class Stage:
    name: str                 # what check(..., stage=) takes
    methods: tuple[str, ...]  # the learner writes these; every other method is the engine's
    lesson: str               # the notebook that teaches it
    cache: bool = True        # False: the engine runs with its prefix cache left out (cacheless.py)

    @property
    def reference(self) -> type:
        """The engine a check runs beside the learner's, and takes the other methods from."""
        return BlockManager if self.cache else CachelessBlockManager


STAGES = (
    # b0: the same methods as b1 and b2, written first for a pool with no cache (b1 and b2 rewrite them)
    Stage("paging", ("can_allocate", "_allocate_block", "allocate", "deallocate", "_deallocate_block"), "b0_paging",
          cache=False),
    Stage("allocate", ("can_allocate", "_allocate_block", "allocate"), "b1_allocate"),
    Stage("deallocate", ("deallocate", "_deallocate_block"), "b2_deallocate"),
    Stage("hash_blocks", ("hash_blocks",), "b3_hash_blocks"),
    Stage("decode", ("can_append", "may_append"), "b4_decode"),
)
# The stages of the whole engine, each method in one of them: what check(stage=None) and b4's last cell put together.
WHOLE = tuple(stage for stage in STAGES if stage.cache)
METHODS = tuple(name for stage in WHOLE for name in stage.methods)
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


def reference_of(stage: str | None) -> type:
    """The engine a check of `stage` compares with (None, every stage: the whole engine)."""
    return BlockManager if stage is None else stage_named(stage).reference
