"""What both trace formats share: their name, the error for a file that is not a trace, the K/V
payload's JSON form, and the tokenizer a model trace carries (the text of each token id)."""
import numpy as np

FORMAT = "blockviz-trace"


class TraceError(ValueError):
    """A file that is not a readable blockviz trace."""


KV_VALUES = ("k", "v")  # traces saved before V was recorded have only "k"


def payload_to_dict(payload: dict | None) -> dict | None:
    if not payload:
        return None
    kv = payload.get("kv")
    if not kv:
        return None
    return {"kv": {**kv, **{name: kv[name].astype(float).round(4).tolist() for name in KV_VALUES if name in kv}}}


def payload_from_dict(data: dict | None) -> dict | None:
    if not data:
        return None
    kv = data["kv"]
    values = {name: np.asarray(kv[name], dtype=np.float16).reshape(len(kv["slots"]), -1)
              for name in KV_VALUES if name in kv}
    return {"kv": {**kv, **values}}


class PieceTokenizer:
    """Decodes a loaded trace's tokens with the text of each token id saved beside it."""

    def __init__(self, pieces: dict[int, str]):
        self.pieces = pieces

    def decode(self, token_ids: list[int]) -> str:
        return "".join(self.pieces.get(t, f"<{t}>") for t in token_ids)
