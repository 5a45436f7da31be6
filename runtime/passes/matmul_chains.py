"""Matmul chains by repeated squaring: k products by one integer matrix become O(log k).

    before:  v1 = matmul(x, c)           after:  v101 = matmul(x, x)        # x^2
             v2 = matmul(x, v1)                  v102 = matmul(v101, v101)  # x^4
             ...                                 ...
             v100 = matmul(x, v99)               v108 = matmul(v107, c)     # x^100 @ c

A chain is `v_i = a @ v_(i-1)` (or `v_i = v_(i-1) @ a`) where every intermediate is used
only by the next product — what a Python `for` loop of `result = a @ result` traces to.

Bitwise the same, for integer and boolean matrices only: their matmul is exact arithmetic
modulo 2**bits (booleans: or of ands), where products associate and powers of one matrix
commute, so any grouping gives the same bits. Float products round at every step, so a
float chain is left alone.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.rewrite import each_graph, replace_uses
from runtime.core.tensor import Tensor

MIN_CHAIN = 4  # shorter chains gain nothing: x^3 @ v by squaring is still 3 products


def shorten_matmul_chains(graph: Graph) -> bool:
    changed = False
    for g in each_graph(graph):
        changed |= _shorten_in(g)
    return changed


def _shorten_in(g: Graph) -> bool:
    uses: dict[int, int] = {}
    for node in g.nodes:
        for x in node.inputs:
            if isinstance(x, Tensor):
                uses[id(x)] = uses.get(id(x), 0) + 1
    for x in g.outputs:
        if isinstance(x, Tensor):
            uses[id(x)] = uses.get(id(x), 0) + 2  # a result is never folded into a chain
    producer = {id(o): n for n in g.nodes for o in n.outputs}
    removed: set[int] = set()
    new_nodes: dict[int, list[Node]] = {}  # id(last product of a chain) -> its new nodes
    for node in reversed(list(g.nodes)):
        if id(node) in removed or not _exact_matmul(node):
            continue
        for side in (0, 1):  # the repeated matrix on the left (a @ v), then on the right
            chain = _chain_ending_at(node, side, uses, producer)
            if len(chain) >= MIN_CHAIN:
                removed.update(id(n) for n in chain)
                new_nodes[id(node)] = _power_nodes(g, chain, side)
                break
    if not new_nodes:
        return False
    nodes, subs = [], {}
    for node in g.nodes:  # each chain's new nodes go where its last product was
        if id(node) in new_nodes:
            nodes.extend(new_nodes[id(node)])
            subs[id(node.outputs[0])] = new_nodes[id(node)][-1].outputs[0]
        elif id(node) not in removed:
            nodes.append(node)
    g.nodes = nodes
    replace_uses(g, subs)
    return True


def _exact_matmul(node: Node) -> bool:
    return node.op.kernel is np.matmul and not node.attrs and len(node.inputs) == 2 \
        and node.outputs[0].dtype.kind in "iub" and None not in node.outputs[0].shape


def _chain_ending_at(last: Node, side: int, uses: dict, producer: dict) -> list[Node]:
    """[first, ..., last]: products by one square matrix `a` on `side`, each of the
    previous product only (dtypes all alike)."""
    a = last.inputs[side]
    shape, dtype = np.shape(a) if not isinstance(a, Tensor) else a.shape, _dtype(a)
    if len(shape) != 2 or shape[0] != shape[1] or None in shape \
            or dtype != last.outputs[0].dtype:
        return []
    chain = [last]
    while True:
        v = chain[-1].inputs[1 - side]
        prev = producer.get(id(v)) if isinstance(v, Tensor) else None
        if prev is None or uses.get(id(v)) != 1 or not _exact_matmul(prev) \
                or prev.inputs[side] is not a or prev.outputs[0].shape != last.outputs[0].shape \
                or prev.outputs[0].dtype != dtype:
            break
        chain.append(prev)
    start = chain[-1].inputs[1 - side]
    return chain[::-1] if _dtype(start) == dtype else []


def _dtype(x) -> np.dtype:
    return x.dtype if isinstance(x, (Tensor, np.ndarray)) else np.asarray(x).dtype


def _power_nodes(g: Graph, chain: list[Node], side: int) -> list[Node]:
    """New nodes computing `a^k @ start` (or `start @ a^k`); the last gives the result."""
    first, last = chain[0], chain[-1]
    a, start, k = first.inputs[side], first.inputs[1 - side], len(chain)
    if start is a:  # a @ (a @ ... a): the result is a power of `a` itself
        k, start = k + 1, None
    nodes: list[Node] = []

    def product(x, y) -> Tensor:
        shape = last.outputs[0].shape if start is not None and (x is start or y is start) \
            else a.shape
        node = Node(last.op, [x, y], {}, last.origin)
        node.outputs = [Tensor(g, node, 0, tuple(shape), last.outputs[0].dtype, g.fresh_name())]
        nodes.append(node)
        return node.outputs[0]

    power, square = None, a
    while k:
        if k & 1:
            power = square if power is None else product(power, square)
        k >>= 1
        if k:
            square = product(square, square)
    if start is not None:
        product(power, start) if side == 0 else product(start, power)
    return nodes  # the last one computes the result: the final product, or the power
