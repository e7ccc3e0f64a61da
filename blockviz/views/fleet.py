"""Several vLLM instances side by side, and where a KV-aware router sends a prompt.

One column per instance: its name, how many blocks it caches, how many of the prompt's tokens it
would take from its cache (predicted from its KV events, as vllm/router.py does), the prompt's
full blocks marked cached here or computed here, and its forest of cached chains
(render_forest.py). The router's pick is marked, with the rule that made it; round-robin's pick
for the same turn can be marked beside it. HTML, every text through markup.esc.
"""
from collections.abc import Mapping

from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.views.render_forest import Decode, default_decode, render_forest
from blockviz.views.svg import clip, visible
from blockviz.vllm import router
from blockviz.vllm.index import StepInfo
from blockviz.vllm.watch import Picture


def source_picture(picture: Picture, source: str) -> Picture:
    """The part of a picture that is one instance's: its blocks, its removals, its batch if this
    step's batch was its own (else an empty one, so nothing is marked stored or removed now)."""
    info = picture.info if picture.info.source == source else StepInfo(picture.step, source, -1, 0.0, 0.0, b"")
    return Picture(picture.step, [r for r in picture.blocks if r.source == source], info,
                   [r for r in picture.evictions if r.source == source], picture.first_step, picture.last_step)


def prompt_blocks(token_ids: list[int], block_size: int, cached_tokens: int, decode: Decode, lang: str) -> str:
    """The prompt cut in blocks: each full block cached or computed on this instance, the tail that
    fills no block always computed."""
    hits, items = cached_tokens // block_size, []
    for i in range(0, len(token_ids), block_size):
        chunk, n = token_ids[i:i + block_size], i // block_size
        state = "partial" if len(chunk) < block_size else "hit" if n < hits else "miss"
        label = t(f"fleet.block.{state}", lang, i=n, n=len(chunk), tokens=visible(decode(chunk)))
        items.append(f'<li data-block="{n}" data-state="{state}" title="{esc(label)}">'
                     f'{esc(clip(visible(decode(chunk)), 18))}</li>')
    return f'<ol class="bv-fleet-prompt" aria-label="{esc(t("fleet.prompt", lang))}">{"".join(items)}</ol>'


def render_fleet(picture: Picture | None, instances: Mapping[str, str], choice: router.Choice | None = None,
                 token_ids: list[int] | None = None, *, round_robin: router.Choice | None = None,
                 block_size: int | None = None, decode: Decode | None = None, lang: str = "en") -> str:
    """The instances at `picture`'s step and, with a prompt and the router's `choice` for it, where
    it goes. `picture` is None before any KV event arrived."""
    decode = decode or default_decode
    if picture is None:
        return f'<div class="bv-fleet"><p class="bv-fleet-waiting">{esc(t("fleet.waiting", lang))}</p></div>'
    size = block_size or next((r.block_size for r in picture.blocks), None)
    head = [t("fleet.title", lang, n=len(instances), step=picture.step)]
    if token_ids is not None and choice is not None:
        head.append(t("fleet.prompt_size", lang, n=len(token_ids)))
        why = f'<p class="bv-fleet-why" role="status">{esc(router.explain(choice, lang))}</p>'
        if round_robin is not None:
            why += f'<p class="bv-fleet-why" data-policy="round-robin">{esc(router.explain(round_robin, lang))}</p>'
        if size and token_ids and len(token_ids) % size == 0:
            why += f'<p class="bv-fleet-note">{esc(t("fleet.cap", lang))}</p>'
    else:
        why = f'<p class="bv-fleet-note">{esc(t("fleet.no_prompt", lang))}</p>'
    columns = [column(name, source_picture(picture, source), choice, round_robin, token_ids, size, decode, lang)
               for name, source in instances.items()]
    chosen = f' data-chosen="{esc(choice.instance)}"' if choice else ""
    return (f'<div class="bv-fleet" data-view="vllm-fleet" data-step="{picture.step}"{chosen}>'
            f'<p class="bv-fleet-title">{esc(" · ".join(head))}</p>{why}'
            f'<div class="bv-fleet-instances">{"".join(columns)}</div></div>')


def column(name: str, picture: Picture, choice: router.Choice | None, round_robin: router.Choice | None,
           token_ids: list[int] | None, block_size: int | None, decode: Decode, lang: str) -> str:
    marks, attrs = [], f' data-instance="{esc(name)}"'
    if choice is not None and choice.instance == name:
        marks.append(f'<span class="bv-fleet-mark" data-policy="kv-aware">{esc(t("fleet.chosen", lang))}</span>')
        attrs += " data-chosen"
    if round_robin is not None and round_robin.instance == name:
        marks.append(f'<span class="bv-fleet-mark" data-policy="round-robin">{esc(t("fleet.turn", lang))}</span>')
    parts = [f'<h4>{esc(t("fleet.instance", lang, name=name, n=len(picture.blocks)))}{"".join(marks)}</h4>']
    if choice is not None and token_ids is not None:
        cached = choice.cached_tokens.get(name, 0)
        attrs += f' data-cached-tokens="{cached}"'
        parts.append(f'<p class="bv-fleet-cached">{esc(t("fleet.cached", lang, n=cached, total=len(token_ids)))}</p>')
        if block_size:
            parts.append(prompt_blocks(token_ids, block_size, cached, decode, lang))
    parts.append(f'<div class="bv-fleet-forest">{render_forest(picture, decode=decode, lang=lang)}</div>')
    return f'<section class="bv-fleet-instance"{attrs}>{"".join(parts)}</section>'
