import pytest

from blockviz.demo.settings import DemoSettings
from tests.engine.tiny_model import write_tiny_model

SYSTEM = " ".join(f"t{i}" for i in range(1, 10))  # 9 tokens of the tiny model's word-level vocabulary


def pytest_configure(config):  # also when tests/demo runs alone, without tests/browser's conftest
    config.addinivalue_line("markers", "browser: drives a real chromium through JupyterLab (run alone: pytest tests/browser)")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    return write_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture
def settings(tiny_model) -> DemoSettings:
    """A small demo on the tiny random model: 4 requests sharing a 9-token system prompt."""
    return DemoSettings(model=str(tiny_model), device="cpu", num_blocks=12, block_size=4, requests=4,
                        system_prompt=SYSTEM, user_prompts=["t20 t21", "t22", "t23 t24 t25"], max_tokens=6,
                        temperature=0.0, arrival_every=2, refresh_ms=0, pace=0)
