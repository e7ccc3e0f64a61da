"""`blockviz demo`: the classroom demo, a real model serving requests that share a system prompt, live."""
import argparse
import sys

from blockviz.i18n import LANGS


def port_number(text: str) -> int:
    """argparse type: a TCP port, so --port 70000 is a usage error, not an OverflowError from the socket."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is in 1..65535, got {port}")
    return port


def add_demo_parser(sub):
    from blockviz import policies
    from blockviz.demo.settings import DemoSettings
    from blockviz.models.config import DTYPE_NAMES
    d = DemoSettings()
    demo = sub.add_parser("demo", help="classroom demo: a real model serving requests that share a system prompt, live",
                          description="Serve a live dashboard to the teacher (JupyterLab, token-protected, on "
                          "127.0.0.1) and a read-only class page for the projector and students' devices: many "
                          "requests share a system prompt while the block pool fills, shares, evicts and preempts.")
    demo.add_argument("--model", metavar="PATH", help="a Qwen3 checkpoint folder (default: the embedded model)")
    demo.add_argument("--device", choices=["cpu", "cuda"], help="default: cuda when available, else cpu")
    demo.add_argument("--dtype", choices=DTYPE_NAMES,
                      help="weights and KV pool (default: float32 on CPU, the checkpoint's on CUDA; "
                      "float16 for GPUs without bfloat16)")
    pool = demo.add_mutually_exclusive_group()
    pool.add_argument("--blocks", type=int, metavar="N", help=f"KV pool size in blocks (default {d.DEFAULT_BLOCKS})")
    pool.add_argument("--kv-memory", metavar="BYTES", help="KV pool size in bytes instead (e.g. 4M, 2G)")
    demo.add_argument("--policy", default=d.policy, metavar="NAME",
                      help=f"block policy: {', '.join(policies.names())} (default %(default)s); under sglang the "
                      "class page shows SGLang's radix tree in place of the hash chain")
    demo.add_argument("--block-size", type=int, default=d.block_size, metavar="B", help="tokens per block (default %(default)s)")
    demo.add_argument("--requests", type=int, default=d.requests, metavar="N",
                      help="requests that arrive while it runs (default %(default)s)")
    demo.add_argument("--system-prompt", metavar="TEXT", help="the prompt every request starts with "
                      "(default: the opening of Pride and Prejudice)")
    demo.add_argument("--max-tokens", type=int, default=d.max_tokens, metavar="N", help="per request (default %(default)s)")
    demo.add_argument("--temperature", type=float, default=d.temperature, help="0: greedy (default %(default)s)")
    demo.add_argument("--arrival-every", type=int, default=d.arrival_every, metavar="STEPS",
                      help="engine steps between two arrivals; 0: all at once (default %(default)s)")
    demo.add_argument("--max-batched-tokens", type=int, default=d.max_num_batched_tokens, metavar="N",
                      help="token budget per step; longer prompts are prefilled in chunks (default %(default)s)")
    demo.add_argument("--pace", type=float, default=d.pace, metavar="STEPS",
                      help="engine steps per second at most, so a class can follow (changeable on the page); "
                      "0: as fast as it goes (default %(default)g)")
    demo.add_argument("--refresh-ms", type=int, default=d.refresh_ms, metavar="MS",
                      help="refresh the views at most this often while generating (default %(default)s)")
    demo.add_argument("--seed", type=int, default=d.seed, help="sampling seed (default %(default)s)")
    demo.add_argument("--history", type=int, default=d.history, metavar="STEPS",
                      help="steps kept for stepping back; 0: every step (default %(default)s)")
    demo.add_argument("--share", action="store_true", help="open the read-only class page to the network "
                      "(as --ip 0.0.0.0); the teacher's JupyterLab always stays on 127.0.0.1")
    demo.add_argument("--ip", default="127.0.0.1", help="address the class page listens on (default %(default)s)")
    demo.add_argument("--port", type=port_number, help="the teacher's JupyterLab port (default: a free port)")
    demo.add_argument("--class-port", type=port_number, metavar="PORT", help="the class page's port (default: a free port)")
    demo.add_argument("--lang", choices=LANGS, default=d.lang)
    demo.add_argument("--dir", metavar="PATH", help="working folder for the notebook and settings "
                      "(default: a temporary folder, removed at exit)")
    demo.add_argument("--no-browser", action="store_true", help="only print the URL")


def run(args: argparse.Namespace) -> int:
    from blockviz.demo.settings import DemoError, DemoSettings, parse_bytes  # torch and jupyter only for the demo
    try:
        settings = DemoSettings(model=args.model, device=args.device, dtype=args.dtype, num_blocks=args.blocks,
                                kv_memory=parse_bytes(args.kv_memory) if args.kv_memory else None,
                                block_size=args.block_size, requests=args.requests, max_tokens=args.max_tokens,
                                temperature=args.temperature, arrival_every=args.arrival_every, pace=args.pace,
                                max_num_batched_tokens=args.max_batched_tokens, refresh_ms=args.refresh_ms,
                                lang=args.lang, seed=args.seed, history=args.history or None, policy=args.policy)
        if args.system_prompt is not None:
            settings.system_prompt = args.system_prompt
        from blockviz.demo.server import serve
        ip = "0.0.0.0" if args.share and args.ip == "127.0.0.1" else args.ip
        return serve(settings, ip=ip, port=args.port, class_port=args.class_port, open_browser=not args.no_browser,
                     workdir=args.dir)
    except (DemoError, ValueError, OSError) as e:
        print(f"blockviz demo: {e}", file=sys.stderr)
        return 2
