"""`blockviz demo`: bad options are one-line errors (exit 2); the folder it serves holds what the
notebook and JupyterLab read."""
import json
import socket

import nbformat
import pytest

from blockviz.commands import main
from blockviz.demo.server import NOTEBOOK, check_address, class_urls, teacher_url, write_workdir
from blockviz.demo.settings import SETTINGS_FILE, DemoError, DemoSettings


@pytest.mark.parametrize("args, message", [
    (["--block-size", "0"], "block size must be a whole number >= 1, got 0"),
    (["--blocks", "0"], "number of blocks must be a whole number >= 1"),
    (["--kv-memory", "lots"], "not a size in bytes: 'lots'"),
    (["--requests", "-2"], "number of requests"),
    (["--max-tokens", "500"], "exceeds the model's 512 positions"),
])
def test_bad_options_exit_2_with_a_clear_message(tiny_model, capsys, args, message):
    assert main(["demo", "--model", str(tiny_model), "--device", "cpu", "--no-browser", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockviz demo: ") and message in err


def test_a_missing_model_folder_is_named(tmp_path, capsys):
    assert main(["demo", "--model", str(tmp_path / "no-model"), "--no-browser"]) == 2
    assert f"model folder not found: {tmp_path / 'no-model'}" in capsys.readouterr().err


def test_blocks_and_kv_memory_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["demo", "--blocks", "8", "--kv-memory", "1M"])
    assert exit.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_a_busy_port_is_a_clear_error(tiny_model, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["demo", "--model", str(tiny_model), "--device", "cpu", "--no-browser", "--port", str(port)]) == 2
    assert f"port {port} is already in use on 127.0.0.1" in capsys.readouterr().err
    with pytest.raises(DemoError, match="not an address"):
        check_address("no.such.host.invalid", None)


def test_the_folder_holds_the_notebook_its_settings_and_the_autorun_extension(settings, tmp_path):
    paths = write_workdir(settings, tmp_path)
    assert DemoSettings.load(tmp_path / SETTINGS_FILE) == settings
    notebook = nbformat.read(tmp_path / NOTEBOOK, as_version=4)
    assert notebook.metadata["blockviz"] == {"autorun": True}
    assert "Demo.from_settings()" in notebook.cells[-1].source
    ext = paths["jupyter"] / "labextensions" / "blockviz-demo"
    build = json.loads((ext / "package.json").read_text())["jupyterlab"]["_build"]
    assert (ext / build["load"]).read_text().count('_JUPYTERLAB["blockviz-demo"]') == 1
    config = json.loads((paths["jupyter"] / "config" / "jupyter_server_config.json").read_text())
    assert config["LabApp"]["extra_labextensions_path"] == [str(paths["jupyter"] / "labextensions")]


def test_the_teacher_url_carries_the_token_and_the_class_url_none():
    assert teacher_url(8000, "abc") == "http://127.0.0.1:8000/doc/tree/demo.ipynb?token=abc"
    assert class_urls("127.0.0.1", 9000) == ["http://127.0.0.1:9000/"]
    shared = class_urls("0.0.0.0", 9000)
    assert f"http://{socket.gethostname()}:9000/" in shared and shared[-1] == "http://127.0.0.1:9000/"
    assert len(set(shared)) == len(shared) and not any("token" in u for u in shared)


def test_the_two_pages_need_two_ports(tiny_model, capsys):
    args = ["demo", "--model", str(tiny_model), "--device", "cpu", "--no-browser", "--port", "8123", "--class-port", "8123"]
    assert main(args) == 2
    assert "need two ports" in capsys.readouterr().err


def test_the_class_page_in_chinese():
    from blockviz.demo.classroom import page_html
    page = page_html("zh")
    assert '<html lang="zh-CN">' in page and "课堂页面" in page and "等待老师：老师打开 JupyterLab" in page
