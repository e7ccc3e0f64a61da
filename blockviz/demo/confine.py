"""One thread owns the engine. ipykernel 7 may handle a widget's messages on a subshell thread while
the main thread runs the generation task, so every widget of the demo hands its messages to the
event loop the demo was built on: a click can never land in the middle of a step."""
import asyncio
import threading

import ipywidgets as w


def widget_tree(widget):
    """A widget and everything inside it: children, tabs, layouts and styles."""
    seen, stack = set(), [widget]
    while stack:
        part = stack.pop()
        if not isinstance(part, w.Widget) or id(part) in seen:
            continue
        seen.add(id(part))
        yield part
        stack.extend(getattr(part, "children", ()))
        stack.extend(x for x in (getattr(part, "layout", None), getattr(part, "style", None)) if x is not None)


def confine_messages(widget, loop: asyncio.AbstractEventLoop, thread: threading.Thread):
    """Handle every frontend message of `widget`'s tree on `loop` (which runs in `thread`), in the
    order they arrive, whichever thread the kernel received them on."""
    for part in widget_tree(widget):
        comm = getattr(part, "comm", None)
        if comm is None:
            continue

        def on_msg(msg, handle=part._handle_msg):
            if threading.current_thread() is thread:
                loop.call_soon(handle, msg)  # behind any message already passed over from another thread
            else:
                loop.call_soon_threadsafe(handle, msg)

        comm.on_msg(on_msg)
