"""The classroom demo: `blockviz demo` serves the teacher a dashboard where a real model generates
for many requests that share a system prompt, live, with every view following, and serves the class
a read-only page of the same engine.

    settings.py   the options (the block policy among them), checked up front; saved as JSON for the kernel
    live.py       LiveRunner: engine steps with throttled view refreshes (no widgets)
    loop.py       LiveLoop: ▶ Generate's asyncio loop (step, yield, refresh when due; pace)
    confine.py    every widget message handled on the engine's thread
    hits.py       each request's cache hit at admission, from the events, kept after it finishes
    render.py     header, status line, totals and requests table (pure HTML, both pages)
    app.py        Demo: the teacher's dashboard widget (▶ Generate, typed prompts, students' prompts)
    projector.py  the class page's pool and panels: the views' renderers at the projector's layout
                  (under policy "sglang" the radix tree in the hash chain's place)
    feed.py       the class page's messages: a full one, then patches
    link.py       the kernel's WebSocket to the class server (a thread of its own)
    classroom.py  the class server: the page, its files, the live feed, students' prompts
    server.py     `blockviz demo`: the teacher's JupyterLab (loopback, token, no terminals) and the class server
    static/       the class page's JS and CSS, the dashboard's CSS
"""
from blockviz.demo.live import LiveRunner
from blockviz.demo.settings import DemoError, DemoSettings

__all__ = ["Demo", "DemoError", "DemoSettings", "LiveRunner"]


def __getattr__(name):
    if name == "Demo":  # ipywidgets and torch only when the dashboard itself is asked for
        from blockviz.demo.app import Demo
        return Demo
    raise AttributeError(name)
