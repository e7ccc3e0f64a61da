"""Every tests/**/test_*.py is collected: a folder pytest skips by name (build, dist, venv, ...) hid 48 tests once."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collected_files(*args: str) -> set[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # "path::test" at one -q, "path: N" at two (the project's addopts adds one)
    return {line.split("::", 1)[0].rsplit(": ", 1)[0] for line in run.stdout.splitlines()
            if "::" in line or line.rsplit(": ", 1)[-1].isdigit()}


def test_every_test_file_is_collected():
    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    missing = on_disk - collected_files("tests")
    assert not missing, f"pytest collects none of these test files: {sorted(missing)}"


def test_the_check_sees_a_skipped_folder(tmp_path):
    # the check's own reference: a test folder named `build` is exactly what pytest passes over
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "test_hidden.py").write_text("def test_x():\n    assert True\n")
    (tmp_path / "test_seen.py").write_text("def test_y():\n    assert True\n")
    found = collected_files("--rootdir", str(tmp_path), str(tmp_path))
    assert any(f.endswith("test_seen.py") for f in found)
    assert not any(f.endswith("test_hidden.py") for f in found)
