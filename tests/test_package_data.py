"""Every file the package reads at run time ships with it: each tracked file under blockviz/ that is
not Python matches one of pyproject.toml's package-data patterns (a front-end file moved out of a
Python string must not be left out of the wheel)."""
import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_under_blockviz_is_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    tracked = subprocess.run(["git", "ls-files", "blockviz"], cwd=ROOT, capture_output=True, text=True, check=True)
    data = [path for path in tracked.stdout.split() if not path.endswith(".py")]
    assert any(path.endswith("class.html") for path in data)
    missing = [path for path in data if not any(fnmatch(Path(path).name, pattern) for pattern in patterns)]
    assert not missing, f"not in pyproject.toml's package-data: {missing}"
