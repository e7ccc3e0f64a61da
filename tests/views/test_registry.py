"""The one table of views: every row names a widget class that exists, the names that show() accepts
are the table's, and what the exports draw is what the table says has a picture."""
import pytest

from blockviz.views import registry
from blockviz.views.export import export_svg


@pytest.mark.parametrize("view", registry.ENGINE_VIEWS + registry.TRAFFIC_VIEWS + registry.WATCH_VIEWS,
                         ids=lambda v: v.name)
def test_every_row_names_a_widget_class(view):
    widget = registry.widget((view,), view.name)
    assert isinstance(widget, type) and widget.__name__ == view.widget.partition(":")[2]


def test_a_name_outside_a_table_has_no_widget():
    assert registry.widget(registry.WATCH_VIEWS, "pool") is None
    assert registry.widget(registry.ENGINE_VIEWS, "forest") is None


def test_a_view_without_a_picture_is_not_exported(tmp_path):
    from blockviz import Simulator
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("the cat sat", max_tokens=2)
    sim.run()
    without = [v.name for v in registry.ENGINE_VIEWS if v.picture is None]
    assert without == ["dashboard", "player"] and not set(without) & set(registry.EXPORTED)
    for name in without:
        with pytest.raises(ValueError, match="unknown view"):
            export_svg(sim, tmp_path / f"{name}.svg", name)
