"""The demo dashboard without a browser: generation, throttled views, typed prompts, the live loop."""
import asyncio
import re
import threading
import time

from blockviz.demo.app import Demo
from blockviz.demo.settings import SETTINGS_ENV
from blockviz.states import classify

from tests.views.svgtools import parse, with_attr


def pool_step(demo) -> int:
    return int(parse(demo.dashboard.pool.svg).get("data-step"))


def pool_states(demo) -> list[str]:
    return [el.get("data-state") for el in with_attr(parse(demo.dashboard.pool.svg), "data-block-id")]


def test_generate_serves_every_request_and_the_views_end_on_the_last_step(settings):
    demo = Demo(settings)
    assert len(demo.engine.seqs) == 1 and "A" in demo.table.value  # the first request waits in frame 0
    assert "runs the engine" in demo.dashboard.player.status
    demo.play()  # no event loop here: runs to the end
    engine = demo.engine
    assert engine.is_finished() and len(engine.seqs) == settings.requests
    assert demo.counts() == {"running": 0, "waiting": 0, "finished": 4}
    assert pool_step(demo) == engine.num_steps == engine.cursor
    assert pool_states(demo) == [s.value for s in classify(engine.snapshot())]
    assert f'data-step="{engine.num_steps}"' in demo.stats.value
    assert demo.table.value.count('data-status="finished"') == 4
    shared = sum(e.kind == "share" for s in range(engine.last_step + 1) for e in engine.events(s))
    assert shared > 0  # later requests reuse the system prompt's blocks
    # ... and the table still says so after they finished (num_cached_tokens is back to 0 by then)
    hits = re.findall(r'data-status="finished" data-label="\w+" data-seq="\d+" data-hit-blocks="(\d+)"', demo.table.value)
    assert len(hits) == 4 and sum(map(int, hits)) > 0
    assert all(seq.num_cached_tokens == 0 for seq in engine.snapshot().seqs.values())
    assert f'data-saved="{demo.ledger.tokens_saved}"' in demo.totals.value and demo.ledger.tokens_saved > 0


def test_under_sglang_the_demo_runs_on_the_radix_tree_and_says_so(settings):
    settings.policy = "sglang"
    demo = Demo(settings)
    assert demo.engine.policy.name == "sglang" and "policy sglang" in demo.header.value
    assert hasattr(demo.dashboard, "radix")   # the teacher's dashboard has the tree's tab
    demo.play()
    engine = demo.engine
    assert engine.is_finished() and demo.counts()["finished"] == settings.requests
    assert pool_step(demo) == engine.num_steps
    assert demo.ledger.radix and demo.ledger.tokens_saved > 0
    cells = re.findall(r'<td class="bv-hit">(.*?)</td>', demo.table.value)
    assert any("cached in the tree" in c for c in cells) and not any(" free" in c for c in cells)
    hits = re.findall(r'data-status="finished" data-label="\w+" data-seq="\d+" data-hit-blocks="(\d+)"', demo.table.value)
    assert len(hits) == settings.requests and sum(map(int, hits)) * settings.block_size == demo.ledger.tokens_saved
    message = demo.feed.message(demo.status(), full=True)   # what the class page gets
    assert message["parts"]["chain"] == "" and 'data-view="radix"' in message["parts"]["radix"]
    assert f'data-step="{engine.last_step}"' in message["parts"]["radix"]


def test_views_refresh_far_less_often_than_the_engine_steps(settings):
    settings.refresh_ms = 60_000
    demo = Demo(settings)
    demo.play()
    assert demo.runner.steps > 8
    assert demo.runner.refreshes == 2  # the first at once, then the one forced at the end
    assert pool_step(demo) == demo.engine.num_steps


def test_a_typed_prompt_becomes_a_request_after_the_system_prompt(settings):
    demo = Demo(settings)
    demo.prompt.value = "t40 t41 t42"
    demo.add_button.click()
    seq = list(demo.engine.seqs.values())[-1]
    assert seq.prompt_token_ids == demo.plan.system_ids + [40, 41, 42]
    assert "request B added" in demo.message.value and demo.prompt.value == ""
    assert 'data-label="B"' in demo.table.value  # listed at once, arriving at the next step
    demo.after_system.value = False
    demo.prompt.value = "t50"
    demo.add_button.click()
    assert list(demo.engine.seqs.values())[-1].prompt_token_ids == [50]


def test_bad_typed_prompts_are_refused_and_change_nothing(settings):
    demo = Demo(settings)
    before = len(demo.engine.seqs)
    demo.prompt.value = "   "
    demo.add_button.click()
    assert "type a prompt first" in demo.message.value
    demo.prompt.value = "t40"
    demo.max_tokens.value = 400
    demo.add_button.click()
    assert "not added" in demo.message.value and "the pool has 12" in demo.message.value
    assert len(demo.engine.seqs) == before and demo.prompt.value == "t40"


def test_the_live_loop_yields_between_steps_and_stepping_back_pauses_it(settings):
    demo = Demo(settings)

    async def scenario():
        demo.play()
        assert demo.live.task is not None and demo.playing  # returns at once: a task on the loop
        while demo.engine.num_steps < 3:
            await asyncio.sleep(0)
        demo.dashboard.player.seek(1)  # the player's ◀ while generating
        while demo.live.task is not None:
            await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(scenario(), 60))
    assert not demo.playing and demo.dashboard.step == 1
    assert "paused" in demo.message.value and "Generate" in demo.play_button.description

    async def resume():
        demo.play()
        while demo.runner.has_work:
            await asyncio.sleep(0)
        demo.pause()
        while demo.live.task is not None:
            await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(resume(), 60))
    assert demo.engine.is_finished() and demo.dashboard.step == demo.engine.last_step  # follows again


def test_generate_says_when_every_request_has_finished_and_what_a_new_one_does(settings):
    demo = Demo(settings)

    async def scenario():
        demo.play()
        while not demo.live.idle:
            await asyncio.sleep(0.001)
        assert demo.engine.is_finished() and demo.runner.all_added and demo.playing
        assert "every request has finished" in demo.message.value and "starts at once" in demo.message.value
        assert 'data-idle="1"' in demo.stats.value and "○ idle" in demo.stats.value
        assert "Pause" in demo.play_button.description
        seq = demo.add_request("t40 t41")  # what the notice promised: it starts at once
        while demo.engine.seqs[seq.seq_id].status == "waiting" or demo.live.idle:
            await asyncio.sleep(0.001)
        assert demo.message.value == "<span></span>" and "● live" in demo.stats.value
        while not demo.live.idle:
            await asyncio.sleep(0.001)
        demo.pause()
        while demo.live.task is not None:
            await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(scenario(), 60))
    assert not demo.live.idle and "every request" not in demo.message.value and "paused" in demo.stats.value


def test_a_pace_slows_the_engine_to_steps_a_class_can_follow(settings):
    settings.pace, settings.refresh_ms = 20, 1000  # steps per second; flat out the views would wait 1 s
    demo = Demo(settings)
    assert demo.pace.value == 20 and demo.runner.interval == 0.5 / 20

    async def run_paced():
        demo.play()
        while demo.engine.num_steps < 6:
            await asyncio.sleep(0.001)
        demo.pause()
        while demo.live.task is not None:
            await asyncio.sleep(0)

    start = time.perf_counter()
    asyncio.run(asyncio.wait_for(run_paced(), 60))
    assert time.perf_counter() - start >= 5 / 20
    assert demo.runner.refreshes >= 5  # paced: the views may show every step
    demo.pace.value = 0  # the control: as fast as it goes
    assert demo.steps_per_second == 0 and demo.runner.interval == 1.0
    assert demo.runner.budget == settings.view_budget


def test_clicks_from_another_thread_wait_for_the_engine_thread(settings):
    """ipykernel 7 may handle widget messages on a subshell thread: the demo hands them to its loop."""
    click = {"content": {"data": {"method": "custom", "content": {"event": "click"}}}, "buffers": []}

    async def scenario():
        demo = Demo(settings)
        handled = []
        demo.add_typed = lambda: handled.append(threading.current_thread())
        other = threading.Thread(target=demo.add_button.comm.handle_msg, args=(click,))
        other.start()
        other.join()
        assert handled == []  # not on the subshell thread: queued for the loop
        await asyncio.sleep(0)
        assert handled == [threading.current_thread()]

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_the_notebook_cell_reads_its_settings_from_the_environment(settings, tmp_path, monkeypatch):
    settings.lang = "zh"
    monkeypatch.setenv(SETTINGS_ENV, str(settings.save(tmp_path / "demo.json")))
    demo = Demo.from_settings()
    assert demo.settings == settings
    assert "开始生成" in demo.play_button.description
    assert Demo.from_settings() is demo  # a second page opening the notebook shares the running demo


def test_students_prompts_are_off_until_the_teacher_allows_them_and_shown_escaped(settings):
    demo = Demo(settings)
    before = len(demo.engine.seqs)
    hostile = '<img src=x onerror="alert(1)"> t40'
    demo.student_prompt(hostile, "10.0.0.7")
    assert len(demo.engine.seqs) == before and "off" in demo.student_list.value  # refused, but the teacher sees it
    demo.students_open.value = True
    demo.student_prompt(hostile, "10.0.0.7")
    seq = list(demo.engine.seqs.values())[-1]
    assert seq.prompt_token_ids[:len(demo.plan.system_ids)] == demo.plan.system_ids  # after the system prompt
    assert "<img" not in demo.student_list.value and "&lt;img" in demo.student_list.value
    assert "<img" not in demo.table.value  # (the tiny model decodes unknown words as t0; see test_render)
    assert "10.0.0.7" in demo.student_list.value


def test_students_cannot_fill_the_queue(settings):
    from blockviz.demo.app import MAX_STUDENT_WAITING
    demo = Demo(settings)
    demo.students_open.value = True
    for k in range(MAX_STUDENT_WAITING + 3):
        demo.student_prompt(f"t{40 + k}", "10.0.0.8")
    assert len(demo._student_ids) == MAX_STUDENT_WAITING
    assert "already waiting" in demo.student_list.value
