"""Time to draw SGLang's radix tree (blockviz/views/render_radix.py) for a GPU-sized cache: a tree of
about N nodes, built by inserting random token sequences that share prefixes (so edges split), with
a few paths locked as running requests hold them. Prints the node count and the time of
render_radix with its default cap on rows, with every node drawn, and with the cap and a focus on
the last node in tree order (its path drawn, the rest folded).

    PYTHONPATH=. .venv/bin/python bench/radix_view.py [--nodes 10000] [--seed 0] [--repeat 5]
"""
import argparse
import random
import time
from array import array

from blockviz.radix.base_prefix_cache import InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.views.render_radix import MAX_NODES, preorder, render_radix


def grow(nodes: int, rng: random.Random) -> RadixCache:
    """Insert sequences over a 50-token alphabet until the tree holds `nodes` nodes; lock every 50th."""
    tree = RadixCache.create_simulated()
    count = 0
    while count < nodes:
        tokens = array("q", [rng.randrange(50) for _ in range(rng.randint(4, 40))])
        tree.insert(InsertParams(key=RadixKey(tokens), value=array("q", range(len(tokens)))))
        count = sum(1 for _ in preorder(tree)) if rng.random() < 0.05 or count > nodes - 50 else count + 1
    for i, (node, _) in enumerate(preorder(tree)):
        if i % 50 == 0 and not node.children:
            tree.inc_lock_ref(node)
    return tree


def best(repeat: int, draw) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        size = len(draw())
        times.append(time.perf_counter() - start)
    return min(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tree = grow(args.nodes, random.Random(args.seed))
    n = sum(1 for _ in preorder(tree))
    print(f"tree: {n} nodes, {tree.total_size()} tokens, {len(tree.evictable_leaves)} evictable leaves, "
          f"{tree.protected_size()} tokens locked")
    for cap in (MAX_NODES, n):
        seconds, size = best(args.repeat, lambda: render_radix(tree, max_nodes=cap))
        print(f"render_radix max_nodes={cap}: {seconds * 1000:.1f} ms (best of {args.repeat}), {size / 1e6:.2f} MB of SVG")
    *_, (last, _) = preorder(tree)   # the last node in tree order: past the cap, kept in sight by focus
    focus = [last.id]
    seconds, size = best(args.repeat, lambda: render_radix(tree, focus=focus))
    print(f"render_radix max_nodes={MAX_NODES}, focus on the last node: {seconds * 1000:.1f} ms "
          f"(best of {args.repeat}), {size / 1e6:.2f} MB of SVG")


if __name__ == "__main__":
    main()
