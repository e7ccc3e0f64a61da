"""The `blockviz` command: simulate a scenario, practise exercises, run the classroom demo, serve and
watch a real vLLM, replay a serving trace.

The top floor: one file per subcommand, each with its parser and its runner (simulate.py, exercise.py,
demo.py, vllm.py with serve.py and lab.py, traffic.py). They may import anything in blockviz; nothing in
blockviz imports them (tests/test_import_cycles.py). A subcommand's module is imported only when the
parser is built, so `blockviz exercise` starts without the others."""
import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    from blockviz.commands.demo import add_demo_parser
    from blockviz.commands.simulate import add_simulate_parser
    from blockviz.commands.traffic import add_traffic_parser
    from blockviz.commands.vllm import add_vllm_parser
    parser = argparse.ArgumentParser(prog="blockviz", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_simulate_parser(sub)
    sub.add_parser("exercise", help="practise hand calculations (blockviz exercise --help)", add_help=False)
    add_demo_parser(sub)
    add_vllm_parser(sub)
    add_traffic_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["exercise"]:   # its own parser (and its own --help)
        from blockviz.commands.exercise import main as exercise
        return exercise(argv[1:])
    extra = []   # `blockviz vllm serve ... -- ARGS`: ARGS go to vLLM as they are
    if argv[:1] == ["vllm"] and "--" in argv:
        argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = build_parser().parse_args(argv)
    from blockviz.commands import demo, simulate, traffic, vllm
    if args.command == "vllm":
        return vllm.run(args, extra)
    return {"simulate": simulate.run, "demo": demo.run, "traffic": traffic.run}[args.command](args)
