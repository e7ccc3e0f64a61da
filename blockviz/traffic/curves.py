"""Capacity curves: one replay a pool size, in parallel processes, each deterministic, so the
curve is the same for any number of processes."""
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from time import perf_counter, process_time

from blockviz.traffic.replay import replay
from blockviz.traffic.trace import Trace

try:  # a progress bar per replay when tqdm is there; the numbers do not depend on it
    from tqdm import tqdm
except ImportError:  # pragma: no cover
    tqdm = None


@dataclass(frozen=True)
class Point:
    """One replay of a curve, without its engine (so it travels back from a worker process)."""
    pool_tokens: int
    hit_rate: float
    cached_tokens: int
    prompt_tokens: int
    preemptions: int
    steps: int
    wall_s: float
    refused: int = 0          # requests that can never fit in this pool, refused (replay.refused)
    cpu_s: float = 0.0        # CPU time of the replay in its process


def point(trace: Trace, pool_tokens: int, options: dict, bar: int | None) -> Point:
    start, start_cpu = perf_counter(), process_time()
    progress = None
    if bar is not None and tqdm is not None:
        shown = tqdm(total=len(trace), position=bar, desc=f"{pool_tokens:>12,} tokens", unit="req", leave=True)
        progress = lambda finished: shown.update(finished - shown.n)   # noqa: E731
    result = replay(trace, pool_tokens, progress=progress, **options)
    if progress is not None:
        shown.close()
    return Point(pool_tokens, result.hit_rate, int(result.cached_tokens.sum()), int(result.prompt_tokens.sum()),
                 int(result.preemptions.sum()), result.steps, perf_counter() - start, int(result.refused.sum()),
                 process_time() - start_cpu)


def capacity_curve(trace: Trace, pools: list[int], jobs: int = 1, bars: bool = False, **options) -> list[Point]:
    """replay(trace, pool, **options) for each pool, `jobs` at a time; points in the order of `pools`."""
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if jobs == 1 or len(pools) == 1:
        return [point(trace, p, options, i if bars else None) for i, p in enumerate(pools)]
    with ProcessPoolExecutor(max_workers=min(jobs, len(pools))) as pool:
        futures = [pool.submit(point, trace, p, options, i if bars else None) for i, p in enumerate(pools)]
        return [f.result() for f in futures]
