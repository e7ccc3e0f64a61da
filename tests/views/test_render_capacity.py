"""The capacity view: every number it draws or writes is the curve's (Curve.hit_rate, Curve.tiers)
at the setting, in tokens and in GiB for the model; the policy's gain is the nearest replayed pool's;
the widget redraws when a slider moves."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockviz import traffic
from blockviz.traffic.trace import Trace
from blockviz.traffic.units import model
from blockviz.views import show
from blockviz.views.capacity_widget import CapacityView
from blockviz.views.render_capacity import Measured, Setting, measured, nearest, render_capacity
from tests.views.svgtools import parse, with_attr


def make_trace(prompts: list[list[int]], name: str = "t") -> Trace:
    offsets = np.cumsum([0] + [len(p) for p in prompts])
    return Trace(name, np.arange(len(prompts)) * 1000.0, np.array([512 * len(p) for p in prompts]),
                 np.array([4] * len(prompts)), offsets, np.array([h for p in prompts for h in p], dtype=np.int64))


# a shared first block, then conversations that come back after others ran
PROMPTS = [[1, 2, 3], [1, 4, 5], [1, 2, 3, 6], [1, 7, 8, 9], [1, 4, 5, 10], [1, 2, 3, 6, 11], [1, 7, 8, 9, 12]]
CURVE = traffic.curve(make_trace(PROMPTS), block_size=512)
QWEN = model("qwen3-8b")


def view(html: str):
    return parse(html.replace("<br>", "<br/>"))


def tiers_rows(html: str) -> dict[str, list[str]]:
    root = view(html)
    return {row.get("data-tier"): [cell.text for cell in row] for row in with_attr(root, "data-tier")}


@settings(max_examples=40, deadline=None)
@given(total=st.integers(0, 20 * 512), share=st.floats(0, 1), write_through=st.booleans())
def test_every_number_is_the_curves_at_the_setting(total, share, write_through):
    setting = Setting(total, share, write_through)
    html = render_capacity(CURVE, setting, QWEN)
    tiers = CURVE.tiers(setting.gpu_tokens, setting.cpu_tokens, write_through=write_through)
    root = view(html)
    assert float(root.get("data-gpu-rate")) == pytest.approx(CURVE.hit_rate(setting.gpu_tokens), abs=1e-6)
    assert float(root.get("data-cpu-rate")) == pytest.approx(tiers.cpu_hit_rate, abs=1e-6)
    rows = tiers_rows(html)
    assert rows["gpu"][1] == f"{setting.gpu_tokens:,}" and rows["cpu"][1] == f"{setting.cpu_tokens:,}"
    assert rows["both"][3] == f"{tiers.hit_rate * 100:.1f}%"
    gib = setting.total_tokens * QWEN.kv_bytes_per_token / 2**30
    assert rows["both"][2] == (f"{gib:,.1f} GiB" if gib >= 0.1 or gib == 0 else f"{gib * 1024:,.1f} MiB")
    gpu = next(c for c in with_attr(root, "data-point") if c.get("data-point") == "gpu")
    assert float(gpu.get("data-y")) == pytest.approx(CURVE.hit_rate(setting.gpu_tokens), abs=1e-6)


def test_a_write_through_cpu_pool_no_larger_than_the_gpu_adds_nothing_and_says_so():
    gpu = CURVE.pool_for(CURVE.max_hit_rate / 2)
    same = render_capacity(CURVE, Setting(2 * gpu, 0.5), QWEN)
    assert float(view(same).get("data-cpu-rate")) == 0 and "it adds no hit" in same
    victim = render_capacity(CURVE, Setting(2 * gpu, 0.5, write_through=False), QWEN)
    added = CURVE.hit_rate(2 * gpu) - CURVE.hit_rate(gpu)
    assert added > 0 and float(view(victim).get("data-cpu-rate")) == pytest.approx(added, abs=1e-6)
    assert "it adds no hit" not in victim


def test_the_curve_rises_left_to_right_and_the_max_line_is_the_curves():
    root = view(render_capacity(CURVE, Setting(4096), None))
    path = next(p for p in root.iter() if p.get("data-curve") is not None).get("d").split()
    ys = [float(v) for v in path[1::2]]   # "Mx y Lx y ...": y grows downwards
    assert all(b <= a for a, b in zip(ys, ys[1:])) and ys[0] > ys[-1]
    assert float(next(e for e in root.iter() if e.get("data-max")).get("data-max")) == pytest.approx(CURVE.max_hit_rate,
                                                                                                       abs=1e-6)


def test_the_policy_line_is_the_nearest_replayed_pool_on_a_log_scale():
    points = [Measured("t", 1000, 0.10, 0.12), Measured("t", 100_000, 0.30, 0.305)]
    assert nearest(points, 9000).pool_tokens == 1000 and nearest(points, 11_000).pool_tokens == 100_000
    html = render_capacity(CURVE, Setting(9000), QWEN, points)
    assert view(html).get("data-policy-pool") == "1000" and "+2.00 points" in html
    assert "cannot tell them apart" in render_capacity(CURVE, Setting(9000), QWEN)


def test_measured_pairs_both_policies_replays_of_a_pool_in_real_tokens():
    trace = make_trace(PROMPTS)
    runs = [traffic.replay(trace, pool, 32, tokens_per_id=32, policy=p) for pool in (128, 256) for p in traffic.POLICIES]
    points = measured(runs + [traffic.replay(trace, 512, 32, tokens_per_id=32)])   # one policy only: left out
    assert [m.pool_tokens for m in points] == [128 * 16, 256 * 16]
    assert points[0].nano_vllm == runs[0].hit_rate and points[0].vllm == runs[1].hit_rate


def test_text_is_escaped_and_both_languages_render():
    curve = traffic.curve(make_trace(PROMPTS, name="<script>x</script>"))
    html = render_capacity(curve, Setting(2048, 0.5), QWEN, [Measured("<b>", 2048, 0.1, 0.2)])
    assert "<script>" not in html and "<b>" not in html
    zh = render_capacity(curve, Setting(2048, 0.5), QWEN, lang="zh")
    assert "GPU 池" in zh and "GPU pool" not in zh


@pytest.mark.parametrize("bad", [dict(total_tokens=-1), dict(total_tokens=10, gpu_share=1.5)])
def test_a_bad_setting_is_refused(bad):
    with pytest.raises(ValueError):
        Setting(**bad)


def test_the_widget_redraws_when_a_slider_moves():
    w = show(CURVE, "capacity", model=QWEN, total_tokens=1024)
    assert isinstance(w, CapacityView) and w.total_tokens == 1024
    before = w.html
    w.total_log = math.log10(8192)
    assert w.total_tokens == 8192 and w.html != before
    assert view(w.html).get("data-gpu-tokens") == "8192"
    w.gpu_share = 0.25
    assert view(w.html).get("data-gpu-tokens") == "2048" and view(w.html).get("data-cpu-tokens") == "6144"
    assert w.lo_log < w.total_log < w.hi_log and set(w.labels) == {"total", "split"}
    with pytest.raises(ValueError):
        show(CURVE, "capacity", model=QWEN, gpu_share=2)
