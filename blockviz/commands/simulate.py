"""`blockviz simulate`: run a scenario (a preset or a .toml file) and print its step-by-step table."""
import argparse
import sys

from blockviz.scenarios import load_scenario, presets
from blockviz.text import render_text
from blockviz.views.render_text import render_steps_table


def add_simulate_parser(sub):
    sim = sub.add_parser("simulate", help="run a scenario and print the step-by-step table")
    sim.add_argument("scenario", nargs="?", help="a preset name or a scenario .toml file")
    sim.add_argument("--list", action="store_true", help="list the preset scenarios")
    sim.add_argument("--verbose", "-v", action="store_true", help="print the whole pool after every step")
    sim.add_argument("--trace", metavar="FILE", help="also save the trace as JSON")


def run(args: argparse.Namespace) -> int:
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
        try:
            sim.save(args.trace)
        except OSError as e:
            print(f"blockviz simulate: cannot write the trace: {e}", file=sys.stderr)
            return 2
        print(f"\ntrace written to {args.trace}")
    return 0
