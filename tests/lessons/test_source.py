import pytest

from blockviz.lessons import REPO_DIR, callers_of, def_lines, line_of


def test_def_lines_finds_the_method():
    first, last = def_lines("blockviz/engine/block_manager.py", "BlockManager.can_allocate")
    lines = (REPO_DIR / "blockviz/engine/block_manager.py").read_text().splitlines()
    assert lines[first - 1].strip().startswith("def can_allocate(")
    assert "return num_cached_blocks" in lines[last - 1]
    first, _ = def_lines("blockviz/engine/block_manager.py", "BlockManager.compute_hash")
    assert lines[first - 1].strip() == "@classmethod"  # decorators belong to the def
    n = line_of("blockviz/engine/block_manager.py", "BlockManager.can_allocate", "range(seq.num_blocks - 1)")
    assert "for i in range(seq.num_blocks - 1)" in lines[n - 1]
    with pytest.raises(LookupError):
        def_lines("blockviz/engine/block_manager.py", "BlockManager.nope")



def test_callers_of_finds_the_methods_that_call():
    assert "Scheduler.schedule" in callers_of("blockviz/engine/scheduler.py", "allocate")
