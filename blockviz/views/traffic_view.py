"""The traffic view of a replay as a thing Jupyter shows (its HTML: render_traffic.py draws it).
show(replay, "traffic") makes one; show(replay) the dashboard over the replay's recording."""
from blockviz.traffic.replay import Replay
from blockviz.views.render_forest import MAX_CELLS
from blockviz.views.render_traffic import render_traffic


class TrafficView:

    def __init__(self, replay: Replay, lang: str = "en", bin_s: float = 60, max_cells: int = MAX_CELLS):
        self.replay, self.lang, self.bin_s, self.max_cells = replay, lang, bin_s, max_cells

    def _repr_html_(self) -> str:
        return render_traffic(self.replay, bin_s=self.bin_s, lang=self.lang, max_cells=self.max_cells)


def recorded_engine(replay: Replay):
    """The replay's Simulator, which the timeline views read: only a replay made with record=True has
    a recording."""
    if not replay.engine.record:
        raise ValueError("this replay kept no recording: replay(..., record=True) for the dashboard, "
                         "or show(replay, 'traffic') for the traffic view")
    return replay.engine
