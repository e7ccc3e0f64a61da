"""Every notebook runs top to bottom on CPU (a notebook that hangs fails after TIMEOUT_S; how long they
take is a figure, printed with --durations, not a test)."""
import time

import nbformat
import pytest
from nbclient import NotebookClient

from blockviz.vllm.real_engine import REPLAY_ENV
from tests.lessons.common import NOTEBOOKS

TIMEOUT_S = 180


def execute(path):
    """Run a notebook in its own folder. Kernel "python3" starts the Python that runs the tests (jupyter_client
    launches sys.executable for it), so the venv's blockviz is the one imported."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


@pytest.mark.timeout(TIMEOUT_S)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_notebook_executes(path, tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))  # a lesson must never write to the real home
    # One torch thread per kernel: the model lessons' matmuls are tiny, and on 2 cores shared with other
    # processes torch's thread pool spins and waits (measured: a 4-layer step 0.6 s instead of 5 ms).
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    if path.stem == "10_real_engine" and path.parent.name == "zh":
        # The zh notebook runs the en one's code; live it would start one more vLLM server (1-2 minutes
        # of CI on 2 cores), so it replays the recordings here and the en notebook runs live.
        monkeypatch.setenv(REPLAY_ENV, "1")
    nb, _ = execute(path)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    warned = [o.text for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and "LessonWarning" in o.text]
    assert warned == [], "a question names a mistake equal to its answer: " + " ".join(warned)
    assert list(tmp_path.iterdir()) == [], "executing a lesson wrote to BLOCKVIZ_HOME"
    # every cell that computes prose produced its sentence
    for cell in nb.cells:
        if cell.cell_type == "code" and "say(" in cell.source:
            assert cell.outputs, f"a say() cell printed nothing: {cell.source[:80]!r}"

