"""Colours, glyphs and theme classes shared by every renderer.

State and probe-outcome fills take their hues from the Okabe-Ito palette and spread their
lightness (white, yellow, sky blue, orange, green, purple from light to dark), so every pair stays
apart in grayscale and under protanopia, deuteranopia and tritanopia (tests/views/test_palette.py
simulates them). Every state also has a glyph, so colour never carries meaning alone; the darker
fills take white text. Page colours (background, text, lines) are JupyterLab CSS variables with
light fallbacks, so the views follow JupyterLab's dark theme and still read well in a standalone file.
"""
from dataclasses import dataclass

from blockviz.states import BlockState

OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7"}

# Okabe-Ito hues at CIE L* 100, 88, 76, 62, 48, 34 (and vermillion at 44): one lightness step apart
WHITE, INK = "#FFFFFF", "#1A1A1A"
YELLOW, SKY_BLUE, ORANGE = "#EBE03D", "#6BC6FC", "#C78800"
GREEN, PURPLE, VERMILLION = "#00825E", "#813461", "#AF4600"


@dataclass(frozen=True)
class Style:
    fill: str
    text: str    # label and glyph colour on this fill (checked against WCAG AA in tests)
    glyph: str


STATE_STYLES: dict[BlockState, Style] = {
    BlockState.FREE: Style(WHITE, INK, "○"),
    BlockState.CACHED_FREE: Style(SKY_BLUE, "#000000", "◎"),
    BlockState.STALE_FREE: Style(PURPLE, WHITE, "⊘"),
    BlockState.FILLING: Style(YELLOW, "#000000", "◔"),
    BlockState.CACHED: Style(GREEN, WHITE, "●"),
    BlockState.SHARED: Style(ORANGE, "#000000", "◆"),
}

# CacheProbe outcomes, coloured like the state a hit leads to
OUTCOME_STYLES: dict[str, Style] = {
    "hit_used": Style(ORANGE, "#000000", "✓"),
    "hit_free": Style(SKY_BLUE, "#000000", "↻"),
    "miss": Style(VERMILLION, WHITE, "✗"),
    "mismatch": Style(PURPLE, WHITE, "≠"),
    "skipped": Style("#DDDDDD", INK, "–"),
    "not_probed": Style(WHITE, INK, "?"),
}

# KV heat map: negative -> blue, zero -> near white, positive -> vermillion (a diverging pair safe for CVD)
HEAT_NEGATIVE, HEAT_ZERO, HEAT_POSITIVE = OKABE_ITO["blue"], "#F7F7F7", OKABE_ITO["vermillion"]

# theme class -> (CSS property, JupyterLab variable, fallback)
THEME: dict[str, tuple[str, str, str]] = {
    "bv-bg": ("fill", "--jp-layout-color0", "#ffffff"),
    "bv-fg": ("fill", "--jp-ui-font-color1", "#1a1a1a"),
    "bv-muted": ("fill", "--jp-ui-font-color2", "#555555"),
    "bv-line": ("stroke", "--jp-border-color1", "#8a8a8a"),
    "bv-touch": ("stroke", "--jp-brand-color1", "#0b5cad"),
    "bv-sel": ("stroke", "--jp-ui-font-color0", "#000000"),
    "bv-sel-halo": ("stroke", "--jp-layout-color0", "#ffffff"),
    "bv-arrow": ("fill", "--jp-ui-font-color2", "#555555"),
}
FONT = "'DejaVu Sans Mono', Menlo, Consolas, monospace"


CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
             "Microsoft YaHei", "PingFang SC", "SimHei")


def matplotlib_fonts(base: str = "DejaVu Sans") -> list[str]:
    """`base`, then any installed CJK font, so Chinese labels draw in figures (DejaVu has no CJK)."""
    from matplotlib import font_manager
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return [base] + [name for name in CJK_FONTS if name in installed]


def theme_css() -> str:
    rules = [f".{cls}{{{prop}:var({var},{fallback})}}" for cls, (prop, var, fallback) in THEME.items()]
    rules.append(f"text{{font-family:{FONT}}}[data-block-id]{{cursor:pointer}}")
    return "".join(rules)


def theme_fallback(cls: str) -> tuple[str, str]:
    """(property, colour) a class stands for outside JupyterLab: what static exports draw."""
    prop, _, fallback = THEME[cls]
    return prop, fallback


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of '#rrggbb'."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
