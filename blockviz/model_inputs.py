"""What ModelRunner.prepare_prefill / prepare_decode build for a batch, as plain lists: for the
lessons (model_inputs on a live LLM) and the exercises (prepare_inputs on the Simulator's batch,
no model loaded)."""
from contextlib import contextmanager
from typing import Any


def prepare_inputs(seqs: list, is_prefill: bool, block_size: int) -> dict[str, Any]:
    """What ModelRunner.prepare_prefill / prepare_decode build for a batch of Sequences: the model
    runner's own methods (not a copy), called on a stand-in that has a block size and a device but
    no model and no KV pool, so no model is loaded."""
    import torch
    from blockviz.engine.model_runner import ModelRunner
    from blockviz.utils.context import get_context, reset_context

    class InputsOnly:
        prepare_block_tables = ModelRunner.prepare_block_tables
        prepare_prefill = ModelRunner.prepare_prefill
        prepare_decode = ModelRunner.prepare_decode

        def __init__(self):
            self.block_size, self.device = block_size, torch.device("cpu")

    runner = InputsOnly()
    input_ids, positions = (runner.prepare_prefill if is_prefill else runner.prepare_decode)(seqs)
    try:
        return {"input_ids": input_ids.tolist(), "positions": positions.tolist(), **context_dict(get_context())}
    finally:
        reset_context()


def context_dict(context) -> dict[str, Any]:
    """The attention metadata a prepare_* call set (utils/context.py), as plain lists."""
    return {name: (value.tolist() if hasattr(value, "tolist") else value) for name, value in vars(context).items()}


@contextmanager
def model_inputs(runner, log: list | None = None):
    """While inside, log what a live ModelRunner's prepare_prefill / prepare_decode built in every step:
    input_ids, positions and the attention context (slot_mapping, cu_seqlens, block_tables, ...)."""
    from blockviz.utils.context import get_context
    log = [] if log is None else log
    originals = {name: getattr(runner, name) for name in ("prepare_prefill", "prepare_decode")}

    def wrap(name, method):
        def wrapper(seqs):
            input_ids, positions = method(seqs)
            log.append({"is_prefill": name == "prepare_prefill", "input_ids": input_ids.tolist(),
                        "positions": positions.tolist(), **context_dict(get_context())})
            return input_ids, positions
        return wrapper

    for name, method in originals.items():
        setattr(runner, name, wrap(name, method))
    try:
        yield log
    finally:
        for name in originals:
            delattr(runner, name)  # the class's method shows through again
