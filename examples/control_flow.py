"""Control flow on data: real `if` / `while` / `for` / `break` / `return` in a graph.

Shows, for conditions that depend on array values (so they are only known when the
graph runs):
- `if` / `elif` / `else` -> a `cond` node with one subgraph per branch;
- `while` -> a `while_loop` node; `for` over an array -> a loop over its rows;
- `break` and an early `return` inside a loop;
- building a list in a loop (`xs.append`) and stacking it with `np.stack`;
- a Python condition (a Python number, a shape) still runs as Python while tracing;
- every result equals the plain Python/NumPy result.

Run:  python examples/control_flow.py
"""
import numpy as np

import autograph as ag


def sign(x):
    if x > 0:
        return np.float32(1.0)
    elif x < 0:
        return np.float32(-1.0)
    else:
        return np.float32(0.0)


def collatz_steps(n):
    steps = np.int64(0)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def sum_until_negative(xs):
    total = np.float32(0.0)
    for x in xs:
        if x < 0:
            break
        total += x
    return total


def first_above(xs, threshold):
    for i, x in enumerate(xs):
        if x > threshold:
            return i          # an early return from inside a loop
    return -1


def running_max(xs):
    out = []
    best = xs[0]
    for x in xs:
        best = np.maximum(best, x)
        out.append(best)
    return np.stack(out)


def clip_norm(v, max_norm):
    if max_norm is None:      # a Python value: decided while tracing, no graph node
        return v
    norm = np.sqrt(np.sum(v * v))
    if norm > max_norm:       # an array value: a graph conditional
        v = v * (max_norm / norm)
    return v


def graph_ops(fn, *args):
    """The control-flow ops of the traced graph (including inside subgraphs)."""
    graph = ag.function(fn).get_concrete_function(*args).graph
    found, stack = [], [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            if node.op.name in ("cond", "while_loop"):
                found.append(node.op.name)
            stack.extend(v for v in node.attrs.values() if hasattr(v, "nodes"))
    return sorted(found)


xs = np.array([3.0, 1.0, 4.0, -1.0, 5.0], np.float32)
cases = [
    (sign, [(np.float32(2.5),), (np.float32(-3.0),), (np.float32(0.0),)]),
    (collatz_steps, [(np.int64(27),), (np.int64(1),)]),
    (sum_until_negative, [(xs,), (np.abs(xs),)]),
    (first_above, [(xs, np.float32(3.5)), (xs, np.float32(10.0))]),
    (running_max, [(xs,)]),
    (clip_norm, [(xs, np.float32(1.0)), (xs, np.float32(100.0)), (xs, None)]),
]
for fn, arg_sets in cases:
    f = ag.function(fn)
    for args in arg_sets:
        graph_result, python_result = f(*args), fn(*args)
        np.testing.assert_allclose(graph_result, python_result, rtol=1e-6)
        shown = ", ".join(np.array2string(np.asarray(a), precision=2) for a in args)
        print(f"{fn.__name__}({shown}) = {np.asarray(graph_result)}")
    print(f"  graph control flow: {graph_ops(fn, *arg_sets[0]) or 'none'};"
          f" traces: {f.tracing_count}")

print("\n# The converted source of first_above (ag.to_code):")
print(ag.to_code(first_above))
print("\n# Its graph, traced for arrays of any length (a while_loop):")
spec = ag.TensorSpec((None,), np.float32), ag.TensorSpec((), np.float32)
print(ag.function(first_above).get_concrete_function(*spec).optimized_graph)
