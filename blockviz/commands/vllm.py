"""`blockviz vllm serve | watch | lab`: the parser of all three and `watch`, which prints a batch of KV
events a line; `serve` runs in serve.py, `lab` in lab.py."""
import argparse
import sys
import time

from blockviz.commands.lab import add_lab_parser, run_lab_command
from blockviz.commands.serve import serve, serve_fleet
from blockviz.vllm.endpoints import default_replay
from blockviz.vllm.serve import ENV_COST, MAKE_ENV, VLLM_VERSION_TESTED, ServeError, ServerSettings
from blockviz.vllm.watch import DEFAULT_EVENTS


def add_vllm_parser(sub):
    d = ServerSettings()
    vllm = sub.add_parser("vllm", help="a real vLLM: serve it, watch its prefix cache through its KV events",
                          description=f"Serve a real vLLM (tested with {VLLM_VERSION_TESTED}) and watch its prefix "
                          f"cache. The project's vLLM environment comes from `{MAKE_ENV}` ({ENV_COST}).")
    commands = vllm.add_subparsers(dest="vllm_command", required=True)
    s = commands.add_parser("serve", help="start vLLM's OpenAI-compatible server with prefix caching and KV events",
                            description="Start vLLM on loopback with prefix caching, KV events (ZMQ), a replay "
                            "endpoint and prompt-token details; prints a line with `ready` once it serves; Ctrl-C "
                            "stops it and its engine. Arguments after `--` go to vLLM as they are.")
    s.add_argument("--model", metavar="DIR", help="a model folder or name (default: the embedded model)")
    s.add_argument("--port", type=int, default=d.port, help="HTTP port (default %(default)s)")
    s.add_argument("--host", default=d.host, help="address to listen on (default %(default)s)")
    s.add_argument("--events", default=d.events, metavar="ADDR",
                   help="KV-event endpoint; without `*` vLLM connects to it and the watch binds it "
                   "(default %(default)s)")
    s.add_argument("--replay", metavar="ADDR", help="replay endpoint vLLM binds (default: the events port + 1)")
    s.add_argument("--topic", default=d.topic, help="ZMQ topic of the events (default: none)")
    s.add_argument("--blocks", type=int, metavar="N", help="KV pool size in blocks (small, so eviction shows)")
    s.add_argument("--block-size", type=int, default=d.block_size, metavar="B",
                   help="tokens per block; vLLM's CPU attention takes multiples of 32 (default %(default)s)")
    s.add_argument("--max-model-len", type=int, metavar="N", help="default: 512 for the embedded model")
    s.add_argument("--dtype", help="default: float32 for the embedded model, else the checkpoint's")
    s.add_argument("--vllm-python", metavar="PYTHON", help="the python of an existing vLLM installation "
                   "(a GPU box) instead of the project's .venv-vllm")
    s.add_argument("--dev-mode", action="store_true", help="also vLLM's development endpoints "
                   "(/reset_prefix_cache, ...); keep the server on loopback then")
    s.add_argument("--log", metavar="FILE", help="write vLLM's own log there instead of the terminal "
                   "(with --instances: FILE-A, FILE-B, ...)")
    s.add_argument("--instances", type=int, default=1, metavar="N", help="N servers (A, B, ...) for a router: "
                   "instance i on port + i, events port + 2i, replay port + 2i + 1 (default %(default)s)")
    w = commands.add_parser("watch", help="print a vLLM's prefix cache as its KV events arrive",
                            description="Follow a vLLM's KV events and print one line per batch (--tree: the "
                            "cached chains too). Ctrl-C stops; --save keeps what was seen.")
    w.add_argument("--events", default=DEFAULT_EVENTS, metavar="ADDR", help="as vLLM's --kv-events-config names "
                   "it (default %(default)s)")
    w.add_argument("--replay", metavar="ADDR", help="its replay endpoint (default: the events port + 1; "
                   "'none' for no replay)")
    w.add_argument("--api", default=f"http://127.0.0.1:{d.port}", help="its HTTP address, for the hit rate "
                   "(default %(default)s)")
    w.add_argument("--topic", default="", help="only this topic (default: all)")
    w.add_argument("--host", help="the machine of a vLLM whose endpoints have `*` (default: this one)")
    w.add_argument("--data-parallel-size", type=int, default=1, metavar="N", help="ranks, one port each (default 1)")
    w.add_argument("--instances", type=int, default=1, metavar="N", help="the N servers of `serve --instances N` "
                   "with the same --events and --replay, watched together (default 1)")
    w.add_argument("--history", type=int, default=10_000, metavar="STEPS", help="steps kept (default %(default)s)")
    w.add_argument("--tree", action="store_true", help="print the cached chains after each batch")
    w.add_argument("--save", metavar="FILE", help="write the kept steps there at exit (blockviz.vllm.load reads it)")
    add_lab_parser(commands)


def run(args: argparse.Namespace, extra: list[str]) -> int:
    try:
        if args.vllm_command == "serve":
            settings = ServerSettings(model=args.model, port=args.port, host=args.host, events=args.events,
                                      replay=args.replay, topic=args.topic, blocks=args.blocks,
                                      block_size=args.block_size, max_model_len=args.max_model_len, dtype=args.dtype,
                                      vllm_python=args.vllm_python, dev_mode=args.dev_mode, extra=extra)
            if args.instances != 1:
                return serve_fleet(settings, args.instances, args.log)
            return serve(settings, args.log)
        if args.vllm_command == "lab":
            return run_lab_command(args)
        return watch_terminal(args)
    except (ServeError, ValueError, OSError) as e:
        print(f"blockviz vllm {args.vllm_command}: {e}", file=sys.stderr)
        return 2


def watch_terminal(args: argparse.Namespace) -> int:
    from blockviz.views.render_forest import forest_text, step_line
    from blockviz.vllm.watch import Watch
    replay = None if args.replay == "none" else args.replay or default_replay(args.events)
    events: str | list[str] = args.events
    if args.instances != 1:   # laid out as `serve --instances` does; counters need one server, so none
        from blockviz.vllm.fleet import instance_settings
        given = None if args.replay == "none" else args.replay
        laid_out = instance_settings(ServerSettings(events=args.events, replay=given), args.instances)
        events, args.api = [s.events for s in laid_out], None
        replay = None if replay is None else [s.replay_endpoint for s in laid_out]
    with Watch(events, args.api, replay, topic=args.topic, host=args.host, data_parallel_size=args.data_parallel_size,
               history=args.history) as w:
        print(f"watching {', '.join(w.meta['sources'])} (replay {replay or 'none'}); Ctrl-C stops", flush=True)
        shown = w.last_step
        try:
            while True:
                time.sleep(0.2)
                last = w.last_step   # read once: a step that arrives while these print is shown next time
                for step in range(max(shown + 1, w.first_step), last + 1):
                    picture = w.picture(step)
                    print(step_line(picture), flush=True)
                    if args.tree:
                        print(forest_text(picture, w.decode), flush=True)
                shown = last
        except KeyboardInterrupt:
            pass
        finally:
            if args.save:
                w.save(args.save)
                print(f"saved steps {w.first_step}..{w.last_step} to {args.save}", file=sys.stderr)
    return 0
