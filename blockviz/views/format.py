"""Small formatting helpers shared by every renderer."""


def short_hash(h: int, digits: int = 6) -> str:
    """The first hex digits of a 64-bit hash; '-' for no hash (-1)."""
    return "-" if h == -1 else f"{h:016x}"[:digits]


def full_hash(h: int) -> str:
    return "-1 (none)" if h == -1 else f"{h:016x} ({h})"


def grouped(n: int) -> str:
    """Digits in groups of three, as the docs write big counts: 65 535."""
    return f"{n:,}".replace(",", " ")
