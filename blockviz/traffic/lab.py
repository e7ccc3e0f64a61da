"""A trace slice as a policy-lab stream (blockviz.vllm.lab), to send to a real vLLM beside nano-vllm.

Each request's prompt is made from its hash ids (tokens.prompt_tokens, tokens_per_id tokens an id,
inside the server's vocabulary), then cut so that prompt + max_tokens fits the server's
max_model_len; max_tokens is the request's output scaled alike, at most `max_tokens` (a CPU vLLM
generates slowly, and generated tokens are never shared). Requests with the same timestamp are one
group, sent at once (a burst); the others go one at a time, in order, each to completion: the
lab's way of playing a stream, not the trace's timing.
"""
from blockviz.traffic.lengths import output_length
from blockviz.traffic.tokens import prompt_tokens
from blockviz.traffic.trace import Trace
from blockviz.vllm.lab.stream import LabRequest, check_stream


def lab_stream(trace: Trace, vocab_size: int, max_model_len: int, tokens_per_id: int = 32,
               max_tokens: int = 8) -> list[LabRequest]:
    if max_tokens < 1 or max_model_len <= max_tokens:
        raise ValueError(f"max_model_len ({max_model_len}) must leave room for a prompt beside "
                         f"max_tokens ({max_tokens}, >= 1)")
    out = []
    for i in range(len(trace)):
        generate = min(max_tokens, output_length(int(trace.output_lengths[i]), tokens_per_id))
        prompt = prompt_tokens(trace.ids(i), int(trace.input_lengths[i]), tokens_per_id, vocab_size)
        same_time = [j for j in (i - 1, i + 1) if 0 <= j < len(trace)
                     and trace.timestamps_ms[j] == trace.timestamps_ms[i]]
        group = None
        if same_time:   # the index of the burst's first request names it
            group = i
            while group > 0 and trace.timestamps_ms[group - 1] == trace.timestamps_ms[i]:
                group -= 1
        out.append(LabRequest(tuple(prompt[:max_model_len - generate]), generate, group=group))
    return check_stream(out)
