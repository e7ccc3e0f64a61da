"""The policy lab in a notebook: a thin widget around views/lab.py's render_lab."""
import ipywidgets as w

from blockviz.views.lab import render_lab


class LabView(w.HTML):
    """`LabView(result)` shows a LabResult; `show(result)` replaces it (a new run)."""

    def __init__(self, result=None, lang: str = "en"):
        super().__init__()
        self.lang = lang
        if result is not None:
            self.show(result)

    def show(self, result):
        self.value = render_lab(result, self.lang)
