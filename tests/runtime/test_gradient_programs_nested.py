"""Gradients through nested and composed control flow, three ways (float64): loops in
loops, conds in loop bodies and loops in branches, breaks and early returns written as
flags and conds, several loop variables, nested structures of sources.

See `test_gradient_programs.py` for the method and the known runtime capture bug.
"""
from __future__ import annotations

import numpy as np
import pytest

from runtime import cond, while_loop
from tests.runtime.gradcheck import Programs
from tests.runtime.test_gradient_programs import _XS

i64 = np.int64
programs = Programs()


@programs("nested-loops", ({"x": np.array([0.9, 1.1]), "y": np.array([0.5, -0.5])}, i64(3)))
def _():
    def eager(p, n):
        y, i = p["y"], 0
        while i < n:
            j = 0
            while j <= i:
                y = y * p["x"] + 0.1 * j
                j += 1
            i += 1
        return y

    def graph(p, n):
        x = p["x"]

        def outer(i, y):
            _, y = while_loop(lambda j, y: j <= i, lambda j, y: (j + 1, y * x + 0.1 * j), (i64(0), y))
            return i + 1, y
        return while_loop(lambda i, y: i < n, outer, (i64(0), p["y"]))[1]
    return eager, graph


@programs("cond-in-loop-body", ({"w": np.array([0.8, 1.2]), "y": np.array([0.3, -0.2])}, i64(5)))
def _():
    def eager(p, n):
        y, i = p["y"], 0
        while i < n:
            if i % 2 == 0:
                y = y * p["w"]
            else:
                y = y + np.sin(p["w"])
            i += 1
        return y

    def graph(p, n):
        w = p["w"]
        return while_loop(lambda i, y: i < n, lambda i, y: (
            i + 1, cond(i % 2 == 0, lambda: y * w, lambda: y + np.sin(w))), (i64(0), p["y"]))[1]
    return eager, graph


@programs("loop-in-cond-branch", ({"x": np.array([0.6, 0.7])}, i64(3)),
         ({"x": np.array([-0.6, 0.2])}, i64(3)))
def _():
    def eager(p, n):
        x = p["x"]
        if np.sum(x) > 0:
            y, i = x, 0
            while i < n:
                y = np.sqrt(y * y + x)
                i += 1
            return y
        return x * 3.0

    def graph(p, n):
        x = p["x"]

        def loop():
            return while_loop(lambda i, y: i < n, lambda i, y: (i + 1, np.sqrt(y * y + x)),
                              (i64(0), x))[1]
        return cond(np.sum(x) > 0, loop, lambda: x * 3.0)
    return eager, graph


@programs("loop-dynamic-index", ({"x": np.array([0.5, -1.0, 2.0, 0.3]),
                                 "w": np.array([1.0, 0.5, -0.5, 2.0])}, i64(3)))
def _():
    def eager(p, n):
        s, i = 0.0, 0
        while i < n:
            s = s + p["x"][i] * p["w"][i] * s + p["x"][i]
            i += 1
        return s

    def graph(p, n):
        x, w = p["x"], p["w"]
        return while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x[i] * w[i] * s + x[i]),
                          (i64(0), np.float64(0.0)))[1]
    return eager, graph


_SEARCH = {"x": np.array([0.5, 0.8, 1.7, 0.4, 2.5])}


@programs("break-on-first-large", (_SEARCH, i64(5)), ({"x": np.array([0.1, 0.2, 0.3])}, i64(3)))
def _():
    def eager(p, n):  # sum of squares up to and including the first element above 1
        x, acc, i = p["x"], 0.0, 0
        while i < n:
            acc = acc + x[i] * x[i]
            if x[i] > 1.0:
                break
            i += 1
        return acc

    def graph(p, n):
        x = p["x"]

        def body(i, acc, found):
            return i + 1, acc + x[i] * x[i], x[i] > 1.0
        return while_loop(lambda i, acc, found: np.logical_and(i < n, np.logical_not(found)),
                          body, (i64(0), np.float64(0.0), np.False_))[1]
    return eager, graph


@programs("early-return", ({"x": np.array([2.5, 0.5])},), ({"x": np.array([0.5, 1.5])},))
def _():
    def eager(p):
        x = p["x"]
        if np.max(x) > 2.0:
            return x * 3.0
        y = x
        while np.sum(y) < 10.0:
            y = y * 1.7 + x
        return y

    def graph(p):
        x = p["x"]
        return cond(np.max(x) > 2.0, lambda: x * 3.0,
                    lambda: while_loop(lambda y: np.sum(y) < 10.0, lambda y: (y * 1.7 + x,),
                                       (x,))[0])
    return eager, graph


@programs("for-over-rows", ({"w": np.array([0.7, -1.2, 0.4])}, _XS, i64(4)))
def _():
    def eager(p, xs, n):
        acc = np.zeros(3)
        for row in xs:
            acc = acc * 0.5 + np.tanh(row * p["w"])
        return acc

    def graph(p, xs, n):
        w = p["w"]
        return while_loop(lambda i, acc: i < n,
                          lambda i, acc: (i + 1, acc * 0.5 + np.tanh(xs[i] * w)),
                          (i64(0), np.zeros(3)))[1]
    return eager, graph


@programs("oscillator-two-loop-vars", ({"q": np.float64(0.5), "v": np.float64(0.1),
                                       "k": np.float64(2.0)}, i64(8)))
def _():
    def eager(p, n):
        q, v, i = p["q"], p["v"], 0
        while i < n:
            v = v - 0.1 * p["k"] * np.sin(q)
            q = q + 0.1 * v
            i += 1
        return q * v + q

    def graph(p, n):
        k = p["k"]

        def body(i, q, v):
            v = v - 0.1 * k * np.sin(q)
            return i + 1, q + 0.1 * v, v
        _, q, v = while_loop(lambda i, q, v: i < n, body, (i64(0), p["q"], p["v"]))
        return q * v + q
    return eager, graph


@programs("matrix-power", ({"A": np.array([[0.9, 0.2], [-0.1, 0.8]])}, i64(4)))
def _():
    def eager(p, n):
        M, i = np.eye(2), 0
        while i < n:
            M = M @ p["A"]
            i += 1
        return M

    def graph(p, n):
        A = p["A"]
        return while_loop(lambda i, M: i < n, lambda i, M: (i + 1, M @ A), (i64(0), np.eye(2)))[1]
    return eager, graph


@programs("loop-cond-loop", ({"x": np.array([0.3, 0.6])}, i64(2)), ({"x": np.array([0.9, 1.1])}, i64(2)))
def _():
    def eager(p, n):
        y, i = p["x"], 0
        while i < n:
            y = y + np.sin(y)
            i += 1
        if np.sum(y) > 3.0:
            y = y / np.sum(y)
        else:
            y = y * y
        while np.max(y) < 5.0:
            y = y * 2.0 + p["x"]
        return y

    def graph(p, n):
        x = p["x"]
        y = while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y + np.sin(y)), (i64(0), x))[1]
        y = cond(np.sum(y) > 3.0, lambda: y / np.sum(y), lambda: y * y)
        return while_loop(lambda y: np.max(y) < 5.0, lambda y: (y * 2.0 + x,), (y,))[0]
    return eager, graph


_NET = {"layers": [(np.array([[0.5, -0.3], [0.2, 0.8]]), np.array([0.1, 0.0])),
                   (np.array([[0.7], [-0.4]]), np.array([0.2]))],
        "scale": np.float64(1.5)}


@programs("nested-structure-sources", (_NET, np.array([[1.0, -0.5], [0.3, 0.9]]), i64(2)),
         (_NET, np.array([[-1.0, -0.5], [-0.3, -0.9]]), i64(2)))
def _():
    def eager(p, x, n):
        (W1, b1), (W2, b2) = p["layers"]
        h = x @ W1 + b1
        if np.sum(h) > 0:
            h = np.tanh(h)
        else:
            h = h * p["scale"]
        i = 0
        while i < n:
            h = h + 0.1 * np.tanh(h @ W1)
            i += 1
        return (h @ W2 + b2) * p["scale"]

    def graph(p, x, n):
        (W1, b1), (W2, b2) = p["layers"]
        s = p["scale"]
        h = x @ W1 + b1
        h = cond(np.sum(h) > 0, lambda: np.tanh(h), lambda: h * s)
        h = while_loop(lambda i, h: i < n, lambda i, h: (i + 1, h + 0.1 * np.tanh(h @ W1)),
                       (i64(0), h))[1]
        return (h @ W2 + b2) * s
    return eager, graph


_WY = {"w": np.array([0.9, -0.7]), "y": np.array([0.4, 0.6])}


@programs("loop-cond-cond-closures", (_WY, i64(6)))
def _():
    def eager(p, n):
        y, w, i = p["y"], p["w"], 0
        while i < n:
            if i % 3 == 0:
                if np.sum(y) > 0:
                    y = y * w
                else:
                    y = y - w
            else:
                y = np.tanh(y + w)
            i += 1
        return y

    def graph(p, n):
        w = p["w"]

        def body(i, y):
            inner = lambda: cond(np.sum(y) > 0, lambda: y * w, lambda: y - w)  # noqa: E731
            return i + 1, cond(i % 3 == 0, inner, lambda: np.tanh(y + w))
        return while_loop(lambda i, y: i < n, body, (i64(0), p["y"]))[1]
    return eager, graph


@programs("loop-cond-cond-operands", (_WY, i64(6)), ({"w": np.array([-0.9, -0.7]),
                                                   "y": np.array([0.4, -0.6])}, i64(4)))
def _():
    def eager(p, n):
        y, w, i = p["y"], p["w"], 0
        while i < n:
            if i % 3 == 0:
                if np.sum(y) > 0:
                    y = y * w
                else:
                    y = y - w
            else:
                y = np.tanh(y + w)
            i += 1
        return y

    def graph(p, n):
        def inner(y, w):
            return cond(np.sum(y) > 0, lambda y, w: y * w, lambda y, w: y - w, (y, w))

        def body(i, y, w):
            y = cond(i % 3 == 0, inner, lambda y, w: np.tanh(y + w), (y, w))
            return i + 1, y, w
        return while_loop(lambda i, y, w: i < n, body, (i64(0), p["y"], p["w"]))[1]
    return eager, graph


@pytest.mark.parametrize("name, k", programs.params())
def test_program(name, k):
    programs.check(name, k)
