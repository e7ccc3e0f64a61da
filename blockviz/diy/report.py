"""What a check found, in words (en/zh) and pictures: the first differing step, each side's pool
after it side by side, or what stopped the learner's code with where it happened."""
import re
from dataclasses import dataclass
from typing import Any, Callable

from blockviz.diy.lockstep import Divergence
from blockviz.diy.pictures import Pictures
from blockviz.diy.describe import BLOCK_FIELDS, culprit_text, describe, workload_text
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.views.render_view import render_view

MARKER = re.compile("\ue000(\\d+)\ue001")
MAX_SHOWN = 8  # differences listed at the first step; the rest counted


@dataclass
class Report:
    stage: str | None
    checked: tuple[str, ...]
    missing: tuple[str, ...]        # checked methods not written yet: the engine's ran in their place
    workloads: int                  # workloads run
    steps: int                      # steps compared
    divergence: Divergence | None
    lang: str = "en"
    flaky: bool = False             # the run with pictures went another way than the first

    @property
    def written(self) -> tuple[str, ...]:
        return tuple(m for m in self.checked if m not in self.missing)

    @property
    def passed(self) -> bool:
        return bool(self.written) and self.divergence is None

    @property
    def step(self) -> int | None:
        return None if self.divergence is None else self.divergence.step

    @property
    def fields(self) -> tuple[str, ...]:
        return () if self.divergence is None else tuple(d.field for d in self.divergence.differences)

    @property
    def fault(self):
        return None if self.divergence is None else self.divergence.fault

    @property
    def mine(self) -> Pictures | None:
        """The learner's side as a timeline the views read (frames 0 to the differing step)."""
        return None if self.divergence is None else self.divergence.mine

    @property
    def engine(self) -> Pictures | None:
        return None if self.divergence is None else self.divergence.engine

    # words -------------------------------------------------------------------------------
    def lines(self, lang: str | None = None, code: Callable[[Any], str] = str) -> list[str]:
        """The report's sentences; `code` formats each value (HTML wraps and escapes it)."""
        lang = lang or self.lang
        out = []
        if self.missing:
            out.append(t("diy.not_written", lang, methods=t("diy.list_sep", lang).join(map(code, self.missing))))
        if not self.written:
            out.append(t("diy.nothing", lang))
            return out
        d = self.divergence
        if d is None:
            return [t("diy.pass", lang, methods=t("diy.list_sep", lang).join(map(code, self.written)), workloads=code(self.workloads),
                      steps=code(self.steps))] + out
        out.insert(0, t("diy.fail", lang, seed=code(d.workload.seed), step=code(d.step)))
        if d.culprit is not None:
            out.insert(1, culprit_text(d.culprit, lang, code))
        for difference in d.differences[:MAX_SHOWN]:  # with a fault, a call that returned something else: its cause
            out.append(describe(difference, lang, code))
        if d.fault is not None:
            f = d.fault
            out.append(t(f"diy.fault.{f.kind}", lang, method=code(f.method), step=code(d.step), message=code(f.message),
                         limit=code(f.limit)))
        if len(d.differences) > MAX_SHOWN:
            out.append(t("diy.more", lang, n=code(len(d.differences) - MAX_SHOWN)))
        if d.step == 0:
            out.append(t("diy.before_first", lang))
        out.append(workload_text(d.workload, lang, code))
        if d.workload.hash_values is not None:
            out.append(t("diy.weak_hash", lang, values=code(d.workload.hash_values)))
        if self.flaky:
            out.append(t("diy.flaky", lang))
        return out

    def __str__(self) -> str:
        text = "\n".join(self.lines())
        if self.fault is not None:
            text += "\n" + self.fault.traceback
        return text

    # HTML --------------------------------------------------------------------------------
    def html(self, lang: str | None = None) -> str:
        lang = lang or self.lang
        head, *rest = html_lines(self, lang)
        parts = [f"<p><b>{head}</b></p>"] + [f"<p>{line}</p>" for line in rest]
        if self.fault is not None:
            parts.append(f"<p>{esc(t('diy.traceback', lang))}</p><pre style=\"font-size:12px\">"
                         f"{esc(self.fault.traceback)}</pre>")
        if self.divergence is not None:
            parts.append(self.pictures_html(lang))
        state = "none" if not self.written else str(self.passed).lower()
        step = "" if self.step is None else f' data-step="{self.step}"'
        return f'<div class="bv-build" data-passed="{state}"{step}>' + "".join(parts) + "</div>"

    def pictures_html(self, lang: str) -> str:
        d = self.divergence
        # the first block that differs is outlined in both pictures
        selected = next((x.where for x in d.differences if x.field in BLOCK_FIELDS), None)
        figures = []
        yours = "diy.yours" if d.fault is None else "diy.yours_stopped"
        for pictures, caption in ((d.mine, yours), (d.engine, "diy.engines")):
            figures.append(f'<figure style="margin:0;flex:1 1 0;min-width:0"><figcaption><b>'
                           f'{esc(t(caption, lang, step=d.step))}</b></figcaption>'
                           f'{picture(pictures, d.step, lang, selected)}</figure>')
        return '<div style="display:flex;gap:16px;align-items:flex-start">' + "".join(figures) + "</div>"

    def _repr_html_(self) -> str:
        return self.html()


def html_lines(report: Report, lang: str) -> list[str]:
    """The sentences escaped, each value in <code>: values go in as markers, the whole line is escaped,
    then each marker becomes its escaped value."""
    values: list = []

    def mark(value) -> str:
        values.append(value)
        return f"\ue000{len(values) - 1}\ue001"
    return [MARKER.sub(lambda m: f"<code>{esc(values[int(m[1])])}</code>", esc(line))
            for line in report.lines(lang, code=mark)]


def picture(pictures: Pictures | None, step: int, lang: str, selected: int | None = None) -> str:
    if pictures is not None and step < len(pictures.frames):
        try:
            # scaled to its half of the row: the two pools side by side at any width
            return render_view(pictures, "pool", step, lang=lang, selected=selected).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
        except Exception as e:  # a state no engine reaches can break a view: say so, keep the report
            reason = f"{type(e).__name__}: {e}"
        return esc(t("diy.no_picture", lang, reason=reason))
    reason = getattr(pictures, "unreadable", None) or "-"
    return esc(t("diy.no_picture", lang, reason=reason))
