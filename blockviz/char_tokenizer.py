"""The Simulator's tokenizer: one token per character, token id = Unicode code point.

Deterministic and needs no files, and a block of B tokens is B readable characters, which is
what the lessons want to show. The model uses its own BPE tokenizer instead.
"""


class CharTokenizer:
    eos_token_id = 0  # U+0000 never occurs in typed text
    trace_name = "chars"  # how a saved trace names it, so a loaded trace can decode again

    def encode(self, text: str) -> list[int]:
        return [ord(ch) for ch in text]

    def decode(self, token_ids: list[int]) -> str:
        # ids that are no printable character (scenarios often use small integers) show as <id>
        return "".join(chr(t) if 0 < t < 0x110000 and chr(t).isprintable() else f"<{t}>" for t in token_ids)


class TokenIds:
    """Token ids with no text behind them: a serving trace's tokens, made up for each of its hash ids
    (blockviz/traffic/tokens.py). Each shows as <id>, as CharTokenizer shows an id that is no character,
    so a view never draws one as a stray glyph that reads like text."""
    eos_token_id = -1
    trace_name = "ids"

    def encode(self, text: str) -> list[int]:
        raise ValueError("these token ids have no text: give a list of token ids")

    def decode(self, token_ids: list[int]) -> str:
        return "".join(f"<{t}>" for t in token_ids)
