import pytest

from blockviz.exercises.widget import ExerciseWidget
from blockviz.lessons import Lesson
from blockviz.scenarios import load_scenario


def test_lesson_rejects_unknown_language():
    with pytest.raises(ValueError):
        Lesson("00_start_here", "fr")



def test_show_puts_live_views_under_a_player_at_the_step():
    from blockviz.views.player import Player
    from blockviz.views.widgets import ChainView, MappingView
    sim = load_scenario("seed004").run()
    box = Lesson("01_token_to_slot", "zh").show(sim, "mapping", "chain", label="B", step=2)
    player, mapping, chain = box.children
    assert isinstance(player, Player) and isinstance(mapping, MappingView) and isinstance(chain, ChainView)
    assert player.step == mapping.step == chain.step == 2 and mapping.seq_id == chain.seq_id == next(
        i for i, label in sim.labels.items() if label == "B")
    sim.seek(1)  # a later cell moving the cursor leaves the picture beside its text
    assert 'data-step="2"' in mapping.svg and not player.follow
    player._on_msg(player, {"cmd": "back"}, [])  # the player moves its views
    assert 'data-step="1"' in mapping.svg and chain.step == 1


def test_show_names_in_the_page_the_step_it_opened_at():
    sim = load_scenario("seed004").run()
    lesson = Lesson("01_token_to_slot", "en")
    assert "bv-opened-at-2" in lesson.show(sim, "pool", step=2)._dom_classes
    sim.seek(3)
    assert "bv-opened-at-3" in lesson.show(sim)._dom_classes  # the dashboard, at the cursor


def test_a_lesson_question_is_an_exercise_that_reveals_nothing_until_asked():
    ex = Lesson("01_token_to_slot", "zh").exercise("Slots?", "槽位？", [23, 8, 9, 10], "Jumps.", "会跳跃。",
                                                   hint="01.slot_mapping",
                                                   mistakes=[([3, 4, 5, 6], "That is t.", "这就是 t 本身。")])
    widget = ex.widget()
    assert isinstance(widget, ExerciseWidget) and widget.feedback.value == ""
    assert "23" not in widget.prompt.value
    widget.answer.value = "3，4，5，6"
    assert not widget.check().correct and "这就是 t 本身" in widget.feedback.value
    widget.answer.value = "23，8，9，10"
    assert widget.check().correct
    widget.hint_button.click()
    assert "逻辑块是 t // B" in widget.feedback.value and "23" not in widget.feedback.value  # its own hint, in Chinese
    widget.solution_button.click()
    assert "23, 8, 9, 10" in widget.feedback.value and "会跳跃" in widget.feedback.value


def test_reveal_folds_the_answer_away(monkeypatch):
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("01_token_to_slot", "zh").reveal(en="slot **10**", zh="槽位 **10**")
    text = shown[0].data
    assert text.startswith("<details><summary>") and "槽位 **10**" in text.split("</summary>", 1)[1]


TIMED_SOURCE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---

+++ {{"lang": "en"}}

# Title

{words}

## Change a variable

+++ {{"lang": "zh"}}

# 标题

{han}

## 改变变量

```{{code-cell}} ipython3
x = 1
L.exercise("q", "问", 1)
L.show(sim, "pool")
```

```{{code-cell}} ipython3
---
jupyter:
  source_hidden: true
---
L.say(en="{say_en}",
      zh="{say_zh}")
L.reveal(en="a b", zh="甲乙")
```
"""


@pytest.fixture
def timed(tmp_path, monkeypatch):
    """A lesson source with known amounts: 398 + 200 + 2 English words, 350 + 350 + 2 Chinese
    characters, 3 open code lines, a question, a live view, a folded answer, an experiment."""
    source = tmp_path / "01_token_to_slot.md"
    source.write_text(TIMED_SOURCE.format(words="word " * 394, han="字" * 344, say_en="said " * 200,
                                          say_zh="说" * 350), encoding="utf-8")
    monkeypatch.setattr(Lesson, "source_file", lambda self: source)
    return source


def test_the_estimate_counts_each_languages_prose_said_text_open_code_and_activities(timed):
    from blockviz.lessons.timing import estimate
    en, zh = estimate(timed, "en"), estimate(timed, "zh")
    assert (en.words, en.han, en.code_lines) == (600, 0, 3) and (zh.words, zh.han) == (0, 702)
    assert en.reading == 3 and zh.reading == 2          # 600 / 200 + 3 / 20;  702 / 350 + 3 / 20
    assert en.counts == zh.counts == {"question": 1, "prediction": 1, "experiment": 1, "live_view": 1}
    assert en.doing == 3 + 2 + 5 + 2 and en.total == 15 and zh.total == 14


def test_header_states_the_time_and_how_it_was_estimated_and_keeps_the_practice_call(timed, monkeypatch):
    from tests.test_chinese_punctuation import half_width
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("01_token_to_slot", "en").header(practice=(10, 20), prerequisites=["00_start_here"])
    en = shown[-1].data
    assert en.startswith("**This lesson** ≈ 15 min (reading ≈ 3, working it through ≈ 12)")
    assert "10–20 min ([the practice set](../../exercises/en/lesson1.md))" in en
    assert "[00 · Start here](00_start_here.ipynb)" in en
    assert "<details><summary>How these times are estimated" in en and "1 × question (3 min each)" in en
    assert "600 words at 200 a minute" in en
    Lesson("01_token_to_slot", "zh").header()
    zh = shown[-1].data
    assert zh.startswith("**本课** ≈ 14 分钟（阅读 ≈ 2，动手 ≈ 12） · **前置**：无")
    assert "702 个汉字" in zh and half_width(zh) == []


def test_every_lessons_header_renders(monkeypatch):
    from blockviz.lessons import LESSONS
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    for name in LESSONS:
        for lang in ("en", "zh"):
            Lesson(name, lang).header(practice=(10, 20))
            assert Lesson(name, lang).time_estimate().total >= Lesson(name, lang).time_estimate().reading >= 1
    assert len(shown) == 2 * len(LESSONS)


def test_a_named_mistake_equal_to_the_answer_warns():
    import pytest
    from blockviz.lessons import Lesson
    from blockviz.lessons.lesson import LessonWarning
    L = Lesson("02_block_lifecycle", "en")
    with pytest.warns(LessonWarning, match="1 named mistake"):
        L.exercise("How many?", "几个？", 3, "Why.", "为什么。", "02.can_allocate_c",
                   mistakes=[(3, "same", "相同"), (0, "free is a miss", "空闲当未命中")])
