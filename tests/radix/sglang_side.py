"""SGLang's own RadixCache, driven by drive.py: run by .venv-sglang's python, one JSON stream a line
on standard input, one JSON line of observations a stream on standard output.

`import sglang.srt.mem_cache.radix_cache` as it stands reaches, through modules the radix tree
never calls, torchvision, triton, transformers and SGLang's CUDA kernels: beside the CPU build of
torch it stops at `ModuleNotFoundError: No module named 'torchvision'` (memory_pool -> configs ->
nano_nemotron_vl -> multimodal/internvl_utils), and the full dependency set is a CUDA torch of
about 6 GB. So, unless --plain-import is given (for an environment that has all of SGLang's
dependencies), the modules below are stood in for before the import. Every module the cache's own
code runs (radix_cache, evict_policy, base_prefix_cache, cache_init_params, mem_cache.utils,
events, kv_events, runtime_context, environ) is SGLang's, from the wheel; a stand-in's names
raise if anything calls them, and the run reports any that were touched at run time.
"""
import importlib.util
import json
import sys
import types
from array import array
from pathlib import Path
from types import SimpleNamespace

import drive

# Package __init__ files that import SGLang's front end (sglang) and all of srt.utils.common.
SKIPPED_INITS = ["sglang", "sglang.srt.utils"]
# Modules the cache imports only for type names, metrics, a request-level helper or GPU kernels.
STAND_INS = {
    "sglang.srt.utils.common": "ceil_align, used by RadixCache.checkpoint (a request's pool row)",
    "sglang.kernels.ops.kvcache.mla_buffer": "triton kernels that mem_cache.utils re-exports",
    "sglang.srt.mem_cache.allocator": "BaseTokenToKVPoolAllocator, a type name in base_prefix_cache",
    "sglang.srt.mem_cache.memory_pool": "ReqToTokenPool, a type name in base_prefix_cache",
    "sglang.srt.observability.metrics_collector": "the metrics collector (enable_metrics=False here)",
}
touched: list[str] = []


class StandIn(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"

        def unavailable(*args, **kwargs):
            touched.append(full)
            raise RuntimeError(f"{full} is a stand-in: the radix cache should not call it")
        return type(name, (), {"__init__": unavailable}) if name[:1].isupper() else unavailable


def install_stand_ins() -> None:
    root = Path(importlib.util.find_spec("sglang").submodule_search_locations[0])
    for name in SKIPPED_INITS:
        package = types.ModuleType(name)
        package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
        sys.modules[name] = package
    for name in STAND_INS:
        sys.modules[name] = StandIn(name)


class Ticks:
    """The logical clock blockviz's radix_cache imports as `time` (blockviz/radix/clock.py), put in
    the place of SGLang's time.monotonic so both sides stamp nodes in the same order."""

    def __init__(self):
        self.now = 0

    def monotonic(self) -> float:
        self.now += 1
        return float(self.now)


def sglang_api() -> SimpleNamespace:
    import time

    import torch
    from sglang.srt.mem_cache import radix_cache
    from sglang.srt.mem_cache.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
    from sglang.srt.mem_cache.cache_init_params import CacheInitParams
    radix_cache.time = SimpleNamespace(monotonic=Ticks().monotonic, perf_counter=time.perf_counter)
    return SimpleNamespace(RadixCache=radix_cache.RadixCache, RadixKey=radix_cache.RadixKey,
                           CacheInitParams=CacheInitParams, InsertParams=InsertParams,
                           MatchPrefixParams=MatchPrefixParams, EvictParams=EvictParams,
                           tokens=lambda ids: array("q", ids),
                           values=lambda ids: torch.tensor(ids, dtype=torch.int64),
                           module_file=radix_cache.__file__)


def main() -> None:
    if "--plain-import" not in sys.argv:
        install_stand_ins()
    api = sglang_api()
    print(json.dumps({"ready": api.module_file}), flush=True)
    for line in sys.stdin:
        stream = json.loads(line)
        try:
            reply = {"seen": drive.run(api, stream)}
        except Exception as error:  # the stream's failure is an observation too
            reply = {"error": f"{type(error).__name__}: {error}"}
        reply["touched"] = touched
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
