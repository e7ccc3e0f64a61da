"""A bad scenario file gets one clear error naming the value and what is allowed, before the engine runs."""
import pytest

from blockviz.scenarios import load_scenario

BASE = 'title = "t"\nblock_size = 4\nnum_blocks = 8\n'
REQUEST = '[[requests]]\nprompt = "abcdef"\nmax_tokens = 2\n'


@pytest.mark.parametrize("toml, message", [
    (BASE.replace("4", "true") + REQUEST, "block_size must be a whole number"),
    (BASE.replace("= 8", "= 1e8") + REQUEST, "num_blocks must be a whole number"),
    (BASE.replace("= 8", "= 100000000") + REQUEST, r"num_blocks must be a whole number in 1\.\.4194304"),
    (BASE + REQUEST.replace("= 2", '= "4"'), "request 1: max_tokens must be a whole number"),
    (BASE + REQUEST.replace("= 2", "= 2.5"), "request 1: max_tokens must be a whole number"),
    (BASE + REQUEST + "at_step = -3\n", "at_step must be a whole number"),
    (BASE + REQUEST.replace('"abcdef"', "[1, 2.5]"), r"prompt\[1\] = 2.5 is not a token id"),
    (BASE + REQUEST.replace('"abcdef"', '[1, "a"]'), r"prompt\[1\] = 'a' is not a token id"),
    (BASE + REQUEST.replace('"abcdef"', "[1, -2]"), r"prompt\[1\] = -2 is not a token id"),
    (BASE + REQUEST.replace('"abcdef"', "[18446744073709551615]"), "is not a token id"),
    (BASE + REQUEST.replace('"abcdef"', "[]"), "is empty"),
    (BASE + REQUEST + 'ignore_eos = "no"\n', "ignore_eos must be True or False"),
    (BASE + REQUEST + "label = 5\n", "label must be printable"),
    (BASE + REQUEST + "colour = 1\n", "request 1: unknown key 'colour'"),
    (BASE + "colour = 1\n" + REQUEST, "unknown key 'colour'"),
    (BASE + REQUEST.replace("= 2", "= 100"), "can never fit in 8 blocks"),
    (BASE + "max_steps = 0\n" + REQUEST, "max_steps must be a whole number"),
    (BASE + "requests = 3\n", "requests must be"),
    (BASE, "missing requests"),
])
def test_bad_values_are_named(tmp_path, toml, message):
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as e:
        load_scenario(path)
    assert str(path) in str(e.value)


def test_running_out_of_steps_is_an_error_not_a_silent_stop(tmp_path):
    path = tmp_path / "short.toml"
    path.write_text(BASE + "max_steps = 2\n" + REQUEST.replace("= 2", "= 4"), encoding="utf-8")
    with pytest.raises(ValueError, match="max_steps = 2 ran out with requests still running"):
        load_scenario(path).run()


def test_binary_and_missing_files_name_the_file(tmp_path):
    binary = tmp_path / "blob.toml"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 10)
    with pytest.raises(ValueError, match="blob.toml: not a text file"):
        load_scenario(binary)
    with pytest.raises(ValueError, match="is not a file"):
        load_scenario(tmp_path)
