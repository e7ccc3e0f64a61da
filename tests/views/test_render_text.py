"""The plain-text steps table: one row per step, headers and phases in the reader's language, columns
aligned in a monospace font (a Chinese character takes two columns)."""
from blockviz import Simulator
from blockviz.views.render_text import render_steps_table
from blockviz.views.svg import columns


def run():
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("the cat sat", max_tokens=3)
    sim.run()
    return sim


def test_one_row_per_step_in_each_language():
    sim = run()
    en, zh = render_steps_table(sim.frames).splitlines(), render_steps_table(sim.frames, lang="zh").splitlines()
    assert len(en) == len(zh) == sim.last_step + 2
    assert en[0].split()[:3] == ["step", "phase", "scheduled"] and "prefill" in en[2]
    assert zh[0].split()[:3] == ["步", "阶段", "本步调度"] and "预填充" in zh[2] and "prefill" not in "".join(zh)


def test_columns_line_up_with_wide_characters():
    table = render_steps_table(run().frames, lang="zh").splitlines()
    header, first = table[0], table[1]
    # the third column starts at the same screen column in every row
    start = columns(header[:header.index("本步调度")])
    assert columns(first[:first.index("-")]) == start
