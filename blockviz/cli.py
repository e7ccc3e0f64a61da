"""The `blockviz` command: simulate a scenario, practise exercises, run the classroom demo."""
import argparse
import sys

from blockviz.scenarios import load_scenario, presets
from blockviz.views.render_text import render_steps_table, render_text


def simulate(args: argparse.Namespace) -> int:
    if args.list:
        for name in presets():
            print(f"{name:28} {load_scenario(name).title}")
        return 0
    if not args.scenario:
        print("blockviz simulate: name a scenario file or preset (see --list)", file=sys.stderr)
        return 2
    try:
        scenario = load_scenario(args.scenario)
        sim = scenario.run()
    except ValueError as e:
        print(f"blockviz simulate: {e}", file=sys.stderr)
        return 2
    print(scenario.title)
    if scenario.notes:
        print(scenario.notes.strip())
    print()
    print(render_steps_table(sim.frames))
    if args.verbose:
        for frame in sim.frames:
            print()
            print(render_text(frame.snapshot, sim.tokenizer.decode))
    else:
        print()
        print(render_text(sim.snapshot(), sim.tokenizer.decode))
    if args.trace:
        sim.save(args.trace)
        print(f"\ntrace written to {args.trace}")
    return 0


def exercise(args: argparse.Namespace, rest: list[str]) -> int:
    from blockviz.exercises.cli import main as exercise_main
    return exercise_main(rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="blockviz", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="run a scenario and print the step-by-step table")
    sim.add_argument("scenario", nargs="?", help="a preset name or a scenario .toml file")
    sim.add_argument("--list", action="store_true", help="list the preset scenarios")
    sim.add_argument("--verbose", "-v", action="store_true", help="print the whole pool after every step")
    sim.add_argument("--trace", metavar="FILE", help="also save the trace as JSON")
    sub.add_parser("exercise", help="practise hand calculations (blockviz exercise --help)", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["exercise"]:
        return exercise(argparse.Namespace(), argv[1:])
    args = build_parser().parse_args(argv)
    return {"simulate": simulate}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
