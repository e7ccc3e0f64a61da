"""SGLang's own files at the release blockviz's radix cache matches, pinned for the tests.

Copied unchanged from the package index's `sglang` wheel, release VERSION
(sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl, sha256 WHEEL_SHA256), under their paths in
the wheel (the same as `python/sglang/...` in github.com/sgl-project/sglang). Apache License 2.0,
LICENSE beside this file (the wheel's own). RECORD_SHA256 are the wheel's RECORD entries for them.
tests/radix/test_upstream_text.py diffs blockviz/radix's copies against them.
"""
import base64
import hashlib
from pathlib import Path

VERSION = "0.5.23"
WHEEL_SHA256 = "00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937"
RECORD_SHA256 = {
    "sglang/srt/mem_cache/radix_cache.py": "7qcBX89ngWescpawjI3FaMy-QqS7EG2iOzOnxZ3r7AE",
    "sglang/srt/mem_cache/evict_policy.py": "__QzDdjgwEZwZCunIfCh1k4X_28xN1IdXKgMxpm_lXM",
}
ROOT = Path(__file__).parent


def text(path: str) -> str:
    """The pinned file at `path` (as in the wheel, e.g. "sglang/srt/mem_cache/radix_cache.py")."""
    return (ROOT / path).read_text(encoding="utf-8")


def record_hash(path: str) -> str:
    """The file's sha256 as a wheel's RECORD writes it (urlsafe base64, no padding)."""
    digest = hashlib.sha256((ROOT / path).read_bytes()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
