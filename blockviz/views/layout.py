"""The sizes a view is drawn at, so one renderer draws both the notebook's pictures and the class
page's (blockviz/demo/): NOTEBOOK for a 900 px notebook column read at arm's length, PROJECTOR for
a 1920×1080 screen read from the back of a room, where no text is under 18 px and each picture
shows fewer, larger lines.

A renderer takes its font sizes from the layout by role (title, text, small, glyph) and its other
lengths as the notebook's, through px(): in proportion to the layout's body text."""
from dataclasses import dataclass

BASE_TEXT = 11  # the notebook's body text: px() lengths are drawn for it


@dataclass(frozen=True)
class Layout:
    title: float          # a picture's header and a cell's number, bold
    text: float           # body text: tokens, narration, legend lines
    small: float          # secondary lines (a cell's state, ref count and queue place)
    glyph: float          # a state's glyph, written as text or drawn as a shape
    line: float           # baseline to baseline, between two lines of text
    cell: tuple[float, float]  # a pool block's cell (not a compact one): width, height
    gap: float            # between two cells
    pad: float            # round a picture
    legend_columns: int   # 1: a line per state with its meaning; more: name and count only, this many a row
    max_events: int       # narrated lines in the event log
    width: float          # the widest a chain, mapping or event log may be
    window_tokens: int    # tokens the mapping shows at most
    radix_rows: int       # node rows of the radix tree

    def px(self, length: float) -> float:
        """A length the notebook's layout draws `length` px long, in this layout."""
        k = self.text / BASE_TEXT
        return length if k == 1 else round(length * k, 1)


NOTEBOOK = Layout(title=12, text=11, small=10, glyph=14, line=16, cell=(100, 84), gap=4, pad=8, legend_columns=1,
                  max_events=200, width=800, window_tokens=64, radix_rows=300)

# Every text >= 18 px. Cells of 168×116 put 40 blocks (the demo's pool) in 7 columns on the part
# of the screen beside the class page's panels (demo/projector.py: POOL_AREA); the panels are
# about 600 px wide there.
PROJECTOR = Layout(title=20, text=18, small=18, glyph=20, line=22, cell=(168, 116), gap=6, pad=8, legend_columns=3,
                   max_events=40, width=600, window_tokens=16, radix_rows=40)
