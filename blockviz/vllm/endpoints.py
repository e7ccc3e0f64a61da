"""Where a subscriber meets vLLM's publisher: vLLM's own rules for binding and for ports per rank.

vLLM's ZmqEventPublisher binds its PUB socket when the endpoint has a wildcard (`tcp://*:5557`,
`tcp://[::]:5557`) or is ipc:// or inproc://, and connects otherwise; so a subscriber does the
opposite. Its replay ROUTER always binds. Data-parallel rank r publishes on the endpoint's port + r
(inproc/ipc names get a `_dp{r}` suffix).
"""
import re


def publisher_binds(endpoint: str) -> bool:
    return ("*" in endpoint or "::" in endpoint or endpoint.startswith("ipc://")
            or endpoint.startswith("inproc://"))


def peer_address(endpoint: str, host: str | None = None) -> str:
    """The address to connect to a socket that binds `endpoint`: its wildcard becomes `host`
    (the machine vLLM runs on; default loopback)."""
    if host is not None:
        return re.sub(r"^tcp://(\*|\[::\]):", f"tcp://{host}:", endpoint)
    return endpoint.replace("tcp://*:", "tcp://127.0.0.1:").replace("tcp://[::]:", "tcp://[::1]:")


def offset_port(endpoint: str, rank: int) -> str:
    """The endpoint data-parallel rank `rank` uses, as vLLM derives it."""
    if rank == 0:
        return endpoint
    if endpoint.startswith(("inproc://", "ipc://")):
        return f"{endpoint}_dp{rank}"
    base, _, port = endpoint.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"endpoint {endpoint!r} has no port to offset for data-parallel rank {rank}")
    return f"{base}:{int(port) + rank}"


def default_replay(endpoint: str) -> str:
    """The replay endpoint `blockviz vllm serve` gives vLLM: the events port + 1."""
    return offset_port(endpoint, 1)


def check_endpoint(endpoint: str) -> str:
    if not endpoint.startswith(("tcp://", "ipc://", "inproc://")):
        raise ValueError(f"endpoint {endpoint!r} should start with tcp://, ipc:// or inproc://")
    if endpoint.startswith("tcp://") and not endpoint.rpartition(":")[2].isdigit():
        raise ValueError(f"endpoint {endpoint!r} has no port (tcp://HOST:PORT)")
    return endpoint
