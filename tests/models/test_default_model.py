"""The shipped default model loads, and its greedy continuations read as words of its corpus."""
import re

import pytest
import torch
from tokenizers import Tokenizer

from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.loader import load_model

PROMPTS = [
    "It is a truth universally acknowledged, that",
    "Elinor was obliged to",
    "\"My dear Mr. Bennet,\" said his lady to him one day,",
    "Anne had never seen",
]
WORD = re.compile(r"[a-z]+")


@pytest.fixture(scope="module")
def default_model() -> tuple[Qwen3ForCausalLM, Tokenizer]:
    config = Qwen3Config.from_pretrained(DEFAULT_MODEL_DIR)
    model = Qwen3ForCausalLM(config).eval()
    load_model(model, DEFAULT_MODEL_DIR)
    return model, Tokenizer.from_file(str(DEFAULT_MODEL_DIR / "tokenizer.json"))


def test_files_are_small_and_safe():
    weights = DEFAULT_MODEL_DIR / "model.safetensors"
    assert weights.stat().st_size <= 20 * 2**20
    assert not list(DEFAULT_MODEL_DIR.glob("*.bin")) and not list(DEFAULT_MODEL_DIR.glob("*.pt"))


def test_architecture_is_qwen3_with_gqa_and_tied_embeddings(default_model):
    model, tokenizer = default_model
    c = model.config
    assert c.architectures == ("Qwen3ForCausalLM",)
    assert c.num_key_value_heads < c.num_attention_heads
    assert c.tie_word_embeddings and not c.attention_bias
    assert tokenizer.id_to_token(c.eos_token_id) == "<|endoftext|>"
    assert tokenizer.get_vocab_size() == c.vocab_size


@torch.no_grad()
def test_greedy_continuations_are_corpus_words(default_model):
    model, tokenizer = default_model
    corpus = " ".join(f.read_text(encoding="utf-8") for f in (DEFAULT_MODEL_DIR / "corpus").glob("*.txt"))
    vocabulary = set(WORD.findall(corpus.lower()))
    generated = []
    for prompt in PROMPTS:
        ids = tokenizer.encode(prompt).ids
        out = []
        for _ in range(40):
            next_id = int(model.forward_dense(torch.tensor([ids + out]))[0, -1].argmax())
            if next_id == model.config.eos_token_id:
                break
            out.append(next_id)
        generated += WORD.findall(tokenizer.decode(out).lower())
    assert len(generated) >= 30, generated
    unknown = [w for w in generated if w not in vocabulary]
    assert len(unknown) <= 0.1 * len(generated), f"{len(unknown)}/{len(generated)} words not in the corpus: {unknown}"
