"""Strings of blockviz/exercises/kinds/recorded.py:
the recorded vLLM caches that vllm_cached and router_pick read."""

STRINGS: dict[str, dict[str, str]] = {
    "recorded.note": {
        "en": "*Recorded from a real vLLM server: the blocks its KV events say it caches (scripts/record_lesson10.py).*",
        "zh": "*录自真实的 vLLM 服务器：它的 KV 事件报告的缓存块（scripts/record_lesson10.py）。*"},
    "recorded.col.instance": {"en": "instance", "zh": "实例"},
    "recorded.col.block": {"en": "block hash", "zh": "块 hash"},
    "recorded.col.parent": {"en": "parent hash", "zh": "父块 hash"},
    "recorded.col.tokens": {"en": "its tokens, as text", "zh": "它的 token（文本）"},
    "recorded.col.logical": {"en": "block", "zh": "块"},
    "recorded.col.count": {"en": "tokens", "zh": "token 数"},
}
