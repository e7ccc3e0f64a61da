"""`blockviz vllm lab`: a stream through a running vLLM and nano-vllm, the differences printed."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blockviz.i18n import LANGS
from blockviz.vllm.endpoints import default_replay
from blockviz.vllm.lab.stream import SCRIPTED


def add_lab_parser(commands):
    lab = commands.add_parser("lab", help="one stream through a running vLLM and nano-vllm, differences explained",
                              description="Send a request stream to a running `blockviz vllm serve --dev-mode` "
                              "(its prefix cache is reset before and after), replay it through nano-vllm with the "
                              "same pool less vLLM's null block, and print each difference with the rule behind it.")
    lab.add_argument("--stream", default="mixed", choices=sorted(SCRIPTED), help="a scripted stream (default "
                     "%(default)s)")
    lab.add_argument("--file", metavar="FILE", help="a typed stream instead: one request a line; `> text` a chat "
                     "turn, `* text` lines sent at once, `[1, 2]` token ids, `#` comments")
    lab.add_argument("--max-tokens", type=int, default=4, metavar="N", help="tokens generated per typed request "
                     "(default %(default)s)")
    lab.add_argument("--api", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    lab.add_argument("--events", default="tcp://127.0.0.1:5557", metavar="ADDR", help="its KV events "
                     "(default %(default)s)")
    lab.add_argument("--replay", metavar="ADDR", help="its replay endpoint (default: the events port + 1)")
    lab.add_argument("--no-reset", action="store_true", help="do not reset vLLM's prefix cache (a server without "
                     "--dev-mode; then it must start empty for the engines to compare)")
    lab.add_argument("--html", metavar="FILE", help="also write the lab view there (a standalone page)")
    lab.add_argument("--save", metavar="FILE", help="also keep the run there (blockviz.vllm.lab.load_lab shows it "
                     "again without a server)")
    lab.add_argument("--lang", default="en", choices=LANGS, help="language of the page (default en)")


def run_lab_command(args: argparse.Namespace) -> int:
    from blockviz.views.lab import render_lab
    from blockviz.vllm.client import Client, ServerError
    from blockviz.vllm.lab.run import run_lab
    from blockviz.vllm.lab.stream import parse, scripted
    from blockviz.vllm.watch import Watch
    client = Client(args.api)
    try:
        if args.file:
            stream = parse(Path(args.file).read_text(encoding="utf-8"), Watch(subscribe=False).tokenizer.encode,
                           args.max_tokens)
        else:
            stream = scripted(args.stream)
        with Watch(args.events, args.api, args.replay or default_replay(args.events)) as watch:
            result = run_lab(stream, client, watch, reset=not args.no_reset)
    except (ServerError, ValueError, OSError, TimeoutError) as e:
        print(f"blockviz vllm lab: {e}", file=sys.stderr)
        return 2
    print(result.summary())
    if args.save:
        from blockviz.vllm.lab.saved import save_lab
        save_lab(result, args.save, note=f"blockviz vllm lab against {args.api}")
        print(f"saved {args.save}", file=sys.stderr)
    if args.html:
        Path(args.html).write_text(f'<!doctype html><meta charset="utf-8">{render_lab(result, args.lang)}',
                                   encoding="utf-8")
        print(f"wrote {args.html}", file=sys.stderr)
    return 1 if result.unexplained else 0
