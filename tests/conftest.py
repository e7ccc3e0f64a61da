"""How the suite shares two cores: scripts/test.sh runs it in pytest-xdist workers (`-n logical --dist
loadgroup`), each test on whichever worker is free, except for two kinds of tests kept together:

- the tests that run a real vLLM go one after another on one worker: the session's server
  (tests/vllm/conftest.py) has one prefix cache that each of its tests empties or fills in turn, and the
  English lesson 10 starts one more; each server takes 2-3 GB and, while it starts, both cores for a
  minute or two, which would stretch a test beside it past its timeout. The README's `blockviz vllm serve`
  line runs there too: it takes vLLM's default ports, which only one server at a time can hold.
- the tests of a module that share a module- or class-scoped fixture go to one worker, so the fixture
  (a model, a server, a long simulation) is built once, as in a serial run.

Everything else is independent (free ports, tmp_path folders, BLOCKVIZ_HOME per test). scripts/test.sh
builds .venv-vllm while the tests run; the real-vLLM tests' worker takes them first and waits for it,
outside their timeout. tests/test_xdist_groups.py checks that the groups hold.
"""
import os
import time
from pathlib import Path

import pytest

VLLM = "real-vllm"   # the xdist group of the tests that run a real vLLM
VLLM_SETUP = "BLOCKVIZ_VLLM_SETUP"
LIVE_LESSON = "tests/lessons/test_execute.py::test_notebook_executes[en/10_real_engine]"  # serves its own vLLM
README_VLLM = "tests/test_readme_commands.py::test_the_readme_vllm_serve_and_watch_lines_run_as_written"  # default ports


def runs_a_real_vllm(item: pytest.Item) -> bool:
    """Read before xdist appends the group to the test's id."""
    return "vllm_server" in getattr(item, "fixturenames", ()) or item.nodeid in (LIVE_LESSON, README_VLLM)


def shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(d.scope in ("module", "class") for defs in info.name2fixturedefs.values()
                                    for d in defs)


REAL_VLLM = pytest.StashKey[bool]()
SETUP_FAILURE = pytest.StashKey[str | None]()


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run on the same xdist worker as the group's other tests")


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        if runs_a_real_vllm(item):
            item.add_marker(pytest.mark.xdist_group(VLLM))
            item.stash[REAL_VLLM] = True
        elif shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


def wait_for_vllm_env(limit_s: float = 1800) -> str | None:
    """scripts/test.sh builds .venv-vllm in the background and names, in BLOCKVIZ_VLLM_SETUP, the file
    where it writes scripts/vllm_env.sh's exit code (its output goes to that name + ".log"). Waits for
    it; returns why it failed, or None."""
    status = os.environ.get(VLLM_SETUP)
    if not status:
        return None
    status, log = Path(status), Path(f"{status}.log")
    deadline = time.monotonic() + limit_s
    while not status.exists():
        if time.monotonic() > deadline:
            return f"scripts/vllm_env.sh did not finish in {limit_s:.0f} s (its log: {log})"
        time.sleep(1)
    code = status.read_text().strip()
    if code == "0":
        return None
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    return f"scripts/vllm_env.sh failed (exit {code}):\n{tail}"


@pytest.hookimpl(wrapper=True, tryfirst=True)   # outside pytest-timeout's clock: the wait is set-up, not the test
def pytest_runtest_protocol(item, nextitem):
    if item.stash.get(REAL_VLLM, False):
        item.stash[SETUP_FAILURE] = wait_for_vllm_env()
    return (yield)


def pytest_runtest_setup(item):
    failure = item.stash.get(SETUP_FAILURE, None)
    if failure:
        pytest.fail(failure, pytrace=False)
