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


def test_a_lesson_question_is_an_exercise_that_reveals_nothing_until_asked():
    ex = Lesson("01_token_to_slot", "zh").exercise("Slots?", "槽位？", [23, 8, 9, 10], "Jumps.", "会跳跃。",
                                                   mistakes=[([3, 4, 5, 6], "That is t.", "这就是 t 本身。")])
    widget = ex.widget()
    assert isinstance(widget, ExerciseWidget) and widget.feedback.value == ""
    assert "23" not in widget.prompt.value
    widget.answer.value = "3，4，5，6"
    assert not widget.check().correct and "这就是 t 本身" in widget.feedback.value
    widget.answer.value = "23，8，9，10"
    assert widget.check().correct
    widget.solution_button.click()
    assert "23, 8, 9, 10" in widget.feedback.value and "会跳跃" in widget.feedback.value


def test_reveal_folds_the_answer_away(monkeypatch):
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("01_token_to_slot", "zh").reveal(en="slot **10**", zh="槽位 **10**")
    text = shown[0].data
    assert text.startswith("<details><summary>") and "槽位 **10**" in text.split("</summary>", 1)[1]
