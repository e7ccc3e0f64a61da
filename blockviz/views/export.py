"""Static exports for slides and readers without a kernel: SVG, PNG, GIF and a self-contained HTML player.

Views: those registry.py draws as a picture (EXPORTED): the SVG ones (render_view, rasterised through
matplotlib) and "metrics" (a matplotlib figure).
"""
from pathlib import Path

from matplotlib.animation import PillowWriter
from matplotlib.figure import Figure

from blockviz.i18n import t
from blockviz.recording.events import RequestAdded
from blockviz.views.assets import JS
from blockviz.views.render_metrics import metrics_rows, render_metrics
from blockviz.views.render_view import has_kv, render_view
from blockviz.views.svg import esc
from blockviz.views.svg_raster import draw_svg, svg_figure, svg_size
from blockviz.views.recording_index import KVIndex, RecordingIndex


def indexes(timeline) -> tuple[RecordingIndex, KVIndex]:
    """Shared across the steps of one export, so each frame is read once."""
    snapshot = timeline.snapshot(timeline.first_step)
    return RecordingIndex(), KVIndex(snapshot.num_blocks, snapshot.block_size)


def recorded_steps(timeline) -> range:
    return range(timeline.first_step, timeline.last_step + 1)


def first_busy_step(timeline) -> int:
    """The first step where something happens: anything besides requests arriving (before the
    first engine step the pool is all free, a picture that says nothing)."""
    for step in recorded_steps(timeline):
        if any(not isinstance(event, RequestAdded) for event in timeline.events(step)):
            return step
    return timeline.first_step


def _figure(timeline, view: str, step: int, lang: str, dpi: float, **options) -> Figure:
    if view == "metrics":
        return render_metrics(metrics_rows(timeline.frames), cursor=step, lang=lang)
    return svg_figure(render_view(timeline, view, step, lang=lang, **options), dpi=dpi)


def export_svg(timeline, path, view: str = "pool", step: int | None = None, *, lang: str = "en",
               **options) -> Path:
    step = timeline.cursor if step is None else step
    path = Path(path)
    if view == "metrics":
        _figure(timeline, view, step, lang, 100).savefig(path, format="svg")
    else:
        path.write_text(render_view(timeline, view, step, lang=lang, **options), encoding="utf-8")
    return path


def export_png(timeline, path, view: str = "pool", step: int | None = None, *, lang: str = "en",
               dpi: float = 100, **options) -> Path:
    step = timeline.cursor if step is None else step
    path = Path(path)
    _figure(timeline, view, step, lang, dpi, **options).savefig(path, format="png", dpi=dpi)
    return path


def export_gif(timeline, path, view: str = "pool", steps=None, *, fps: float = 2, lang: str = "en",
               dpi: float = 100, from_start: bool = False, **options) -> Path:
    """An animated GIF of `steps` through matplotlib's PillowWriter. Default: every recorded step
    from the first where something happens (see first_busy_step), or with `from_start` from the
    first recorded step."""
    if steps is None:
        steps = range(timeline.first_step if from_start else first_busy_step(timeline), timeline.last_step + 1)
    steps = list(steps)
    path = Path(path)
    writer = PillowWriter(fps=fps)
    if view == "metrics":
        rows = metrics_rows(timeline.frames)
        fig = Figure(figsize=(10, 6), dpi=dpi, layout="constrained")
        with writer.saving(fig, str(path), dpi):
            for step in steps:
                render_metrics(rows, cursor=step, lang=lang, fig=fig)
                writer.grab_frame()
        return path
    index, kv_index = indexes(timeline)
    svgs = [render_view(timeline, view, step, lang=lang, index=index, kv_index=kv_index, **options) for step in steps]
    sizes = [svg_size(svg) for svg in svgs]
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes)  # one canvas fits every frame
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    with writer.saving(fig, str(path), dpi):
        for svg in svgs:
            fig.clear()
            draw_svg(fig, svg, width, height)
            writer.grab_frame()
    return path


PLAYER_JS = JS / "export_player.js"
PLAYER_CSS = JS / "export_player.css"


def export_html(timeline, path, views=None, steps=None, *, lang: str = "en", title: str | None = None,
                **options) -> Path:
    """One HTML file with every chosen step's views rendered in, and js/export_player.js inlined to
    step through them (buttons, slider, arrow keys, space). Needs no kernel and no network.
    Default views: pool, mapping, chain, events, and kv when the timeline records K/V values."""
    views = views or ("pool", "mapping", "chain", "events") + (("kv",) if has_kv(timeline) else ())
    steps = list(recorded_steps(timeline) if steps is None else steps)
    title = title or t("player.title", lang)
    index, kv_index = indexes(timeline)
    frames = []
    for step in steps:
        svgs = "".join(render_view(timeline, view, step, lang=lang, index=index, kv_index=kv_index, **options)
                       for view in views)
        frame_title = t("player.frame", lang, step=step, last=steps[-1])
        frames.append(f'<section class="bv-frame" data-step="{step}" data-title="{esc(frame_title)}" hidden>'
                      f'{svgs}</section>')
    buttons = (f'<button id="bv-back" aria-label="{esc(t("player.back", lang))}">◀</button>'
               f'<button id="bv-forward" aria-label="{esc(t("player.forward", lang))}">▶</button>'
               f'<button id="bv-play" data-play="▷ {esc(t("player.play", lang))}" '
               f'data-pause="❚❚ {esc(t("player.pause", lang))}">▷ {esc(t("player.play", lang))}</button>'
               f'<input id="bv-slider" type="range" min="0" max="{len(steps) - 1}" value="0" '
               f'aria-label="{esc(t("player.jump", lang))}"> <span id="bv-label" aria-live="polite"></span>')
    css, script = PLAYER_CSS.read_text(encoding="utf-8"), PLAYER_JS.read_text(encoding="utf-8")
    page = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f'<style>{css}</style></head><body><h1 style="font-size:1.2em">{esc(title)}</h1>'
            f'<div class="bv-controls">{buttons}</div>{"".join(frames)}'
            f'<script>{script}</script></body></html>')
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path

