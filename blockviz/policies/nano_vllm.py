"""nano-vllm's own block management: the engine's BlockManager, untouched."""
from blockviz.engine.block_manager import BlockManager
from blockviz.policies.policy import Policy

POLICY = Policy("nano-vllm", BlockManager,
                "nano-vllm: nanovllm/engine/block_manager.py (blockviz/engine/block_manager.py, line for line)")
