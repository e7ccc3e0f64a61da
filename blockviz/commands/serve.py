"""`blockviz vllm serve`: start vLLM (one server, or --instances N for a router), say where it serves
and how to watch it, serve until Ctrl-C or SIGTERM, and stop every engine it started."""
import signal
import sys
import time
from pathlib import Path
from typing import Callable, Protocol

from blockviz.vllm.serve import Server, ServerSettings


class Servers(Protocol):
    """What serve_until_stopped runs: a Server, or a fleet of them (vllm/fleet.py)."""

    def start(self): ...

    def wait_ready(self): ...

    def exited(self) -> str | None: ...

    def stop(self): ...


def serve(settings: ServerSettings, log: str | Path | None = None) -> int:
    """One server: start, say `ready`, serve until Ctrl-C (or SIGTERM), stop cleanly."""
    return serve_until_stopped(Server(settings, log), lambda: (
        f"blockviz vllm serve: ready at {settings.api} (vLLM, KV events {settings.events}, "
        f"replay {settings.replay_endpoint}). Watch it from Python with\n    {attach_hint(settings)}\n"
        f"or `blockviz vllm watch`. Ctrl-C stops it."))


def serve_fleet(base: ServerSettings, count: int, log: str | Path | None = None) -> int:
    """`--instances N`: N servers laid out from `base` (vllm/fleet.py), until Ctrl-C."""
    from blockviz.vllm.fleet import Fleet
    fleet = Fleet.of(count, base, log)
    return serve_until_stopped(fleet, lambda: fleet_ready_message(fleet.settings, count, base))


def attach_hint(settings: ServerSettings) -> str:
    return (f'blockviz.vllm.watch(events="{settings.events}", replay="{settings.replay_endpoint}", '
            f'api="{settings.api}")')


def fleet_ready_message(instances: dict[str, ServerSettings], count: int, base: ServerSettings) -> str:
    lines = [f"blockviz vllm serve: {count} instances ready (vLLM, prefix caching, KV events):"]
    lines += [f"    {name} at {s.api} (KV events {s.events}, replay {s.replay_endpoint})"
              for name, s in instances.items()]
    fields = [f"port={base.port}", f"events={base.events!r}"] + (
        [f"host={base.host!r}"] if base.host != ServerSettings.host else []) + (
        [f"replay={base.replay!r}"] if base.replay else [])
    lines += ["Watch them together and route prompts from Python with",
              "    from blockviz.vllm.fleet import Fleet; from blockviz.vllm.serve import ServerSettings",
              f"    fleet = Fleet.of({count}, ServerSettings({', '.join(fields)})); watch = fleet.watch()",
              "Ctrl-C stops them all."]
    return "\n".join(lines)


def serve_until_stopped(servers: Servers, ready: Callable[[], str]) -> int:
    """Start (one server or a fleet), print `ready()` once it serves, serve until Ctrl-C or SIGTERM
    or until a vLLM exits, and stop everything started."""
    signal.signal(signal.SIGTERM, _interrupt)   # `kill` stops vLLM as cleanly as Ctrl-C does
    servers.start()
    try:
        servers.wait_ready()
        print(ready(), flush=True)
        while (exited := servers.exited()) is None:
            time.sleep(0.5)
        print(f"blockviz vllm serve: {exited}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("blockviz vllm serve: stopping vLLM", file=sys.stderr, flush=True)
        return 0
    finally:
        servers.stop()


def _interrupt(signum, frame):
    raise KeyboardInterrupt
