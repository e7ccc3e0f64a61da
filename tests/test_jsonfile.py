"""The one JSON reader: an error names the file, the line and column of a syntax error, and the
field of a value of the wrong type, in the loader's own error class; the loaders read through it."""
import json

import msgspec
import pytest

from blockviz.jsonfile import decode_json, read_json


class Config(msgspec.Struct):
    block_size: int
    name: str = ""


class Oops(ValueError):
    pass


def test_a_file_reads_as_its_type(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"block_size": 4, "name": "é"}', encoding="utf-8")
    assert read_json(path, Config) == Config(4, "é") and read_json(path) == {"block_size": 4, "name": "é"}


@pytest.mark.parametrize("text, message", [
    ('{"block_size": 4,\n "name": "x" "y"}', r"c.json: not valid JSON \(line 2, column 14: JSON is malformed"),
    ('{"block_size": 4,}', r"c.json: not valid JSON \(column 18: JSON is malformed: trailing comma"),
    ('{"block_size": 4', r"c.json: not valid JSON \(Input data was truncated\)"),
    ('{"block_size": "4"}', r"c.json: Expected `int`, got `str` - at `\$.block_size`"),
    ('{"name": "x"}', r"c.json: Object missing required field `block_size`"),
])
def test_an_error_names_the_file_the_line_and_the_field(tmp_path, text, message):
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(Oops, match=message):
        read_json(path, Config, Oops)


def test_a_missing_file_a_folder_or_a_deep_nest_is_the_loaders_error(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 50_000 + "]" * 50_000)
    with pytest.raises(Oops, match="deep.json: nested too deeply"):
        read_json(tmp_path / "deep.json", error=Oops)
    with pytest.raises(Oops, match="absent.json: no such file"):
        read_json(tmp_path / "absent.json", error=Oops)
    with pytest.raises(Oops, match="is a folder"):
        read_json(tmp_path, error=Oops)


def test_a_line_of_json_lines_is_named_by_its_loader():
    with pytest.raises(ValueError, match=r"t.jsonl: line 7: not valid JSON \(column 6"):
        decode_json('{"a" 1}', where="t.jsonl: line 7")


def test_the_loaders_read_through_it(tmp_path):
    from blockviz.demo.settings import DemoError, DemoSettings
    from blockviz.models.config import Qwen3Config
    from blockviz.vllm.lab.saved import load_lab
    (tmp_path / "config.json").write_text('{"vocab_size": 10,\n "hidden_size": }')
    with pytest.raises(ValueError, match=r"config.json: not valid JSON \(line 2, column 17"):
        Qwen3Config.from_pretrained(tmp_path)
    (tmp_path / "demo.json").write_text('{"block_size": 4}\n{}')
    with pytest.raises(DemoError, match=r"demo.json: not valid JSON \(line 2, column \d+: .*trailing characters"):
        DemoSettings.load(tmp_path / "demo.json")
    lab = {"format": "blockviz-lab/1", "block_size": 32, "vllm_blocks": 16, "prompts": [], "generated": [],
           "vllm": [], "requests": [{"tokens": [1, "two"], "max_tokens": 1, "follows": None, "group": None,
                                     "label": None}]}
    (tmp_path / "lab.json").write_text(json.dumps(lab))
    with pytest.raises(ValueError, match=r"lab.json: Expected `int`, got `str` - at `\$.requests\[0\].tokens\[1\]`"):
        load_lab(tmp_path / "lab.json")
