"""The policy lab: one request stream through a real vLLM and blockviz's nano-vllm, side by side,
every difference between their prefix caches explained by the rule that causes it.

Both engines get the same model's tokens, block size 32 and as many usable blocks (vLLM started with
`--blocks N` keeps one null block, so nano-vllm gets N - 1); vLLM's generated token ids are
nano-vllm's script, so both hold identical sequences. Requests run in order, each to completion;
a group (a burst) is sent at once, and then vLLM's scheduler decides its own steps.

Run a stream (a server from `blockviz vllm serve --blocks 16 --dev-mode`, or the test fixture):

    from blockviz.vllm import Watch
    from blockviz.vllm.client import Client
    from blockviz.vllm.lab import run_lab, scripted, parse

    stream = scripted("refill")              # or "system", "chat", "document", "burst", "mixed"
    # stream = parse("hello there\\n> and then?\\n* one\\n* two", encode=tokenizer.encode)
    with Watch(events, api, replay) as watch:
        result = run_lab(stream, Client(api), watch)      # pool size read from the server's /metrics

Read the result (a LabResult; lists are per request):

    result.vllm[i].cached_tokens, result.nano[i].cached_tokens   # prompt tokens each took from its cache
    result.vllm[i].steps / .nano[i].steps     # Change(step, stored, evicted) per engine step
    result.vllm[i].resident                   # blocks (whole-prefix token keys) held afterwards
    result.hit_rates()                        # {"vllm": [...], "nano": [...]}: cumulative, per request
    result.differences                        # Difference(index, what, vllm, nano, ..., rules)
    result.unexplained                        # differences no rule explains (never hidden)
    result.block_name(key)                    # "label:block" for a key
    result.nano_session                       # nano-vllm's recorded run, for blockviz's views
    print(result.summary())

A difference is explained by re-running nano-vllm with vLLM's rules put in (nano.py), one set at a
time: free_unhashed_first (vLLM's free queue), register_when_scheduled (vLLM hashes a block when it
schedules it), running_cap (vLLM runs at most --max-num-seqs requests at once); the token check and
the last-token limits are checked directly. The rules, with the
source they were read from, are in rules.RULES; views/lab.py draws a result (LabView in a notebook).

Keep a run and show it again without a server (a lesson's recorded run):

    save_lab(result, "lab.json", note="vLLM 0.32.0, CPU")
    result, note = load_lab("lab.json")       # nano-vllm's side replayed now

`replay(...)` is the nano-vllm half alone (pure), for hand-built vLLM outcomes.
"""
from blockviz.vllm.lab.outcome import Change, Outcome, hit_rate_curve
from blockviz.vllm.lab.rules import RULES, Difference, explain
from blockviz.vllm.lab.run import LabResult, replay, run_lab
from blockviz.vllm.lab.saved import load_lab, save_lab
from blockviz.vllm.lab.stream import LabRequest, Source, check_stream, corpus_ids, parse, scripted

__all__ = ["run_lab", "replay", "LabResult", "LabRequest", "Source", "scripted", "parse", "check_stream",
           "corpus_ids", "save_lab", "load_lab", "Outcome", "Change", "Difference", "explain", "RULES",
           "hit_rate_curve"]
