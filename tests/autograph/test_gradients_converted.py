"""Gradients through converted Python control flow: if/elif, while, for, break, continue,
early return, nested loops, helper calls — eager tape vs graph tape vs central differences.

Each program is plain Python + NumPy. Eagerly it runs on tape values (its conditions are
concrete); under `ag.function` it is converted, its conditions are symbolic, and the tape
inside the function adds the backward pass to the same graph. Points are chosen away from
the places where a branch or the iteration count changes.
"""
import numpy as np
import pytest

import autograph as ag


def helper_scale(y, x):
    if np.sum(y) > 0:
        return y * x
    return y - x


def p_if(x, n):
    if np.sum(x) > 0:
        y = x * x
    else:
        y = x * x * x
    return y


def p_elif(x, n):
    s = np.sum(x)
    if s > 2:
        y = np.sin(x)
    elif s > 0:
        y = np.exp(x)
    else:
        y = x * 3.0
    return y


def p_while(x, n):
    y = x
    while np.sum(y) < 10.0:
        y = y * 1.5 + x
    return y


def p_for_range(x, n):
    y = x
    for i in range(n):
        y = np.tanh(y) * x + i
    return y


def p_for_break(x, n):
    y = x
    for _ in range(n):
        y = y * x + 0.5
        if np.sum(y) > 3.0:
            break
    return y


def p_for_continue(x, n):
    y = np.zeros_like(x)
    for i in range(n):
        if i % 2 == 0:
            continue
        y = y + x * i
    return y


def p_early_return_loop(x, n):
    y = x
    for _ in range(n):
        y = y * 1.3
        if np.max(y) > 2.0:
            return y * x
    return y


def p_early_return_branch(x, n):
    if np.min(x) < 0:
        return np.abs(x) * 2.0
    y = np.sqrt(x)
    return y + x


def p_nested_loops(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        for j in range(i):
            acc = acc + x * j - np.sin(acc)
    return acc


def p_rows(x, n):
    acc = np.zeros(x.shape[1:])
    for row in x:
        acc = acc + row * row
    return acc


def p_enumerate(x, n):
    acc = np.zeros(x.shape[1:])
    for i, row in enumerate(x):
        acc = acc + row * (i + 1.0)
    return acc


def p_ternary(x, n):
    return x * 2.0 if np.sum(x) > 0 else x * x


def p_boolops(x, n):
    if np.sum(x) > 0 and np.max(x) < 5:
        y = x * x
    else:
        y = -x
    return y


def p_while_break(x, n):
    y = x
    i = 0
    while i < n:
        y = np.sin(y) + x
        if np.sum(y) > 4.0:
            break
        i = i + 1
    return y


def p_calls(x, n):
    y = x
    for _ in range(n):
        y = helper_scale(y, x)
    return y


def p_if_in_while_in_if(x, n):
    y = x
    if np.sum(x) > 0:
        i = 0
        while i < n:
            if i % 2 == 0:
                y = y * x
            else:
                y = y + np.cos(x)
            i = i + 1
    return y


def p_loop_options(x, n):
    y = x
    i = 0
    while i < n:  # a bound that does not bind: plain Python (the reference) ignores it
        ag.set_loop_options(maximum_iterations=n + 1)
        y = y * 0.9 + x
        i = i + 1
    return y


def p_accumulate_mean(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.mean(x * i)
    return total


def p_reassign_in_branches(x, n):
    a, b = x, x * 2.0
    for _ in range(n):
        if np.sum(a) > np.sum(b):
            a = a * 0.5
        else:
            b = b * 0.5 + a
    return a + b


def p_matrix(x, n):
    w = np.array([[0.5, -0.2], [0.1, 0.3]])
    h = x
    for _ in range(n):
        h = np.tanh(h @ w + x)
    return h


def p_rnn_list(x, n):
    h = np.zeros(2)
    outputs = []
    for i in range(n):
        h = np.tanh(h * 0.5 + x * i)
        outputs.append(h)
    return np.stack(outputs) ** 2


def p_list_in_while(x, n):
    ys = []
    y = x
    i = 0
    while i < n:
        y = np.sin(y) * x
        ys.append(y * (i + 1.0))
        i = i + 1
    return np.sum(np.stack(ys), axis=0)


PROGRAMS = [
    (p_if, [-2.0, 1.5], 0), (p_if, [1.0, 2.0], 0), (p_elif, [0.3, 0.4], 0),
    (p_elif, [1.5, 1.2], 0), (p_elif, [-1.0, 0.2], 0), (p_while, [0.7, 1.1], 0),
    (p_for_range, [0.3, -0.6], 4), (p_for_break, [1.1, 0.9], 6), (p_for_continue, [0.5, 2.0], 5),
    (p_early_return_loop, [0.8, 0.4], 6), (p_early_return_loop, [0.1, 0.2], 3),
    (p_early_return_branch, [-1.0, 2.0], 0), (p_early_return_branch, [1.0, 2.0], 0),
    (p_nested_loops, [0.2, 0.4], 4), (p_rows, [[0.5, 1.0], [2.0, -1.0], [0.3, 0.1]], 0),
    (p_enumerate, [[0.5, 1.0], [2.0, -1.0]], 0), (p_ternary, [0.5, 0.5], 0),
    (p_ternary, [-0.5, -0.6], 0), (p_boolops, [0.5, 1.0], 0), (p_boolops, [6.0, 1.0], 0),
    (p_while_break, [0.5, 0.7], 10), (p_calls, [0.6, 0.9], 3), (p_if_in_while_in_if, [0.4, 0.8], 5),
    (p_loop_options, [0.4, 0.8], 7), (p_accumulate_mean, [0.4, 0.8], 4),
    (p_reassign_in_branches, [0.4, 0.8], 5), (p_matrix, [[0.4, 0.8]], 3),
    (p_rnn_list, [0.3, -0.7], 4), (p_list_in_while, [0.9, 0.4], 3),
]


def numeric(fn, x, n, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(fn(up, n)) - np.sum(fn(down, n))) / (2 * eps)
    return g


def eager(fn, x, n):
    with ag.GradientTape() as tape:
        xw = tape.watch(x)
        y = fn(xw, n)
    return tape.gradient(y, xw)


def make_graph_step(fn):
    def step(x, n):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, n)
        return y, tape.gradient(y, x)
    return ag.function(step)


@pytest.mark.filterwarnings("ignore:ag.set_loop_options:UserWarning")  # the plain reference
@pytest.mark.parametrize("case", range(len(PROGRAMS)),
                         ids=[f"{p[0].__name__}-{i}" for i, p in enumerate(PROGRAMS)])
def test_gradient_three_ways(case):
    fn, x, n = PROGRAMS[case]
    x = np.array(x, dtype=np.float64)
    expected = numeric(fn, x, n)
    np.testing.assert_allclose(eager(fn, x, n), expected, rtol=1e-5, atol=1e-8)
    step = make_graph_step(fn)
    value, grad = step(x, np.int64(n))
    np.testing.assert_allclose(value, fn(x, n), rtol=1e-12)
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-8)
    # the same trace serves another point of the same signature
    value2, grad2 = step(x * 1.0001, np.int64(n))
    np.testing.assert_allclose(grad2, numeric(fn, x * 1.0001, n), rtol=1e-4, atol=1e-7)
    assert step.tracing_count == 1
