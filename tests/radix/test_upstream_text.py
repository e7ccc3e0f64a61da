"""blockviz/radix's radix_cache.py and evict_policy.py are SGLang's, line for line, except for the
differences listed here.

They are diffed against SGLang's own files at release 0.5.23 (tests/radix/upstream/, pinned from
the wheel). Every difference must be in ALLOWED, with its reason, and every entry in ALLOWED must
still be a difference: a new line in blockviz/radix fails here until it is justified, and a
difference that is gone must leave the list. The one rewrite applied before diffing is the package
name (`sglang.srt.mem_cache.` -> `blockviz.radix.` in imports). The same differences are summed up
for readers in docs/ARCHITECTURE.md, "Differences from SGLang".
"""
from pathlib import Path

import pytest

from tests.radix.upstream import RECORD_SHA256, ROOT as UPSTREAM, VERSION, record_hash, text
from tests.upstream_copy import BLOCKVIZ, Allowed, KeptCopy

FILES = ["radix/radix_cache.py", "radix/evict_policy.py"]
OWN = {"__init__.py", "base_prefix_cache.py", "cache_init_params.py", "clock.py", "utils.py"}


ALLOWED = [
    # radix/radix_cache.py
    Allowed('radix/radix_cache.py', (27, 27),
            'the time module is replaced by blockviz/radix/clock.py, imported as `time` (below)',
            '''\
'''),
    Allowed('radix/radix_cache.py', (30, 30),
            'itertools.chain joins value arrays where SGLang has torch.cat; `List` and `TYPE_CHECKING` served only the dropped hash values and request type',
            '''\
from itertools import chain
from typing import Any, Iterator, Optional, Tuple, Union
'''),
    Allowed('radix/radix_cache.py', (32, 32),
            "no torch: values are array('q') of KV-pool slots; a logical clock in place of time.monotonic, so a run is the same every time and no two stamps tie (clock.py)",
            '''\
from blockviz.radix import clock as time
'''),
    Allowed('radix/radix_cache.py', (37, 37),
            "no BasePrefixCache: its interface serves SGLang's scheduler over every cache kind (SWA, Mamba, hierarchical); blockviz's engine calls RadixCache directly",
            '''\
'''),
    Allowed('radix/radix_cache.py', (48, 56),
            "no KV events, no hash values for them, no request-level checkpoint (its ceil_align and Req); get_eviction_strategy from blockviz/radix/utils.py, SGLang's table and factory",
            '''\
from blockviz.radix.utils import get_eviction_strategy
'''),
    Allowed('radix/radix_cache.py', (156, 157),
            "values are array('q') (the annotation only; bigram views cut them the same way)",
            '''\
        value: Optional[array] = None,
    ) -> Tuple[RadixKey, Optional[array]]:
'''),
    Allowed('radix/radix_cache.py', (257, 257),
            "values are array('q') of KV-pool slots",
            '''\
        self.value: Optional[array] = None
'''),
    Allowed('radix/radix_cache.py', (263, 266),
            'no per-page hash values: SGLang keeps them for external KV events and hierarchical storage, neither of which blockviz has',
            '''\
'''),
    Allowed('radix/radix_cache.py', (281, 281),
            'no BasePrefixCache base class (see the import above)',
            '''\
class RadixCache:
'''),
    Allowed('radix/radix_cache.py', (290, 310),
            "no KV event recorder (blockviz's engine records its own events), no metrics collector, no torch device for the values",
            '''\
        # A disabled tree holds nothing and never evicts; its eviction policy
        # config is not built or validated.
'''),
    Allowed('radix/radix_cache.py', (325, 327),
            'create_simulated takes the eviction policy, so a simulation can choose one without building CacheInitParams; no KV-event settings',
            '''\
        eviction_policy: str = "lru",
'''),
    Allowed('radix/radix_cache.py', (335, 337),
            'the eviction policy passed on; no KV-event settings',
            '''\
            eviction_policy=eviction_policy,
'''),
    Allowed('radix/radix_cache.py', (349, 349),
            'no per-page hash values (see TreeNode)',
            '''\
'''),
    Allowed('radix/radix_cache.py', (353, 355),
            "the empty index list an array('q'), not a torch tensor on a device",
            '''\
        self._empty_device_indices = array("q")
'''),
    Allowed('radix/radix_cache.py', (362, 362),
            'no KV events to clear',
            '''\
'''),
    Allowed('radix/radix_cache.py', (443, 443),
            "the debug/test fallback (token ids as values) as an array('q') slice, not a torch tensor",
            '''\
            value = key.token_ids[: len(key)]
'''),
    Allowed('radix/radix_cache.py', (449, 543),
            "no _insert_cache or checkpoint: they write a request's row of SGLang's req_to_token pool and belong to its scheduler; blockviz's engine does that part itself",
            '''\
'''),
    Allowed('radix/radix_cache.py', (556, 556),
            'no eviction metrics, so no start time',
            '''\
'''),
    Allowed('radix/radix_cache.py', (577, 579),
            'no KV event for a removed leaf, no eviction metrics',
            '''\
'''),
    Allowed('radix/radix_cache.py', (637, 637),
            "values joined with itertools.chain into one array('q') instead of torch.cat",
            '''\
        return array("q", chain.from_iterable(values))
'''),
    Allowed('radix/radix_cache.py', (641, 641),
            "values are array('q')",
            '''\
    def path_device_indices(self, node: TreeNode) -> array:
'''),
    Allowed('radix/radix_cache.py', (649, 649),
            "values joined with itertools.chain into one array('q') instead of torch.cat",
            '''\
        return array("q", chain.from_iterable(values))
'''),
    Allowed('radix/radix_cache.py', (686, 686),
            "an array slice is already a copy (torch's slice is a view, hence SGLang's .clone())",
            '''\
        new_node.value = child.value[:split_len]
'''),
    Allowed('radix/radix_cache.py', (689, 689),
            'an array slice is already a copy',
            '''\
        child.value = child.value[split_len:]
'''),
    Allowed('radix/radix_cache.py', (691, 698),
            'no per-page hash values to split',
            '''\
'''),
    Allowed('radix/radix_cache.py', (750, 750),
            "insert's value is already a fresh slice (value[: len(key)] or value[prefix_len:]), so no clone",
            '''\
            new_node.value = value
'''),
    Allowed('radix/radix_cache.py', (757, 758),
            'no KV event for a stored node',
            '''\
'''),
    # radix/evict_policy.py
    Allowed('radix/evict_policy.py', (4, 4),
            'TYPE_CHECKING is no longer used (below)',
            '''\
from typing import Tuple, Union
'''),
    Allowed('radix/evict_policy.py', (6, 7),
            "no import of TreeNode for type checkers: it would close an import cycle (radix_cache -> utils -> evict_policy -> radix_cache), which tests/test_import_cycles.py forbids even for type checkers",
            '''\
# TreeNode is radix_cache.py's, named only in annotations (radix_cache imports this module).
'''),
]


def upstream(file: str) -> str:
    return text("sglang/srt/mem_cache/" + Path(file).name).replace("sglang.srt.mem_cache.", "blockviz.radix.")


KEPT = KeptCopy(FILES, upstream, ALLOWED)


def test_every_difference_from_sglang_is_listed_and_every_listed_one_exists():
    problems = KEPT.problems("SGLang")
    assert not problems, problems


def test_every_entry_says_why_and_is_listed_once():
    assert KEPT.entries_are_sound()


def test_radix_holds_sglangs_files_and_what_they_import():
    files = {p.name for p in (BLOCKVIZ / "radix").glob("*.py")}
    assert files == OWN | {Path(f).name for f in FILES}


def test_the_pinned_files_are_sglangs():
    assert VERSION == "0.5.23"
    assert (UPSTREAM / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("Apache License")
    assert {path: record_hash(path) for path in RECORD_SHA256} == RECORD_SHA256


@pytest.mark.parametrize("file, old, new, unlisted, gone", [
    # one comment more is unlisted
    ("radix/radix_cache.py", "        # new_node -> child\n", "        # new_node -> child\n        # a note\n",
     [("radix/radix_cache.py", (679, 678), "        # a note\n")], []),
    # SGLang's .clone() restored leaves an entry unmatched
    ("radix/radix_cache.py", "child.value[split_len:]\n", "child.value[split_len:].clone()\n",
     [], [("radix/radix_cache.py", (689, 689))]),
], ids=["a new line", "a difference gone"])
def test_the_check_sees_a_new_line_and_a_difference_gone(tmp_path, file, old, new, unlisted, gone):
    """The check's own reference: one edit to a copy of blockviz's radix files, and what it finds."""
    found_unlisted, found_gone = KEPT.unlisted_and_gone(KEPT.edited(tmp_path, file, old, new))
    assert found_unlisted == unlisted and [(f, lines) for f, lines, _ in found_gone] == gone
