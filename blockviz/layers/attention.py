import torch
import torch.nn.functional as F
from torch import nn

from blockviz.utils.context import get_context


def store_kvcache(
    key: torch.Tensor,
    value: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    """Write each new token's K/V into its slot of the paged pool.

    key/value: [N, kv_heads, head_dim]; k_cache/v_cache: [num_blocks, block_size, kv_heads, head_dim];
    slot_mapping: [N], slot = block_id * block_size + offset. Slot -1 means "do not write" (nano-vllm
    uses it for tokens whose K/V are already in the pool).
    """
    if bool((slot_mapping < 0).any()):  # only dense runs skip; selecting costs more than writing
        keep = slot_mapping >= 0
        key, value, slot_mapping = key[keep], value[keep], slot_mapping[keep]
    # A flat view makes slot arithmetic literal: row `slot` is (block, offset) = divmod(slot, B).
    k_cache.view(-1, *k_cache.shape[2:])[slot_mapping] = key.to(k_cache.dtype)
    v_cache.view(-1, *v_cache.shape[2:])[slot_mapping] = value.to(v_cache.dtype)


def gather_kv(cache: torch.Tensor, block_tables: torch.Tensor, num_keys: int) -> torch.Tensor:
    """Read the first `num_keys` positions of each sequence back through its block table.

    cache: [num_blocks, B, kv_heads, head_dim]; block_tables: [S, max_blocks] (-1 = no block).
    Returns [S, num_keys, kv_heads, head_dim]. Position t of a sequence lives in physical block
    block_table[t // B] at offset t % B (slot block_table[t // B] * B + t % B); entries past a
    table's end read block 0 and must be masked.
    """
    block_size = cache.size(1)
    # Block b holds slots b * B ... b * B + B - 1, so the table's blocks laid end to end list every
    # position's slot in order: entry t is block_table[t // block_size] * B + t % block_size. Cut at
    # num_keys, then one index_select of those rows of the flat pool: exactly num_keys keys per
    # sequence, however large a block is. (Whole blocks would read 256 keys per request at block
    # size 256 for a 70-token context; slot by slot with tensor indexing costs twice as much.)
    offsets = torch.arange(block_size, dtype=block_tables.dtype, device=block_tables.device)
    slots = (block_tables.clamp(min=0)[:, :, None] * block_size + offsets).flatten(1)[:, :num_keys]
    rows = cache.flatten(0, 1).index_select(0, slots.flatten())
    return rows.view(*slots.shape, *cache.shape[2:])


def _pad(x: torch.Tensor, cu_seqlens: torch.Tensor, max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    # Packed rows [N, ...] -> [S, max_len, ...] plus the mask of real rows.
    lens = cu_seqlens[1:] - cu_seqlens[:-1]
    t = torch.arange(max_len, device=x.device)
    valid = t[None, :] < lens[:, None]
    idx = (cu_seqlens[:-1, None] + t[None, :]).clamp(max=max(x.size(0) - 1, 0))
    return x.index_select(0, idx.flatten()).view(*idx.shape, *x.shape[1:]), valid  # x[idx], faster


def masked_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
                     scale: float) -> torch.Tensor:
    """q: [S, Lq, H, D] over k, v: [S, Lk, H_kv, D], query i of sequence s seeing key j where
    allowed[s, i, j]. Returns [S, Lq, H, D]."""
    num_seqs, len_q, num_heads, head_dim = q.shape
    num_kv_heads = k.size(2)
    group = num_heads // num_kv_heads
    # GQA: query head h reads KV head h // group (the HF and flash-attn convention). Rather than
    # copy every KV head `group` times, the group's query heads become more query rows of their KV
    # head, [S, kv_heads, Lq * group, D], each row keeping its token's mask row: the same scores,
    # without the copy (half the attention time on CPU). The mask rows are repeated by a broadcast
    # view, which stays a view (no op at all) in decode, where Lq is 1.
    q = q.reshape(num_seqs, len_q, num_kv_heads, group, head_dim).transpose(1, 2)
    mask = allowed[:, None, :, None, :].expand(-1, -1, -1, group, -1).flatten(2, 3)
    out = F.scaled_dot_product_attention(
        q.reshape(num_seqs, num_kv_heads, len_q * group, head_dim), k.transpose(1, 2), v.transpose(1, 2),
        attn_mask=mask, scale=scale,
    )
    out = out.view(num_seqs, num_kv_heads, len_q, group, head_dim).transpose(1, 2)
    return out.reshape(num_seqs, len_q, num_heads, head_dim)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    seqlens_q: torch.Tensor,
    seqlens_k: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """Causal attention for S sequences, each with its own query and key count.

    q: [S, Lq, H, D]; k, v: [S, Lk, H_kv, D]. The new queries are the LAST seqlens_q[s] of the
    seqlens_k[s] positions, so the causal mask is aligned bottom-right: query i sees keys
    j <= i + (Lk_s - Lq_s). Padded query rows see every real key (never an empty row) and are
    dropped by the caller.
    """
    i = torch.arange(q.size(1), device=q.device)[None, :, None]
    j = torch.arange(k.size(1), device=q.device)[None, None, :]
    shift = (seqlens_k - seqlens_q)[:, None, None]
    allowed = (j <= i + shift) & (j < seqlens_k[:, None, None])
    return masked_attention(q, k, v, allowed, scale)


def varlen_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    cu_seqlens_k: torch.Tensor,
    max_seqlen_q: int,
    max_seqlen_k: int,
    scale: float,
    block_tables: torch.Tensor | None = None,
    k_cache: torch.Tensor | None = None,
    v_cache: torch.Tensor | None = None,
) -> torch.Tensor:
    """Prefill over packed sequences, the plain-torch stand-in for flash_attn_varlen_func.

    Without block tables the keys are the new tokens themselves. With block tables (a cached
    prefix, or a later chunk of a chunked prefill) the keys are read from the pool, which already
    holds this step's K/V because store_kvcache ran first.
    """
    num_seqs = cu_seqlens_q.numel() - 1
    if block_tables is None and q.size(0) == num_seqs * max_seqlen_q:
        # Every sequence is max_seqlen_q new tokens and has no others (fresh prompts of one length,
        # forward_dense): the packed rows are already [S, L], with nothing to pad and no mask but
        # the causal triangle, which sdpa applies itself. Known from shapes alone; twice as fast.
        q, k, v = (x.unflatten(0, (num_seqs, max_seqlen_q)).transpose(1, 2) for x in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
        return out.transpose(1, 2).flatten(0, 1)
    q_pad, q_valid = _pad(q, cu_seqlens_q, max_seqlen_q)
    seqlens_q = cu_seqlens_q[1:] - cu_seqlens_q[:-1]
    seqlens_k = cu_seqlens_k[1:] - cu_seqlens_k[:-1]
    if block_tables is None:
        k_pad, _ = _pad(k, cu_seqlens_k, max_seqlen_k)
        v_pad, _ = _pad(v, cu_seqlens_k, max_seqlen_k)
    else:
        k_pad = gather_kv(k_cache, block_tables, max_seqlen_k)
        v_pad = gather_kv(v_cache, block_tables, max_seqlen_k)
    out = padded_attention(q_pad, k_pad, v_pad, seqlens_q, seqlens_k, scale)
    return out[q_valid]


def paged_decode_attention(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    context_lens: torch.Tensor,
    block_tables: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """Decode: one query per sequence over its context_lens[s] keys, read through its block table."""
    # As with flash_attn_with_kvcache(cache_seqlens=context_lens, block_table=...), the key count
    # comes from context_lens: keys up to the batch's longest context, not the tables' whole blocks.
    # A shorter request's row runs past its own length (into the rest of its last block, or its -1
    # padding read as block 0) and the mask hides that; nothing past the longest context is read.
    max_len = int(context_lens.max())
    k = gather_kv(k_cache, block_tables, max_len)
    v = gather_kv(v_cache, block_tables, max_len)
    # padded_attention's mask with one query, the last position: it sees exactly the first
    # context_lens keys, and the gathered tail past them is hidden.
    allowed = torch.arange(max_len, device=q.device)[None, None, :] < context_lens[:, None, None]
    return masked_attention(q[:, None], k, v, allowed, scale)[:, 0]


class Attention(nn.Module):

    def __init__(self, num_heads: int, head_dim: int, scale: float, num_kv_heads: int) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.scale = scale
        self.num_kv_heads = num_kv_heads
        # Views into the engine's one KV tensor, bound by the model runner; empty = no cache
        # (training and dense reference runs).
        self.k_cache = self.v_cache = torch.tensor([])

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        # q: [N, num_heads, head_dim]; k, v: [N, num_kv_heads, head_dim]; N = tokens this step.
        context = get_context()
        k_cache, v_cache = self.k_cache, self.v_cache
        if k_cache.numel() and v_cache.numel():
            store_kvcache(k, v, k_cache, v_cache, context.slot_mapping)
        if context.is_prefill:
            return varlen_attention(
                q, k, v, context.cu_seqlens_q, context.cu_seqlens_k,
                context.max_seqlen_q, context.max_seqlen_k, self.scale,
                context.block_tables, k_cache, v_cache,
            )
        return paged_decode_attention(q, k_cache, v_cache, context.context_lens, context.block_tables, self.scale)
