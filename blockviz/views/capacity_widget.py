"""The capacity view in a notebook: a slider over the KV memory (log scale) and one over the share
on the GPU; each move redraws views/render_capacity.py's picture (the curve answers any size at
once, so a redraw is a lookup). js/capacity.js places the sliders and the picture."""
import math

import anywidget
import traitlets

from blockviz.traffic.curve import Curve
from blockviz.traffic.units import Model, model as load_model
from blockviz.i18n import t
from blockviz.views.assets import JS
from blockviz.views.render_capacity import Measured, Setting, axis_range, render_capacity


class CapacityView(anywidget.AnyWidget):
    """CapacityView(curve, model="qwen3-8b", measured=render_capacity.measured(replays)): `total_tokens`
    and `gpu_share` (or the sliders) choose the budget and its split."""
    _esm = JS / "capacity.js"   # imports nothing: anywidget reads the file
    _css = JS / "capacity.css"
    html = traitlets.Unicode("").tag(sync=True)
    total_log = traitlets.Float(6.0).tag(sync=True)    # log10 of the budget in real tokens
    gpu_share = traitlets.Float(1.0).tag(sync=True)
    lo_log = traitlets.Float(3.0).tag(sync=True)
    hi_log = traitlets.Float(8.0).tag(sync=True)
    labels = traitlets.Dict({}).tag(sync=True)

    def __init__(self, curve: Curve, model: Model | str | None = "qwen3-8b", measured: list[Measured] = (),
                 total_tokens: int | None = None, gpu_share: float = 1.0, write_through: bool = True,
                 lang: str = "en", **kwargs):
        lo, hi = axis_range(curve)
        total = total_tokens if total_tokens is not None else curve.pool_for(curve.max_hit_rate / 2) or lo
        Setting(int(total), gpu_share)   # checked before anything is drawn
        super().__init__(**kwargs)
        self.curve, self.lang, self.write_through = curve, lang, write_through
        self.model = load_model(model) if isinstance(model, str) else model
        self.measured = list(measured)
        with self.hold_sync():
            self.lo_log, self.hi_log = math.log10(lo), math.log10(hi)
            self.labels = {"total": t("capacity.slider.total", lang), "split": t("capacity.slider.split", lang)}
            self.total_log, self.gpu_share = math.log10(max(total, 1)), gpu_share
        self.observe(lambda _: self.refresh(), names=["total_log", "gpu_share"])
        self.refresh()

    @property
    def setting(self) -> Setting:
        return Setting(int(round(10 ** self.total_log)), min(max(self.gpu_share, 0.0), 1.0), self.write_through)

    @property
    def total_tokens(self) -> int:
        return self.setting.total_tokens

    @total_tokens.setter
    def total_tokens(self, tokens: int):
        Setting(tokens)
        self.total_log = math.log10(max(tokens, 1))

    def refresh(self):
        self.html = render_capacity(self.curve, self.setting, self.model, self.measured, self.lang)
