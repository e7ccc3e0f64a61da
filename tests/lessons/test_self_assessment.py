import json

from blockviz.lessons import Lesson, load_self_assessment, save_self_assessment


def test_self_assessment_is_local(tmp_path):
    path = save_self_assessment("01_token_to_slot", {"slot formula": "closed book"}, "zh", home=tmp_path)
    save_self_assessment("01_token_to_slot", {"slot formula": "with notes"}, home=tmp_path)
    assert path == tmp_path / "self_assessment.json"
    data = load_self_assessment(tmp_path)
    entries = data["lessons"]["01_token_to_slot"]
    assert [e["ratings"]["slot formula"] for e in entries] == ["closed book", "with notes"]
    assert json.loads(path.read_text())["lessons"]["01_token_to_slot"][0]["lang"] == "zh"



def test_self_assessment_widget_saves_on_click_only(tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    box = Lesson("02_block_lifecycle", "zh").self_assessment([("skill one", "技能一"), ("skill two", "技能二")])
    assert not (tmp_path / "self_assessment.json").exists()
    box.toggles[0].value = "closed_book"
    box.save_button.click()
    entry = load_self_assessment(tmp_path)["lessons"]["02_block_lifecycle"][-1]
    assert entry["lang"] == "zh"
    assert entry["ratings"] == {"skill one": "closed_book", "skill two": ""}



# Lesson 12's skills before 9c2744d reworded its Chinese labels (decode -> 解码, prefill -> 预填充).
OLD_12_SKILLS = [
    ("I can tell which idea a mixed question needs", "我能判断一道混合题需要哪个概念"),
    ("I can compute slots, ref_counts and hit patterns without notes", "我能不看笔记算出槽位、ref_count 和命中模式"),
    ("I can predict decode blocks, waste and preemption", "我能预测 decode 的新块、浪费和抢占"),
    ("I can size KV memory and a prefill batch", "我能算出 KV 显存大小和一个 prefill 批次"),
]


def current_skills(name: str) -> list[tuple[str, str]]:
    """The (en, zh) skills a lesson's self-assessment cell lists today, read from its source."""
    import ast
    from tests.lessons.common import ROOT, code_cells
    for code in code_cells(ROOT / "lesson" / f"{name}.md", "en"):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "self_assessment":
                return ast.literal_eval(node.args[0])
    raise AssertionError(f"{name} has no self-assessment")


def test_an_assessment_saved_under_old_chinese_labels_still_rates_its_lesson(tmp_path, monkeypatch):
    from blockviz.lessons.retrieval import lesson_ratings
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    now = current_skills("12_review")
    assert [zh for _, zh in now] != [zh for _, zh in OLD_12_SKILLS]  # the wording did change
    box = Lesson("12_review", "zh").self_assessment(OLD_12_SKILLS)
    for toggle in box.toggles:
        toggle.value = "not_yet"
    box.save_button.click()
    entry = load_self_assessment(tmp_path)["lessons"]["12_review"][-1]
    # saved by the skill's English text and the level's key, never by the labels a notebook shows
    assert set(entry["ratings"]) == {en for en, _ in now} and set(entry["ratings"].values()) == {"not_yet"}
    assert lesson_ratings(load_self_assessment(tmp_path)) == {12: "not_yet"}


def test_a_level_saved_as_its_label_in_either_language_is_read_as_its_key(tmp_path):
    from blockviz.lessons.retrieval import lesson_ratings
    from blockviz.lessons.self_assessment import level_of
    save_self_assessment("03_prefix_identity", {"a": "闭卷能做", "b": "closed book"}, "zh", home=tmp_path)
    save_self_assessment("05_under_pressure", {"a": "还不会", "b": "nonsense", "c": ""}, "zh", home=tmp_path)
    assert lesson_ratings(load_self_assessment(tmp_path)) == {3: "closed_book", 5: "not_yet"}
    assert level_of("with_notes") == "with_notes" and level_of("看笔记能做") == "with_notes"
    assert level_of("") is None and level_of(None) is None and level_of("closed") is None
