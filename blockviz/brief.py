"""A user's value described in an error message: depth- and length-limited, so that describing a
list nested 5,000 deep, a 5,000-digit number or a megabyte of text is short and never raises
(no RecursionError while building the message about it). The one repr every error message uses."""
import reprlib

_repr = reprlib.Repr()
_repr.maxlevel = 4       # deeper than this shows as [...]
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdict = 8
_repr.maxstring = 80
_repr.maxlong = 40
_repr.maxother = 80


def brief(value: object, limit: int = 80) -> str:
    """repr(value), cut to `limit` characters (an ellipsis marks the cut)."""
    try:
        text = _repr.repr(value)
    except Exception:  # a repr that raises (or recurses) still gets a description
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[:max(limit - 1, 1)] + "…"
