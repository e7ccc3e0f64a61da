"""Demo options are checked before anything starts: each bad one is a clear error."""
import json

import pytest
import torch

from blockviz.demo.settings import DemoError, DemoSettings, parse_bytes
from blockviz.sampling_params import SamplingParams


@pytest.mark.parametrize("change, message", [
    ({"block_size": 0}, "block size must be a whole number >= 1, got 0"),
    ({"num_blocks": 0}, "number of blocks must be a whole number >= 1"),
    ({"num_blocks": 8, "kv_memory": 2**20}, "not both"),
    ({"kv_memory": -5}, "KV memory"),
    ({"requests": -1}, "number of requests"),
    ({"max_tokens": 0}, "max tokens"),
    ({"temperature": -1}, "temperature must be a number >= 0"),
    ({"lang": "fr"}, "unknown language 'fr'"),
    ({"device": "tpu"}, "unknown device 'tpu'"),
    ({"dtype": "int8"}, "unknown dtype 'int8'; choose one of float32, bfloat16, float16"),
    ({"user_prompts": []}, "at least one user prompt"),
    ({"view_budget": 0}, "share of the time"),
    ({"history": 0}, "history"),
    ({"policy": "radix"}, "unknown policy 'radix'; choose one of nano-vllm, vllm, sglang"),
])
def test_bad_options_are_clear_errors(settings, change, message):
    for key, value in change.items():
        setattr(settings, key, value)
    with pytest.raises(DemoError, match=message):
        settings.resolve()


def test_a_missing_model_folder_or_file_is_named(settings, tmp_path):
    settings.model = str(tmp_path / "nowhere")
    with pytest.raises(DemoError, match="model folder not found: .*nowhere"):
        settings.check_options()
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "config.json").write_text("{}")
    settings.model = str(tmp_path / "half")
    with pytest.raises(DemoError, match="no tokenizer.json in model folder"):
        settings.check_options()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_says_so(settings):
    settings.device = "cuda"
    with pytest.raises(DemoError, match="CUDA is not available here.*--device cpu"):
        settings.resolve()


def test_the_pool_in_bytes_or_blocks(settings):
    plan = settings.resolve()
    assert (plan.device, plan.num_blocks) == ("cpu", 12)
    # tiny model: 2 (K, V) x 2 layers x 4 tokens x 2 KV heads x 16 dims x 4 bytes
    assert plan.block_bytes == 2 * 2 * 4 * 2 * 16 * 4
    settings.num_blocks, settings.kv_memory = None, 10 * plan.block_bytes + 7
    assert settings.resolve().num_blocks == 10
    settings.kv_memory = plan.block_bytes - 1
    with pytest.raises(DemoError, match="holds no block"):
        settings.resolve()


def test_a_chosen_dtype_sizes_the_pool_and_the_engine(settings):
    from blockviz.demo.app import build_engine
    full = settings.resolve().block_bytes
    settings.dtype, settings.num_blocks, settings.kv_memory = "bfloat16", None, 10 * full
    plan = settings.resolve()
    assert (plan.block_bytes, plan.num_blocks) == (full // 2, 20)  # half the bytes: twice the blocks
    engine = build_engine(plan)
    assert engine.model_runner.kv_cache.dtype == torch.bfloat16 and engine.config.num_kvcache_blocks == 20


def test_every_request_must_fit_the_pool_at_its_longest(settings):
    settings.max_tokens = 40
    with pytest.raises(DemoError, match=r"request 1 grows to \d+ blocks .* but the pool has 12"):
        settings.resolve()


def test_requests_share_the_system_prompt_tokens(settings):
    plan = settings.resolve()
    assert plan.system_ids == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    for k in range(settings.requests):
        assert plan.request_tokens(k)[:9] == plan.system_ids
    assert plan.request_tokens(1)[9:] == [22]
    assert plan.prompt_tokens("t30 t31", after_system=False) == [30, 31]


def test_settings_travel_as_json(settings, tmp_path):
    path = settings.save(tmp_path / "s.json")
    assert DemoSettings.load(path) == settings
    path.write_text(json.dumps({"block_size": 4, "colour": "red"}))
    with pytest.raises(DemoError, match="unknown.*colour"):
        DemoSettings.load(path)
    with pytest.raises(DemoError, match="missing.json: no such file"):
        DemoSettings.load(tmp_path / "missing.json")
    path.write_text('{"block_size": 4,\n "lang": "en" "pace": 1}')
    with pytest.raises(DemoError, match=r"s.json: not valid JSON \(line 2, column 15"):
        DemoSettings.load(path)
    path.write_text("[4]")
    with pytest.raises(DemoError, match=r"s.json: Expected `object`, got `array`"):
        DemoSettings.load(path)


def test_sizes_in_bytes():
    assert parse_bytes("65536") == 65536
    assert parse_bytes("64K") == 64 * 1024
    assert parse_bytes("2.5MiB") == int(2.5 * 2**20)
    assert parse_bytes("1G") == 2**30
    with pytest.raises(ValueError, match="not a size"):
        parse_bytes("lots")


def test_every_demo_string_has_every_language_with_the_same_fields():
    from string import Formatter

    from blockviz.i18n.demo import STRINGS
    from blockviz.i18n import LANGS
    fields = lambda text: {name for _, name, _, _ in Formatter().parse(text) if name}
    for key, texts in STRINGS.items():
        assert set(texts) == set(LANGS) and all(texts[lang].strip() for lang in LANGS), key
        assert fields(texts["en"]) == fields(texts["zh"]), key


def test_the_engine_keeps_a_bounded_history(settings):
    from blockviz.demo.app import build_engine
    settings.history = 5
    engine = build_engine(settings.resolve())
    engine.add_request([1, 2, 3, 4, 5], SamplingParams(temperature=0.0, max_tokens=12, ignore_eos=True))
    engine.run()
    assert engine.last_step >= 12 and 0 < engine.first_step and engine.last_step - engine.first_step <= 5


@pytest.mark.parametrize("option", ["temperature", "pace"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, True, "8"])
def test_temperature_and_pace_must_be_finite_numbers(option, value):
    with pytest.raises(DemoError, match=option if option == "temperature" else "pace"):
        DemoSettings(**{option: value}).check_options()


def test_the_policy_is_kept_in_the_settings_file_and_reaches_the_engine(settings, tmp_path):
    from blockviz.demo.app import build_engine
    from blockviz.policies import names
    assert DemoSettings().policy == "nano-vllm" and "sglang" in names()
    settings.policy = "sglang"
    assert DemoSettings.load(settings.save(tmp_path / "s.json")).policy == "sglang"
    plan = settings.resolve()
    assert "policy sglang" in plan.describe()
    engine = build_engine(plan)
    assert engine.policy.name == "sglang" and engine.snapshot(0).tree is not None
