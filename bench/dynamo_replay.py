"""Run inside .venv-dynamo (bench/dynamo_env.sh): NVIDIA Dynamo's GPU-free trace replay
(dynamo.replay.run_trace_replay, its mocker engine with vLLM's block manager rules, offline mode:
arrivals at the trace's timestamps) of one Mooncake trace file at one pool size; prints one JSON
line: the prompt-token share reused from the prefix cache at each request's first admission
(Dynamo's own first_admission_prefix_cache_reused_ratio, the figure vLLM's cached_tokens gives),
the overall reused share, and the CPU time of the call.

    .venv-dynamo/bin/python bench/dynamo_replay.py TRACE.jsonl POOL_TOKENS [BLOCK_SIZE]
"""
import json
import sys
import time

from dynamo.replay import run_trace_replay


def main():
    path, pool_tokens = sys.argv[1], int(sys.argv[2])
    block_size = int(sys.argv[3]) if len(sys.argv) > 3 else 512
    engine = {"num_gpu_blocks": pool_tokens // block_size, "block_size": block_size,
              "enable_prefix_caching": True, "backend": "vllm", "max_num_seqs": 512,
              "max_num_batched_tokens": 16384}   # as blockviz.traffic.replay's defaults
    start_cpu, start = time.process_time(), time.perf_counter()
    report = run_trace_replay(path, extra_engine_args={"engine": engine}, replay_mode="offline",
                              trace_block_size=512, capture_per_request=False)
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    s = report.summary
    print(json.dumps({"first_admission": s.get("first_admission_prefix_cache_reused_ratio"),
                      "reused": s.get("prefix_cache_reused_ratio"), "cpu_s": cpu, "wall_s": wall,
                      "completed": s.get("completed_requests", s.get("num_completed_requests"))}))


if __name__ == "__main__":
    main()
