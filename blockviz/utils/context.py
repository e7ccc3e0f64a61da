from dataclasses import dataclass

import torch


@dataclass
class Context:
    # Per-step attention metadata, as in nano-vllm: the model runner sets it before a forward pass
    # so that every Attention layer reads the same slots and block tables without threading them
    # through each module's signature.
    is_prefill: bool = False
    cu_seqlens_q: torch.Tensor | None = None   # [num_seqs + 1] prefix sums of new-token counts
    cu_seqlens_k: torch.Tensor | None = None   # [num_seqs + 1] prefix sums of key counts
    max_seqlen_q: int = 0
    max_seqlen_k: int = 0
    slot_mapping: torch.Tensor | None = None   # [num_new_tokens] slot = block_id * B + offset, -1 = skip
    context_lens: torch.Tensor | None = None   # [num_seqs] keys per sequence in decode
    block_tables: torch.Tensor | None = None   # [num_seqs, max_blocks] physical block ids, -1 padded


_CONTEXT = Context()


def get_context() -> Context:
    return _CONTEXT


def set_context(
    is_prefill: bool,
    cu_seqlens_q: torch.Tensor | None = None,
    cu_seqlens_k: torch.Tensor | None = None,
    max_seqlen_q: int = 0,
    max_seqlen_k: int = 0,
    slot_mapping: torch.Tensor | None = None,
    context_lens: torch.Tensor | None = None,
    block_tables: torch.Tensor | None = None,
) -> None:
    global _CONTEXT
    _CONTEXT = Context(is_prefill, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                       slot_mapping, context_lens, block_tables)


def reset_context() -> None:
    global _CONTEXT
    _CONTEXT = Context()
