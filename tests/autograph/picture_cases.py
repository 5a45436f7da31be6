"""Small functions whose pictures (Graphviz DOT) are pinned in golden/pictures/.

Kept apart from the tests so that editing a test does not move these source lines,
which the pictures show.
"""
import numpy as np


def dense(x, w, b):
    h = x @ w + b
    act = np.maximum(h, 0)
    lo, hi = act.min(), act.max()
    n = x.shape[0]
    return (act - lo) / (hi - lo + 1e-6), n


def clip_if(x, limit):
    y = x * 2.0
    if np.sum(y) > limit:
        y = y / np.sum(y)
        note = 1
    else:
        note = 0
    return y, note


def loop_with_if(x, n):
    total = np.zeros_like(x)
    i = 0
    while i < n:
        step = x * 2.0
        if np.sum(step) > 0:
            total = total + step
        else:
            total = total - 1.0
        i += 1
    scale = x.shape[0]
    return total / scale, i


def early_exit(x):
    for _ in range(3):
        if np.sum(x) > 10:
            return x
        x = x * 2
    return -x
