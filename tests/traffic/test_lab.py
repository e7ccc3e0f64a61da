"""A trace slice as a policy-lab stream: prompts inside the vocabulary and max_model_len, bursts grouped."""
import pytest

from blockviz import traffic
from blockviz.traffic.lab import lab_stream
from blockviz.traffic.tokens import prompt_tokens
from blockviz.vllm.lab.stream import batches


def test_a_slice_becomes_a_lab_stream():
    trace = traffic.load("conversation").head(60)
    stream = lab_stream(trace, vocab_size=4096, max_model_len=512, tokens_per_id=32, max_tokens=8)
    assert len(stream) == len(trace)
    for i, r in enumerate(stream):
        assert len(r.tokens) + r.max_tokens <= 512 and max(r.tokens) < 4096 and 1 <= r.max_tokens <= 8
        full = prompt_tokens(trace.ids(i), int(trace.input_lengths[i]), 32, 4096)
        assert list(r.tokens) == full[:len(r.tokens)]
    # requests arriving at the same millisecond are sent at once, the others one by one
    times = trace.timestamps_ms.tolist()
    for batch in batches(stream):
        assert len({times[i] for i in batch}) == 1
        if len(batch) == 1:
            i = batch[0]
            assert times.count(times[i]) == 1
    assert any(len(b) > 1 for b in batches(stream))


def test_room_for_the_prompt():
    with pytest.raises(ValueError, match="must leave room"):
        lab_stream(traffic.load("conversation").head(3), 4096, max_model_len=8, max_tokens=8)
