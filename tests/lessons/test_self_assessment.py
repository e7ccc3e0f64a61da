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

