"""The lab's classifier and nano-vllm side against hand-built situations. The references (free
queues, cached tokens, what each engine holds) are worked out by hand in the comments, not by the code."""
import IPython.core.formatters
import pytest
from hypothesis import given, strategies as st

from blockviz.sim import Simulator
from blockviz.recording.events import BlockAllocated, HashRegistered
from blockviz.vllm.lab import LabRequest, Outcome, hit_rate_curve, parse, replay
from blockviz.vllm.lab import rules
from blockviz.vllm.lab.nano import lab_policy, run_nano
from blockviz.vllm.lab.stream import Source, batches, check_stream, chat, concat, refill

B = 4
A, Bq, C = (1, 2, 3, 4, 5, 6), (11, 12, 13, 14, 15, 16), (21, 22, 23, 24, 25, 26)
A0, B0, C0 = A[:4], Bq[:4], C[:4]


def lab_of(prompts, vllm, gen=(9,), blocks=5):
    stream = [LabRequest(p, len(gen)) for p in prompts]
    return replay(stream, list(prompts), [tuple(gen)] * len(prompts), vllm, B, blocks, record=False)


# Four requests of 6 tokens (a full block and a 2-token one), 1 generated token, pools of 4 usable
# blocks. nano-vllm, queue [0 1 2 3]: A takes 0 (A0) 1, frees 1 then 0 to the tail: [2 3 1 0]. B
# takes 2 (B0) 3: [1 0 3 2]. C takes 1 (C0) and 0, evicting A0: [3 2 0 1]. A again misses A0, takes
# 3 (A0) and 2, evicting B0. vLLM, queue [a b c d]: A takes a (A0) b; b has no hash so it goes to
# the head, a to the tail: [b c d a]. B: b (B0) c -> [c d a b]. C: c (C0) d -> [d a b c]. A again
# finds A0 in a: 4 cached tokens, and nothing was ever evicted.
VLLM_HANDMADE = [Outcome(0, (), frozenset({A0})), Outcome(0, (), frozenset({A0, B0})),
                 Outcome(0, (), frozenset({A0, B0, C0})), Outcome(4, (), frozenset({A0, B0, C0}))]


def test_nano_vllm_frees_every_block_to_the_tail_as_worked_out_by_hand():
    result = lab_of([A, Bq, C, A], VLLM_HANDMADE)
    assert [o.cached_tokens for o in result.nano] == [0, 0, 0, 0]
    assert [o.resident for o in result.nano] == [{A0}, {A0, B0}, {B0, C0}, {C0, A0}]
    assert [o.evicted for o in result.nano] == [[], [], [A0], [B0]]


def test_the_free_queue_rule_explains_what_vllm_kept():
    result = lab_of([A, Bq, C, A], VLLM_HANDMADE)
    found = {(d.index, d.what): d for d in result.differences}
    assert set(found) == {(2, "resident"), (3, "cached_tokens"), (3, "resident")}
    assert all(d.rules == (rules.FREE_UNHASHED_FIRST,) for d in found.values())
    assert found[(3, "cached_tokens")].vllm == 4 and found[(3, "cached_tokens")].nano == 0
    assert found[(2, "resident")].only_vllm == {A0} and not found[(2, "resident")].only_nano
    assert result.first_missing_block(found[(3, "cached_tokens")]) == A0
    assert rules.evicted_where(A0, result.nano, 3) == (2, result.nano[2].steps[0].step)
    assert not result.unexplained


def test_registering_when_scheduled_lets_a_request_of_the_same_step_hit():
    # X and Y share their first block and are sent at once. nano-vllm prefills both in one step: Y
    # probes X0 before the step registers it, misses, and computes its own copy (stored once: the
    # second copy of cached content is not new content). vLLM registers X0 when it schedules X, so Y,
    # scheduled next in the same step, takes 4 tokens.
    X, Y = (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 7, 8)
    stream = [LabRequest(X, 1, group=0), LabRequest(Y, 1, group=0)]
    vllm = [Outcome(0, (), frozenset({X[:4]})), Outcome(4, (), frozenset({X[:4]}))]
    result = replay(stream, [X, Y], [(9,), (9,)], vllm, B, 9, record=False)
    assert [o.cached_tokens for o in result.nano] == [0, 0]
    assert result.nano[1].stored == [X[:4]]
    assert result.variants[frozenset({rules.REGISTER_WHEN_SCHEDULED})][1].stored == [X[:4]]
    assert [(d.index, d.what, d.rules) for d in result.differences] == [
        (1, "cached_tokens", (rules.REGISTER_WHEN_SCHEDULED,))]


def test_vllms_running_cap_runs_a_burst_one_by_one_and_ties_are_all_shown():
    # with vLLM's max_num_seqs 1, X runs alone and Y, admitted after it, finds X0: 4 tokens. Putting
    # in either running_cap or register_when_scheduled makes nano-vllm do that: both are named
    X, Y = (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 7, 8)
    _, capped = run_nano([[(X, (9,)), (Y, (9,))]], 8, B, frozenset({rules.RUNNING_CAP}), max_num_seqs=1)
    _, in_turn = run_nano([[(X, (9,))], [(Y, (9,))]], 8, B)
    assert [o.cached_tokens for o in capped] == [o.cached_tokens for o in in_turn] == [0, 4]
    assert len({o.steps for o in capped}) == 1 and len(capped[0].steps) == 2   # one batch: X's step, then Y's
    stream = [LabRequest(X, 1, group=0), LabRequest(Y, 1, group=0)]
    vllm = [Outcome(0, (), frozenset({X[:4]})), Outcome(4, (), frozenset({X[:4]}))]
    result = replay(stream, [X, Y], [(9,), (9,)], vllm, B, 9, record=False, vllm_max_num_seqs=1)
    [d] = result.differences
    assert (d.rules, d.alternatives) == ((rules.REGISTER_WHEN_SCHEDULED,), ((rules.RUNNING_CAP,),))
    assert "register_when_scheduled (or running_cap)" in result.summary()
    with pytest.raises(ValueError, match="needs vLLM's max_num_seqs"):
        run_nano([[(X, (9,))]], 8, B, frozenset({rules.RUNNING_CAP}))


def test_a_difference_no_rule_makes_is_reported_unexplained():
    # vLLM claiming a hit on a prompt nobody sent before: no rule does that
    made_up = [Outcome(0, (), frozenset({A0})), Outcome(4, (), frozenset({A0, B0}))]
    result = lab_of([A, Bq], made_up)
    assert [(d.index, d.what, d.rules) for d in result.differences] == [(1, "cached_tokens", ())]
    assert result.unexplained == result.differences
    assert "UNEXPLAINED" in result.summary()
    # left bare in a notebook cell: the summary, not every prompt and outcome of the dataclass
    shown = IPython.core.formatters.DisplayFormatter().format(result)[0]["text/plain"]
    assert shown.startswith("<LabResult: 2 requests;") and "UNEXPLAINED" in shown and "prompts=" not in shown


def test_equal_engines_show_no_difference():
    same = [Outcome(0, (), frozenset({A0})), Outcome(4, (), frozenset({A0}))]
    assert lab_of([A, A], same).differences == []


def test_a_hash_collision_is_refused_by_nanos_token_check(monkeypatch):
    # every block hashes alike: B's first block finds A's hash holding other tokens; nano-vllm
    # refuses it, vLLM (trusting the hash) would take it, 4 tokens
    monkeypatch.setattr(lab_policy(frozenset()).block_manager, "compute_hash",
                        classmethod(lambda cls, tokens, prefix=-1: 7), raising=False)   # the lab's nano-vllm run
    _, nano = run_nano([[(A, (9,))], [(Bq, (9,))]], 4, B)
    assert nano[1].cached_tokens == 0 and nano[1].refused_block == 0
    trusting = [Outcome(0, (), nano[0].resident), Outcome(4, (), nano[1].resident)]
    result = lab_of([A, Bq], trusting)
    assert [(d.what, d.rules) for d in result.differences] == [("cached_tokens", (rules.TOKEN_CHECK,))]


@given(st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=1, max_size=13), st.integers(1, 6)),
                min_size=1, max_size=8), st.integers(4, 8))
def test_without_rules_the_lab_block_manager_decides_as_nano_vllm(requests, num_blocks):
    requests = [(p, n) for p, n in requests if -(-(len(p) + n) // B) <= num_blocks]
    if not requests:
        return
    plain = Simulator(num_blocks=num_blocks, block_size=B, eos=-1, record=False)
    for prompt, n in requests:
        plain.add(prompt, max_tokens=n, ignore_eos=True, script=[5] * n)
        plain.run()
    sim, _ = run_nano([[(tuple(p), (5,) * n)] for p, n in requests], num_blocks, B)
    ours, theirs = sim.scheduler.block_manager, plain.scheduler.block_manager
    assert list(ours.free_block_ids) == list(theirs.free_block_ids)
    assert ours.hash_to_block_id == theirs.hash_to_block_id


@given(st.lists(st.tuples(st.lists(st.integers(0, 2), min_size=1, max_size=13), st.integers(1, 6), st.booleans()),
                min_size=1, max_size=8))
def test_what_the_lab_logs_for_nano_is_what_its_recording_says(requests):
    # the per-step stores and evictions the lab shows are the recording's HashRegistered events that
    # made a new map entry and its evicting BlockAllocated events, step by step (a request flagged True
    # joins the previous one's batch)
    batches_in: list[list] = []
    for prompt, n, joins in requests:
        if -(-(len(prompt) + n) // B) > 8:
            continue
        if joins and batches_in:
            batches_in[-1].append((tuple(prompt), (5,) * n))
        else:
            batches_in.append([(tuple(prompt), (5,) * n)])
    if not batches_in:
        return
    sim, outcomes = run_nano(batches_in, 8, B, record=True)
    logged = {c.step: (len(c.stored), len(c.evicted)) for o in outcomes for c in o.steps}
    recorded = {step: (sum(isinstance(e, HashRegistered) and e.replaced_block_id == -1 for e in sim.events(step)),
                       sum(isinstance(e, BlockAllocated) and e.evicted_hash != -1 for e in sim.events(step)))
                for step in range(1, sim.last_step + 1)}
    assert logged == recorded


@given(st.integers(1, 5000), st.integers(1, 300))
def test_the_last_token_rules_of_both_engines_allow_the_same_hit(n, size):
    # nano-vllm probes every block but the last: count the blocks by cutting the prompt
    blocks = len([n for _ in range(0, n, size)])
    # vLLM: the longest whole-block run that leaves at least the last token to compute
    most = max(k for k in range(n + 1) if k * size <= n - 1)
    assert rules.hit_limits(n, size) == (blocks - 1, most)
    assert blocks - 1 == most


def test_hit_rate_curve_is_cumulative():
    assert hit_rate_curve([10, 10, 20], [0, 5, 20]) == [0.0, 0.25, 0.625]


def test_a_typed_stream():
    encode = lambda text: [ord(c) for c in text]
    stream = parse("# the system\nhi\n> more\n[5, 6, 7]\n* x\n* y\n\n* z\nlast", encode, max_tokens=3)
    assert [r.tokens for r in stream] == [(104, 105), (109, 111, 114, 101), (5, 6, 7), (120,), (121,), (122,),
                                          (108, 97, 115, 116)]
    assert [r.follows for r in stream] == [None, 0, None, None, None, None, None]
    assert [r.group for r in stream] == [None, None, None, 0, 0, 0, None]
    assert batches(stream) == [[0], [1], [2], [3, 4, 5], [6]]
    assert {r.max_tokens for r in stream} == {3}


@pytest.mark.parametrize("text, message", [("> first", "needs a request before it"),
                                           ("", "the stream is empty"),
                                           ("[1, 99999999999]", "not a token id")])
def test_a_typed_stream_with_a_mistake_says_where(text, message):
    with pytest.raises(ValueError, match=message):
        parse(text, lambda t: [1])


def test_a_chat_turn_cannot_be_sent_with_the_request_it_follows():
    with pytest.raises(ValueError, match="needs the reply first"):
        check_stream([LabRequest((1,), group=0), LabRequest((2,), follows=0, group=0)])


def test_chat_turns_are_built_on_the_previous_reply():
    source = Source(list(range(100, 400)))
    stream = concat(refill(source, distinct=2, again=1), chat(source, turns=3))
    assert [r.follows for r in stream] == [None, None, None, None, 3, 4]
    gen = [(1, 2)] * len(stream)
    prompts = []
    for i, r in enumerate(stream):
        prompts.append(r.tokens if r.follows is None else prompts[r.follows] + gen[r.follows] + r.tokens)
    result = replay(stream, prompts, gen, [Outcome(0, (), frozenset())] * len(stream), 32, 16, record=False)
    assert result.prompts[5][:len(prompts[4])] == prompts[4]

