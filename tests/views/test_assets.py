"""How the widgets get their front-end files: a module that imports nothing by its path (anywidget
reads it, and can reload it as it is edited); one that imports others joined by `module`."""
import importlib
import pkgutil

import anywidget
import pytest
from anywidget._file_contents import FileContents

import blockviz.views
from blockviz.views.assets import JS, RELATIVE_IMPORT, module
from blockviz.views.fleet_widget import FleetView
from blockviz.views.vllm_widget import ForestView


def widget_classes() -> list[type]:
    for info in pkgutil.iter_modules(blockviz.views.__path__, "blockviz.views."):
        importlib.import_module(info.name)
    found, todo = [], [anywidget.AnyWidget]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            module = importlib.import_module(sub.__module__)
            # the classes the package defines (an instance's add_traits makes a subclass of the same name)
            if sub.__module__.startswith("blockviz.views.") and getattr(module, sub.__name__, None) is sub \
                    and "_esm" in vars(sub):
                found.append(sub)
    return found


def test_a_module_that_imports_nothing_is_given_as_its_path():
    for widget, name in ((FleetView, "fleet.js"), (ForestView, "vllm_watch.js")):
        assert isinstance(widget._esm, FileContents), widget
        text = (JS / name).read_text(encoding="utf-8")
        assert str(widget._esm) == text and not RELATIVE_IMPORT.search(text)
        assert isinstance(widget._css, FileContents)


def test_every_joined_module_joins_files_that_import():
    """A widget's _esm string is never one file on its own: that file could be its path."""
    widgets = widget_classes()
    assert {FleetView, ForestView} <= set(widgets) and len(widgets) >= 5
    singles = {(JS / path.name).read_text(encoding="utf-8") for path in JS.glob("*.js")}
    for widget in widgets:
        esm = widget._esm
        assert isinstance(esm, FileContents) or (isinstance(esm, str) and esm not in singles), widget


def test_module_joins_each_import_before_its_importer_without_the_import_lines():
    frame, view = ((JS / name).read_text(encoding="utf-8") for name in ("frame.js", "view.js"))
    assert RELATIVE_IMPORT.search(view)
    assert module("frame.js", "view.js") == frame + "\n" + RELATIVE_IMPORT.sub("", view)
    with pytest.raises(ValueError, match="view.js imports frame.js"):
        module("view.js")
