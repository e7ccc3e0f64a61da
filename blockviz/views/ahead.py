"""Steps sent ahead, so a page steps at once on ◀ ▶ instead of waiting for the kernel.

A widget round trip through JupyterLab and the kernel takes about 60 ms on its own, so a step that
waits for Python cannot draw within 50 ms. So while a player shows step s, the pool it drives also
sends the patches of the steps around s (AHEAD after it, BEHIND before it, within the steps
recorded: at the live end none after), each chained from the one before: s → s+1 → s+2 … and
s → s-1 → s-2, every picture with a version of its own. The page (js/step_ahead.js) keeps them
keyed by their base version and, on ◀ ▶, applies the one from the version it shows to the step
wanted, then tells Python the step. Python then sends that same patch to the pool's other pages
(a page that stepped already ignores it: it shows that version), moves the other panes and sends
the patches around the new step, reusing those still chained from it.
"""
from itertools import chain, zip_longest
from json import dumps
from typing import Callable, NamedTuple

from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import PoolPicture

AHEAD, BEHIND = 4, 2
# JSON characters of patches sent ahead in all: at 1024 blocks a prefill's patch is about 230 kB
BUDGET = 1_000_000


def steps_around(step: int, first: int, last: int) -> list[int]:
    """The steps sent ahead of `step` among first..last, nearest first, after before before:
    s+1, s-1, s+2, s-2, s+3, s+4."""
    after = range(step + 1, min(step + AHEAD, last) + 1)
    before = range(step - 1, max(step - BEHIND, first) - 1, -1)
    return [k for k in chain.from_iterable(zip_longest(after, before)) if k is not None]


class Sent(NamedTuple):
    base: int              # the version the patch applies to
    version: int           # the version it makes: the picture of `step`
    step: int
    frame: object          # the frame drawn, and the view's options: the picture is still right while both are
    options: tuple
    picture: PoolPicture
    text: str              # {"step", "base", "version", **pool_patch(...)} as JSON, as the page gets it


class Ahead:
    """The patches a pool widget sent ahead, keyed by (base version, step)."""

    def __init__(self):
        self.sent: dict[tuple[int, int], Sent] = {}

    def around(self, timeline, step: int, version: int, picture: PoolPicture, options: tuple,
               draw: Callable[[int], PoolPicture], new_version: Callable[[], int]) -> str:
        """The patches around `step` shown as `version` (`picture`), as the JSON list the page gets:
        nearest first, each chain ending where the next patch would pass BUDGET."""
        tips = {+1: (version, picture), -1: (version, picture)}  # where each chain has got to
        sent, size = {}, 0
        for k in steps_around(step, timeline.first_step, timeline.last_step):
            direction = 1 if k > step else -1
            if direction not in tips:
                continue
            base, shown = tips[direction]
            frame = timeline.frame(k)
            was = self.sent.get((base, k))
            if was is None or was.frame is not frame or was.options != options:
                new = draw(k)
                version_k = new_version()
                text = dumps({"step": k, "base": base, "version": version_k, **pool_patch(shown, new)},
                             ensure_ascii=False, separators=(",", ":"))
                was = Sent(base, version_k, k, frame, options, new, text)
            if size + len(was.text) > BUDGET:
                del tips[direction]
                continue
            size += len(was.text)
            sent[(base, k)] = was
            tips[direction] = (was.version, was.picture)
        self.sent = sent
        return "[" + ",".join(s.text for s in sent.values()) + "]"

    def taken(self, base: int, step: int, picture: PoolPicture) -> Sent | None:
        """The patch sent ahead from `base` to `step`, if it gives `picture`: the one a page that
        stepped at once applied."""
        sent = self.sent.get((base, step))
        return sent if sent is not None and sent.picture == picture else None
