"""Markdown pictures of an engine state for exercise prompts. They show raw BlockManager data
(ref_count, hash, free queue, map), never a derived answer such as a block's state."""
from blockviz.engine.block_manager import BlockManager
from blockviz.exercises.setups import Built
from blockviz.i18n import t


def show_tokens(tokens) -> str:
    tokens = list(tokens)
    if tokens and all(33 <= t < 127 for t in tokens):
        return "".join(chr(t) for t in tokens)
    return " ".join(str(t) for t in tokens)


def show_blocks(tokens, block_size: int) -> str:
    """`abcd │ efgh │ ij`: a prompt cut into logical blocks (│, not |, so Markdown tables survive)."""
    tokens = list(tokens)
    parts = [show_tokens(tokens[i:i + block_size]) for i in range(0, len(tokens), block_size)]
    return "`" + " │ ".join(parts) + "`"


def table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def hash_labels(built: Built) -> dict[int, str]:
    """h1, h2, ... for every hash a block holds: shorter prefixes first, then by block id."""
    prefixes = hash_prefixes(built)
    held = {}
    for block in built.bm.blocks:
        if block.hash != -1 and block.hash not in held:
            held[block.hash] = (len(prefixes.get(block.hash, ())), block.block_id)
    return {h: f"h{i + 1}" for i, h in enumerate(sorted(held, key=held.get))}


def hash_prefixes(built: Built) -> dict[int, list[int]]:
    """The whole token prefix each chained hash identifies, from every request the engine saw."""
    bm = built.bm
    prefixes = {}
    for seq in built.sim.seqs.values():
        h = -1
        for i in range(len(seq) // bm.block_size):
            h = bm.compute_hash(seq.block(i), h)
            prefixes.setdefault(h, seq.token_ids[:(i + 1) * bm.block_size])
    return prefixes


def pool_table(built: Built, lang: str, tokens: bool = True) -> str:
    bm = built.bm
    labels = hash_labels(built)
    queue = {block_id: i + 1 for i, block_id in enumerate(bm.free_block_ids)}
    header = [t("ex.t.block", lang), t("ex.t.free_queue_pos", lang), "ref_count", "hash"]
    if tokens:
        header.append("token_ids")
    rows = []
    for block in bm.blocks:
        row = [block.block_id, queue.get(block.block_id, "—"), block.ref_count, labels.get(block.hash, "-1")]
        if tokens:
            row.append(f"`{show_tokens(block.token_ids)}`" if block.token_ids else "")
        rows.append(row)
    return table(header, rows)


def queue_line(bm: BlockManager, lang: str) -> str:
    queue = " → ".join(str(b) for b in bm.free_block_ids) or t("ex.t.empty", lang)
    return t("ex.t.free_queue", lang, queue=queue)


def map_table(built: Built, lang: str) -> str:
    """hash_to_block_id, with the prefix each hash stands for."""
    bm = built.bm
    labels = hash_labels(built)
    prefixes = hash_prefixes(built)
    if not bm.hash_to_block_id:
        return t("ex.t.map_empty", lang)
    rows = []
    for h, block_id in sorted(bm.hash_to_block_id.items(), key=lambda item: labels.get(item[0], "")):
        prefix = prefixes.get(h)
        shown = show_blocks(prefix, bm.block_size) if prefix is not None else "?"
        rows.append([labels.get(h, "?"), block_id, shown])
    return t("ex.t.map_intro", lang) + "\n\n" + table(
        ["hash", "hash_to_block_id[hash]", t("ex.t.prefix", lang)], rows)


def legend_unmapped(built: Built, lang: str) -> str:
    """Hashes that blocks still hold but the map no longer points to them (for the pool picture)."""
    bm = built.bm
    labels = hash_labels(built)
    prefixes = hash_prefixes(built)
    rows = []
    for h, label in labels.items():
        if bm.hash_to_block_id.get(h) is None:
            prefix = prefixes.get(h)
            rows.append([label, show_blocks(prefix, bm.block_size) if prefix is not None else "?"])
    if not rows:
        return ""
    return t("ex.t.unmapped_intro", lang) + "\n\n" + table(["hash", t("ex.t.prefix", lang)], rows)


def requests_table(built: Built, lang: str, labels: list[str] | None = None) -> str:
    bm = built.bm
    status = {seq.seq_id: "running" for seq in built.sim.scheduler.running}
    status.update({seq.seq_id: "waiting" for seq in built.sim.scheduler.waiting})
    rows = []
    for seq_id, seq in built.sim.seqs.items():
        label = built.label(seq_id)
        if labels is not None and label not in labels:
            continue
        state = status.get(seq_id, "finished")
        rows.append([label, t(f"ex.t.status.{state}", lang), show_blocks(seq.token_ids, bm.block_size), len(seq),
                     str(seq.block_table) if seq.block_table else "[]"])
    header = [t("ex.t.request", lang), t("ex.t.status", lang), t("ex.t.tokens", lang), "len(seq)", "block_table"]
    return table(header, rows)


def pool_picture(built: Built, lang: str) -> str:
    """Everything a prefix-cache question needs: pool, free queue, map, other hashes, requests."""
    parts = [pool_table(built, lang), queue_line(built.bm, lang), map_table(built, lang)]
    unmapped = legend_unmapped(built, lang)
    if unmapped:
        parts.append(unmapped)
    if built.sim.seqs:
        parts.append(requests_table(built, lang))
    return "\n\n".join(parts)


def block_table_row(block_table: list[int], lang: str) -> str:
    header = [t("ex.t.logical_block", lang)] + [str(i) for i in range(len(block_table))]
    return table(header, [[t("ex.t.physical_block", lang)] + list(block_table)])
