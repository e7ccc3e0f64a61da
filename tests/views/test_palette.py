"""Every pair of block-state colours, and every pair of probe-outcome colours, stays apart for
readers with the common colour-vision deficiencies and in grayscale. The simulation and the
distance come from ColorAide, not from theme.py: Machado, Oliveira and Fernandes (2009) at full
severity for protanopia, deuteranopia and tritanopia, and CIEDE2000 between the results;
grayscale is the colour's relative luminance as a grey."""
from itertools import combinations

import pytest
from coloraide import Color

from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

# CIEDE2000 of about 2 is a just-noticeable difference side by side; 7 is apart at a glance
MIN_DISTANCE = 7.0
VISION = ("normal", "protan", "deutan", "tritan", "grayscale")


def seen(colour: str, vision: str) -> Color:
    c = Color(colour)
    if vision == "normal":
        return c
    if vision == "grayscale":
        y = c.luminance()
        return Color("srgb-linear", [y, y, y])
    return c.filter(vision, method="machado").clip()


def distance(a: str, b: str, vision: str) -> float:
    return seen(a, vision).delta_e(seen(b, vision), method="2000")


@pytest.mark.parametrize("vision", VISION)
@pytest.mark.parametrize("palette", [STATE_STYLES, OUTCOME_STYLES], ids=["states", "outcomes"])
def test_every_pair_of_colours_is_apart(palette, vision):
    closest = min((distance(a.fill, b.fill, vision), str(ka), str(kb))
                  for (ka, a), (kb, b) in combinations(palette.items(), 2))
    assert closest[0] >= MIN_DISTANCE, closest


def test_the_reference_tells_close_colours_from_distant_ones():
    # the old "hit on used" amber and "miss" vermillion: apart in colour, close for a deuteranope
    assert distance("#E69F00", "#D55E00", "normal") > 20 > distance("#E69F00", "#D55E00", "deutan")
    # red and green collapse for protanopes and deuteranopes, not for tritanopes
    assert distance("#D81B60", "#1E8E3E", "protan") < distance("#D81B60", "#1E8E3E", "tritan")
    assert distance("#777777", "#777777", "grayscale") == 0
    assert distance("#000000", "#FFFFFF", "grayscale") == pytest.approx(100, abs=0.5)
