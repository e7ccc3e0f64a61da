"""What a block-management policy is: a name, the BlockManager class that decides, and the code it
follows. The class is built as `block_manager(num_blocks, block_size)`, as the engine's
Scheduler.make_block_manager builds nano-vllm's, so a recording or a lab can put an instrumented
subclass over any policy's class."""
from dataclasses import dataclass

from blockviz.engine.block_manager import BlockManager


@dataclass(frozen=True)
class Policy:
    name: str
    block_manager: type[BlockManager]
    follows: str    # the upstream source it follows, by project and file
    records: bool = True   # the recording's events describe its decisions exactly (the player can step it)
    keyframes: bool = True  # a trace's keyframe (recording/keyframe.py: blocks, hash map, queues) holds all its state

    def __str__(self) -> str:
        return self.name
