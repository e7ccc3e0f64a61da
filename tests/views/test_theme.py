from blockviz.states import BlockState
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES, THEME, contrast_ratio, theme_css

WCAG_AA = 4.5  # normal-size text


def test_contrast_of_label_text_on_every_fill_meets_wcag_aa():
    for name, style in list(STATE_STYLES.items()) + list(OUTCOME_STYLES.items()):
        assert contrast_ratio(style.text, style.fill) >= WCAG_AA, (name, contrast_ratio(style.text, style.fill))


def test_contrast_ratio_reference_values():
    assert round(contrast_ratio("#000000", "#ffffff"), 1) == 21.0
    assert contrast_ratio("#777777", "#777777") == 1.0


def test_states_differ_in_colour_and_in_glyph():
    assert set(STATE_STYLES) == set(BlockState)
    assert len({s.fill for s in STATE_STYLES.values()}) == len(BlockState)
    assert len({s.glyph for s in STATE_STYLES.values()}) == len(BlockState)
    assert len({s.glyph for s in OUTCOME_STYLES.values()}) == len(OUTCOME_STYLES)


def test_theme_follows_jupyterlab_variables_with_fallbacks():
    css = theme_css()
    for cls, (prop, var, fallback) in THEME.items():
        assert f".{cls}{{{prop}:var({var},{fallback})}}" in css
    # text on the page (not on a state fill) must be readable on the light fallback background
    assert contrast_ratio(THEME["bv-fg"][2], THEME["bv-bg"][2]) >= WCAG_AA
    assert contrast_ratio(THEME["bv-muted"][2], THEME["bv-bg"][2]) >= WCAG_AA
