"""environment.yml (conda) and pyproject.toml (pip) must name the same dependencies."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pyproject_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = [req for group in project["optional-dependencies"].values() for req in group]
    return set(project["dependencies"]) | set(extras)


def environment_requirements() -> set[str]:
    lines = (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    start = lines.index("  - pip:")
    reqs = set()
    for line in lines[start + 1:]:
        match = re.fullmatch(r"      - (.+)", line)
        if not match:
            break
        reqs.add(match.group(1))
    return reqs - {"-e ."}


def test_environment_and_pyproject_agree():
    assert environment_requirements() == pyproject_requirements()


def test_the_parser_sees_real_entries():
    reqs = environment_requirements()
    assert "torch>=2.4" in reqs and "xxhash>=3.0" in reqs
