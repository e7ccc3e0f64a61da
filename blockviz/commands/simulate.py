"""`blockviz simulate`: run a scenario (a preset or a .toml file) and print its step-by-step table."""
import argparse
import sys

# what `blockviz simulate` says to a user with no scenario file yet: copy a preset's
START_FROM = "blockviz simulate --print seed004 > my.toml"


def add_simulate_parser(sub):
    sim = sub.add_parser("simulate", help="run a scenario and print the step-by-step table")
    sim.add_argument("scenario", nargs="?", help="a preset name or a scenario .toml file")
    sim.add_argument("--list", action="store_true", help="list the preset scenarios")
    sim.add_argument("--print", metavar="PRESET", help=f"print a preset's TOML file, to start your own: {START_FROM}")
    sim.add_argument("--verbose", "-v", action="store_true", help="print the whole pool after every step")
    sim.add_argument("--trace", metavar="FILE.jsonl", help="also save the recording as JSON Lines, a line a step "
                     "(blockviz.recording.io.load_trace reads it back)")


def run(args: argparse.Namespace) -> int:
    from blockviz.scenarios import PRESETS_DIR, ScenarioNotFound, load_scenario, preset_path, presets
    from blockviz.text import render_text
    from blockviz.views.render_text import render_steps_table
    if args.list:
        for name in presets():
            print(f"{name:28} {load_scenario(name).title}")
        print(f"\nEach is a TOML file in {PRESETS_DIR}; start your own from one: {START_FROM}")
        return 0
    if args.print:
        try:
            print(preset_path(args.print).read_text(encoding="utf-8"), end="")
        except ValueError as e:
            print(f"blockviz simulate: {e}", file=sys.stderr)
            return 2
        return 0
    if not args.scenario:
        print("blockviz simulate: name a scenario file or preset (see --list)", file=sys.stderr)
        return 2
    try:
        scenario = load_scenario(args.scenario)
        sim = scenario.run()
    except ScenarioNotFound as e:
        print(f"blockviz simulate: {e}\nstart a scenario file from a preset: {START_FROM}", file=sys.stderr)
        return 2
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
        print(f"\ntrace written to {args.trace} (JSON Lines: one JSON value a line, a line a step)")
        if args.trace.endswith(".json"):
            print("blockviz simulate: note: the trace is JSON Lines, not one JSON document; "
                  "name it .jsonl so tools read it as such", file=sys.stderr)
    return 0
