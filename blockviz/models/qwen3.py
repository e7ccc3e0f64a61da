"""Qwen3 (and Qwen2-style attention_bias) for paged inference and for dense training.

Differences from nano-vllm's qwen3.py, on purpose:
- one device, so nn.Linear and its packed counterparts (layers/linear.py) instead of the
  tensor-parallel linears. q/k/v and gate/up are packed into qkv_proj and gate_up_proj as in
  nano-vllm (one matmul each), and packed_modules_mapping tells the loader which shard of them each
  HuggingFace tensor (q_proj, ..., up_proj) fills;
- tied embeddings share one Parameter (not just its data), so training updates a single matrix;
- one RoPE module per model, handed to every layer. nano-vllm shares one per process through
  lru_cache on get_rope; a second model moved to another device would then move the first one's.
  Per layer instead, Qwen3-0.6B's 40 960-position cos/sin cache would cost 28 × 42 MB.
"""
import torch
from torch import nn

from blockviz.layers.activation import SiluAndMul
from blockviz.layers.attention import Attention
from blockviz.layers.embed_head import LMHead, VocabEmbedding
from blockviz.layers.layernorm import RMSNorm
from blockviz.layers.linear import MergedLinear, QKVLinear
from blockviz.layers.rotary_embedding import RotaryEmbedding, get_rope
from blockviz.models.config import Qwen3Config, head_dim_of
from blockviz.utils.context import reset_context, set_context


class Qwen3Attention(nn.Module):

    def __init__(
        self,
        hidden_size: int,
        num_heads: int,
        num_kv_heads: int,
        head_dim: int | None,
        rms_norm_eps: float,
        qkv_bias: bool,
        rotary_emb: RotaryEmbedding,
    ) -> None:
        super().__init__()
        if num_heads % num_kv_heads:
            raise ValueError(f"num_attention_heads={num_heads} is not a multiple of num_key_value_heads={num_kv_heads}")
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim or hidden_size // num_heads
        self.q_size = num_heads * self.head_dim
        self.kv_size = num_kv_heads * self.head_dim
        self.qkv_bias = qkv_bias
        self.qkv_proj = QKVLinear(hidden_size, self.head_dim, num_heads, num_kv_heads, bias=qkv_bias)
        self.o_proj = nn.Linear(self.q_size, hidden_size, bias=False)
        self.rotary_emb = rotary_emb
        self.attn = Attention(num_heads, self.head_dim, self.head_dim ** -0.5, num_kv_heads)
        if not qkv_bias:
            # Qwen3 normalises each head's q and k; Qwen2 (with qkv bias) does not (nano-vllm's rule).
            self.q_norm = RMSNorm(self.head_dim, eps=rms_norm_eps)
            self.k_norm = RMSNorm(self.head_dim, eps=rms_norm_eps)

    def forward(self, positions: torch.Tensor, hidden_states: torch.Tensor) -> torch.Tensor:
        qkv = self.qkv_proj(hidden_states)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q = q.view(-1, self.num_heads, self.head_dim)
        k = k.view(-1, self.num_kv_heads, self.head_dim)
        v = v.view(-1, self.num_kv_heads, self.head_dim)
        if not self.qkv_bias:
            q = self.q_norm(q)
            k = self.k_norm(k)
        q, k = self.rotary_emb(positions, q, k)
        o = self.attn(q, k, v)
        return self.o_proj(o.flatten(1, -1))


class Qwen3MLP(nn.Module):

    def __init__(self, hidden_size: int, intermediate_size: int, hidden_act: str) -> None:
        super().__init__()
        if hidden_act != "silu":
            raise ValueError(f"hidden_act={hidden_act!r} is not supported (only 'silu')")
        self.gate_up_proj = MergedLinear(hidden_size, [intermediate_size] * 2, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)
        self.act_fn = SiluAndMul()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate_up = self.gate_up_proj(x)
        x = self.act_fn(gate_up)
        return self.down_proj(x)


class Qwen3DecoderLayer(nn.Module):

    def __init__(self, config: Qwen3Config, rotary_emb: RotaryEmbedding) -> None:
        super().__init__()
        self.self_attn = Qwen3Attention(
            hidden_size=config.hidden_size,
            num_heads=config.num_attention_heads,
            num_kv_heads=config.num_key_value_heads,
            head_dim=config.head_dim,
            rms_norm_eps=config.rms_norm_eps,
            qkv_bias=config.attention_bias,
            rotary_emb=rotary_emb,
        )
        self.mlp = Qwen3MLP(config.hidden_size, config.intermediate_size, config.hidden_act)
        self.input_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(
        self,
        positions: torch.Tensor,
        hidden_states: torch.Tensor,
        residual: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            hidden_states, residual = self.input_layernorm(hidden_states), hidden_states
        else:
            hidden_states, residual = self.input_layernorm(hidden_states, residual)
        hidden_states = self.self_attn(positions, hidden_states)
        hidden_states, residual = self.post_attention_layernorm(hidden_states, residual)
        hidden_states = self.mlp(hidden_states)
        return hidden_states, residual


class Qwen3Model(nn.Module):

    def __init__(self, config: Qwen3Config) -> None:
        super().__init__()
        self.embed_tokens = VocabEmbedding(config.vocab_size, config.hidden_size)
        rotary_emb = get_rope(head_dim_of(config), config.max_position_embeddings, config.rope_theta,
                              config.rope_scaling)
        self.layers = nn.ModuleList([Qwen3DecoderLayer(config, rotary_emb) for _ in range(config.num_hidden_layers)])
        self.norm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        hidden_states = self.embed_tokens(input_ids)
        residual = None
        for layer in self.layers:
            hidden_states, residual = layer(positions, hidden_states, residual)
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


class Qwen3ForCausalLM(nn.Module):
    # HuggingFace projection -> (packed module, its shard), as nano-vllm's loader reads it.
    packed_modules_mapping = {
        "q_proj": ("qkv_proj", "q"),
        "k_proj": ("qkv_proj", "k"),
        "v_proj": ("qkv_proj", "v"),
        "gate_proj": ("gate_up_proj", 0),
        "up_proj": ("gate_up_proj", 1),
    }

    def __init__(self, config: Qwen3Config) -> None:
        super().__init__()
        self.config = config
        self.model = Qwen3Model(config)
        self.lm_head = LMHead(config.vocab_size, config.hidden_size)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        # input_ids, positions: [N] packed tokens of this step; the Context says how they split.
        return self.model(input_ids, positions)

    def compute_logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden_states)

    def forward_dense(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Logits [S, T, vocab] for a batch of equal-length sequences, with no KV cache.

        Training and the reference side of the equivalence tests use this: the same modules, run as
        a prefill without block tables (plain causal attention over each row). Every slot is -1, so a
        bound KV cache is left untouched.
        """
        num_seqs, seq_len = input_ids.shape
        cu_seqlens = torch.arange(0, (num_seqs + 1) * seq_len, seq_len, dtype=torch.int32, device=input_ids.device)
        positions = torch.arange(seq_len, device=input_ids.device).repeat(num_seqs)
        slot_mapping = torch.full((num_seqs * seq_len,), -1, dtype=torch.long, device=input_ids.device)
        set_context(True, cu_seqlens, cu_seqlens, seq_len, seq_len, slot_mapping)
        try:
            hidden_states = self(input_ids.flatten(), positions)
        finally:
            reset_context()
        # With the context reset the head keeps every position, not only each row's last one.
        return self.compute_logits(hidden_states).view(num_seqs, seq_len, -1)
