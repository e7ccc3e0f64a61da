"""`blockviz vllm lab` without a server: a recorded run stands in for the live one, and the command
prints its summary, writes the lab view's page and keeps the run."""
from importlib import import_module

from blockviz.commands import main
from blockviz.vllm import real_engine
from blockviz.vllm.lab import saved

watch = import_module("blockviz.vllm.watch")   # the module: blockviz.vllm.watch is also a function
run = import_module("blockviz.vllm.lab.run")


class NoServer:
    """The watch the command opens: here nothing to subscribe to."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_lab_prints_the_summary_writes_the_page_and_keeps_the_run(monkeypatch, tmp_path, capsys):
    result, _ = real_engine.load_lab()
    monkeypatch.setattr(watch, "Watch", NoServer)
    monkeypatch.setattr(run, "run_lab", lambda stream, client, w, reset: result)
    page, kept = tmp_path / "lab.html", tmp_path / "lab.json"
    code = main(["vllm", "lab", "--html", str(page), "--save", str(kept), "--lang", "zh"])
    assert code == (1 if result.unexplained else 0)
    captured = capsys.readouterr()
    assert captured.out == result.summary() + "\n"
    assert f"saved {kept}" in captured.err and f"wrote {page}" in captured.err
    html = page.read_text(encoding="utf-8")
    assert html.startswith('<!doctype html><meta charset="utf-8">') and 'data-view="lab"' in html and "策略实验" in html
    assert saved.load_lab(kept)[0].summary() == result.summary()


def test_a_stream_file_that_is_not_there_is_a_one_line_error(tmp_path, capsys):
    assert main(["vllm", "lab", "--file", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockviz vllm lab: ") and "none.txt" in err and "Traceback" not in err
