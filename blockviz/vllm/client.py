"""The few HTTP calls blockviz makes to a vLLM OpenAI-compatible server (standard library only)."""
import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families


class ServerError(RuntimeError):
    pass


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    cached_tokens: int          # usage.prompt_tokens_details.cached_tokens: vLLM's own count of reuse
    completion_tokens: int
    token_ids: tuple[int, ...] = ()   # the generated tokens (return_token_ids): what the lab feeds nano-vllm


class Client:

    def __init__(self, api: str = "http://127.0.0.1:8000", timeout: float = 60.0):
        self.api, self.timeout = api.rstrip("/"), timeout
        self._model: str | None = None

    def _call(self, path: str, body: dict | None = None, method: str | None = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.api + path, data, {"Content-Type": "application/json"},
                                         method=method or ("POST" if data is not None else "GET"))
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as e:
            raise ServerError(f"{self.api}{path}: HTTP {e.code} {e.read()[:300].decode(errors='replace')}") from None
        except (urllib.error.URLError, OSError) as e:
            raise ServerError(f"{self.api}{path}: {getattr(e, 'reason', e)}") from None

    @property
    def model(self) -> str:
        if self._model is None:
            self._model = json.loads(self._call("/v1/models"))["data"][0]["id"]
        return self._model

    def ready(self) -> bool:
        try:
            self._call("/health")
            return True
        except ServerError:
            return False

    def complete(self, prompt: list[int] | str, max_tokens: int = 1, ignore_eos: bool = False) -> Completion:
        """A greedy completion of token ids (or text); what vLLM reports it reused and the generated
        token ids come back. ignore_eos: exactly max_tokens tokens (vLLM's sampling extension)."""
        body = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0,
                "return_token_ids": True, "ignore_eos": ignore_eos}
        reply = json.loads(self._call("/v1/completions", body))
        usage = reply["usage"]
        details = usage.get("prompt_tokens_details") or {}
        choice = reply["choices"][0]
        return Completion(choice["text"], usage["prompt_tokens"], details.get("cached_tokens") or 0,
                          usage["completion_tokens"], tuple(choice.get("token_ids") or ()))

    def reset_prefix_cache(self):
        """vLLM's /reset_prefix_cache (a development endpoint: the server needs VLLM_SERVER_DEV_MODE=1,
        which `blockviz vllm serve --dev-mode` sets)."""
        self._call("/reset_prefix_cache", {}, method="POST")

    def kv_event_sources(self) -> dict:
        """The KV-event publisher settings per data-parallel rank, as the server reports them."""
        return json.loads(self._call("/kv_event_sources"))

    def server_config(self) -> dict:
        """vLLM's whole configuration (/server_info, a development endpoint like /reset_prefix_cache);
        empty when the server does not offer it."""
        try:
            return json.loads(self._call("/server_info?config_format=json")).get("vllm_config") or {}
        except ServerError:
            return {}

    def cache_config(self) -> dict[str, str]:
        """vLLM's CacheConfig as /metrics reports it (vllm:cache_config_info labels: num_gpu_blocks,
        block_size, enable_prefix_caching, ...); empty when the server does not report it."""
        for family in text_string_to_metric_families(self._call("/metrics").decode()):
            if family.name == "vllm:cache_config_info" and family.samples:
                return dict(family.samples[0].labels)
        return {}

    def prefix_cache_counters(self) -> dict[str, float]:
        """Prompt tokens looked up in and found in the prefix cache, from /metrics (summed over engines)."""
        text = self._call("/metrics").decode()
        totals = {"queries": 0.0, "hits": 0.0}
        for family in text_string_to_metric_families(text):
            for name in totals:
                if family.name == f"vllm:prefix_cache_{name}":
                    totals[name] += sum(sample.value for sample in family.samples if sample.name.endswith("_total"))
        return totals
