"""Lesson 10 where vLLM is not installed: it replays the recordings shipped in lesson/data, says so
in a banner, and runs top to bottom. (CI has vLLM, so test_execute.py runs it live; this runs the
path most readers see, forced with BLOCKVIZ_VLLM_REPLAY=1; the zh notebook replays there too.)"""
import pytest

from blockviz.vllm.real_engine import REPLAY_ENV
from tests.lessons.common import NOTEBOOKS
from tests.lessons.test_execute import TIMEOUT_S, execute

LESSON10 = [p for p in NOTEBOOKS if p.stem == "10_real_engine"]
BANNER = {"en": "Recorded run.", "zh": "录制回放。"}


@pytest.mark.timeout(TIMEOUT_S)
@pytest.mark.parametrize("path", LESSON10, ids=lambda p: p.parent.name)
def test_lesson10_replays_the_recordings_with_a_banner(path, tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv(REPLAY_ENV, "1")
    nb, _ = execute(path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert [o for o in outputs if o.output_type == "error"] == []
    html = [o["data"].get("text/html", "") for o in outputs if "data" in o]
    banner = next(h for h in html if BANNER[path.parent.name] in h)
    assert "vLLM 0." in banner and "scripts/record_lesson10.py" in banner and REPLAY_ENV in banner
