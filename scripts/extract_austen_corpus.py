"""Extract the default model's corpus from Debian's r-cran-janeaustenr package.

The package carries Project Gutenberg's texts of Jane Austen's novels (public domain; the package
itself is MIT) as R lazy-load data. This script reads that data without R:

    apt-get download r-cran-janeaustenr && dpkg -x r-cran-janeaustenr_*.deb /tmp/janeaustenr
    python scripts/extract_austen_corpus.py \
        /tmp/janeaustenr/usr/lib/R/site-library/janeaustenr/data/Rdata.rdb

It writes one file per chosen novel into blockviz/models/default/corpus/, one paragraph a line
(the Gutenberg hard wraps joined), which is what the tokenizer and the training script read.
"""
import argparse
import re
import struct
import zlib
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent.parent / "blockviz" / "models" / "default" / "corpus"
# Title line -> file name. Three of the six novels keep the corpus near 1.8 MB.
CHOSEN = {
    "PRIDE AND PREJUDICE": "pride_and_prejudice.txt",
    "SENSE AND SENSIBILITY": "sense_and_sensibility.txt",
    "Persuasion": "persuasion.txt",
}
STRSXP, CHARSXP = 16, 9


def read_objects(rdb: bytes) -> list[bytes]:
    # An .rdb file is a run of records: 4-byte big-endian length, then a zlib stream.
    objects, pos = [], 0
    while pos < len(rdb):
        stream = zlib.decompressobj()
        objects.append(stream.decompress(rdb[pos + 4:]))
        pos = len(rdb) - len(stream.unused_data)
    return objects


def read_character_vector(obj: bytes) -> list[str]:
    # R's XDR serialization, version 3: "X\n", three ints, the native encoding, then the object.
    if obj[:2] != b"X\n":
        raise ValueError("not an XDR-serialized R object")
    pos = 2 + 3 * 4
    (enc_len,) = struct.unpack(">i", obj[pos:pos + 4])
    pos += 4 + enc_len
    flags, n = struct.unpack(">ii", obj[pos:pos + 8])
    pos += 8
    if flags & 0xFF != STRSXP:
        raise ValueError("not a character vector")
    lines = []
    for _ in range(n):
        flags, length = struct.unpack(">ii", obj[pos:pos + 8])
        pos += 8
        if flags & 0xFF != CHARSXP:
            raise ValueError("unexpected element in character vector")
        if length < 0:  # NA_character_
            lines.append("")
            continue
        lines.append(obj[pos:pos + length].decode("utf-8"))
        pos += length
    return lines


def paragraphs(lines: list[str]) -> list[str]:
    text = "\n".join(lines)
    return [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rdb", type=Path, help="path to janeaustenr's data/Rdata.rdb")
    args = parser.parse_args()
    CORPUS_DIR.mkdir(parents=True, exist_ok=True)
    for obj in read_objects(args.rdb.read_bytes()):
        lines = read_character_vector(obj)
        title = next(line.strip() for line in lines if line.strip())
        if title in CHOSEN:
            out = CORPUS_DIR / CHOSEN[title]
            out.write_text("\n".join(paragraphs(lines)) + "\n", encoding="utf-8")
            print(f"{out}: {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
