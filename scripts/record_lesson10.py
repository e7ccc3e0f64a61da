"""Record lesson 10's runs from real vLLM servers into lesson/data/10_* (the notebook replays them
when the project's vLLM environment is missing).

    .venv/bin/python scripts/record_lesson10.py                  # all three
    .venv/bin/python scripts/record_lesson10.py --only fleet     # single, lab or fleet

single and lab share one server (16 blocks of 32 tokens, dev mode for the lab's cache reset); fleet
starts two more. Needs .venv-vllm (`bash scripts/vllm_env.sh`). Every server listens on loopback and
is stopped before this exits, also on Ctrl-C or an error.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from blockviz.vllm import real_engine  # noqa: E402

PARTS = ("single", "lab", "fleet")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=PARTS, action="append", help="record only this part (repeatable)")
    parser.add_argument("--log", type=Path, help="vLLM's log file (a fleet's: one per instance beside it)")
    args = parser.parse_args(argv)
    parts = args.only or PARTS
    if not real_engine.live_available():
        print("no .venv-vllm: create it with `bash scripts/vllm_env.sh`", file=sys.stderr)
        return 1
    if "single" in parts or "lab" in parts:
        with real_engine.run_live(args.log) as run:
            if "single" in parts:
                real_engine.save(run)
                for r in run.replies:
                    print(f"{r.label}: {len(r.prompt)} prompt tokens, predicted {r.predicted}, vLLM reported {r.reported}")
                print(f"wrote {real_engine.SINGLE}.jsonl and .json (vLLM {run.meta['vllm']}, {run.meta['recorded_at']})")
            if "lab" in parts:
                result = real_engine.lab_live(run)
                real_engine.save_lab(result, run.meta)
                print(result.summary())
                print(f"wrote {real_engine.LAB}")
    if "fleet" in parts:
        fleet = real_engine.record_fleet(args.log)
        real_engine.save_fleet(fleet)
        for policy in fleet.routed:
            print(f"{policy}: hit rate {fleet.hit_rate(policy):.1%} (vLLM's replies)")
        print(f"wrote {real_engine.FLEET}.jsonl and .json")
        fleet.watch.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
