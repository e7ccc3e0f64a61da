"""Packed linears: several projections of the same input as one matmul.

Single-device counterparts of nano-vllm's MergedColumnParallelLinear and QKVParallelLinear: one
weight [sum(output_sizes), input_size] whose rows are the packed projections' weights stacked in
order, so one F.linear computes them all (one call instead of two or three; a small model's step
is mostly the cost of each call). A checkpoint stores each projection under its own HuggingFace
name (q_proj, k_proj, ...): the loader copies it into its shard of the packed weight
(`shard(param, shard_id)`, nano-vllm's weight_loader without the tensor-parallel chunking).
"""
import torch
from torch import nn


class MergedLinear(nn.Linear):

    def __init__(self, input_size: int, output_sizes: list[int], bias: bool = False) -> None:
        super().__init__(input_size, sum(output_sizes), bias=bias)
        self.output_sizes = output_sizes

    def shard_index(self, shard_id: int | str) -> int:
        return shard_id

    def shard(self, param: torch.Tensor, shard_id: int | str) -> torch.Tensor:
        """The rows of `param` (this module's weight or bias) that belong to one packed projection."""
        index = self.shard_index(shard_id)
        offset = sum(self.output_sizes[:index])
        return param.narrow(0, offset, self.output_sizes[index])


class QKVLinear(MergedLinear):
    # Rows: q (num_heads × head_size), then k and v (num_kv_heads × head_size each).

    def __init__(self, hidden_size: int, head_size: int, num_heads: int, num_kv_heads: int,
                 bias: bool = False) -> None:
        q_size, kv_size = num_heads * head_size, num_kv_heads * head_size
        super().__init__(hidden_size, [q_size, kv_size, kv_size], bias=bias)

    def shard_index(self, shard_id: int | str) -> int:
        return ("q", "k", "v").index(shard_id)
