"""Benchmark workloads: plain NumPy functions, run undecorated (eager) and decorated.

The seeds' examples in NumPy terms, plus a few that stress the per-call path.
"""
from __future__ import annotations

import numpy as np


def add_two(x, y):
    return x + y


def power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = np.matmul(x, result)
    return result


def matmul_loop(s, y, x):
    for _ in range(10):
        s = s + (s @ y) * x
    return s


class Dense:
    """A small Python layer object: y = tanh(x @ w + b)."""

    def __init__(self, n_in: int, n_out: int, rng: np.random.Generator):
        self.w = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        self.b = np.zeros(n_out, np.float32)

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


class DeepModel:
    def __init__(self, layers: int = 24, width: int = 64, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.layers = [Dense(width, width, rng) for _ in range(layers)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def collatz(n):
    steps = np.int64(0)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


def normalise(x):
    """Foldable constants and repeated subexpressions (CSE computes exp(x) once)."""
    eye = np.eye(x.shape[1], dtype=x.dtype)
    scale = np.sqrt(np.float32(x.shape[1]))
    a = (np.exp(x) @ eye) / scale
    b = (np.exp(x) @ eye) / scale
    return (a + b) / np.sum(np.exp(x))


def elementwise_chain(x):
    """A chain of elementwise ops on a large array (buffer reuse keeps memory flat)."""
    y = x * 2.0 + 1.0
    y = np.tanh(y) * x
    y = y - x / 3.0
    return np.sqrt(np.abs(y)) + 0.5


def independent_sorts(a, b):
    """Two sorts that depend on nothing of each other: the parallel executor's case."""
    return np.sort(a) + np.sort(b)
