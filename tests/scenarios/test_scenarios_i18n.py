"""Every preset has its title in both languages."""
import pytest

from blockviz.scenarios import load_scenario, presets, scenario_from


@pytest.mark.parametrize("name", presets())
def test_every_preset_has_a_chinese_title(name):
    s = load_scenario(name)
    assert s.title_in("en") == s.title and s.title_in("zh") == s.title_zh != ""


def test_a_scenario_without_a_chinese_title_shows_the_english_one():
    s = scenario_from("x", {"title": "T", "block_size": 4, "num_blocks": 4, "requests": [{"prompt": "ab"}]})
    assert s.title_in("zh") == "T"
    with pytest.raises(ValueError, match="title_zh must be text"):
        scenario_from("x", {"title": "T", "title_zh": 3, "block_size": 4, "num_blocks": 4, "requests": [{"prompt": "ab"}]})
