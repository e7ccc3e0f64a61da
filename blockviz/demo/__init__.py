"""The classroom demo: `blockviz demo` serves a dashboard where a real model generates for many
requests that share a system prompt, live, with every view following.

    settings.py  the options, checked up front; saved as JSON for the notebook's kernel
    live.py      LiveRunner: engine steps with throttled view refreshes (no widgets)
    app.py       Demo: the dashboard widget (▶ Generate, typed prompts, the views, the requests)
    server.py    writes the demo notebook and serves it with JupyterLab, token-protected
"""
from blockviz.demo.live import LiveRunner
from blockviz.demo.settings import DemoError, DemoSettings

__all__ = ["Demo", "DemoError", "DemoSettings", "LiveRunner"]


def __getattr__(name):
    if name == "Demo":  # ipywidgets and torch only when the dashboard itself is asked for
        from blockviz.demo.app import Demo
        return Demo
    raise AttributeError(name)
