"""Gradients w.r.t. Variables read inside cond branches and loop bodies, three ways: the
tape watches them by itself, eagerly and in graphs (where a read inside a branch or body
is moved before the control-flow node, which then captures it).
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime import cond, while_loop
from tests.runtime.gradcheck import check_variable_program
from tests.runtime.test_gradient_programs import _RNN, _XS

i64 = np.int64
PROGRAMS = {}


def variable_program(name):
    def deco(make):
        PROGRAMS[name] = make
        return make
    return deco


@variable_program("rnn-variables-read-in-body")
def _():
    W, U, b = ag.Variable(_RNN["W"]), ag.Variable(_RNN["U"]), ag.Variable(_RNN["b"])

    def eager(v, xs, n):
        W, U, b = v
        h, i = np.zeros(2), 0
        while i < n:
            h = np.tanh(xs[i] @ W + h @ U + b)
            i += 1
        return h

    def graph(v, xs, n):
        W, U, b = v
        return while_loop(lambda i, h: i < n, lambda i, h: (i + 1, np.tanh(xs[i] @ W + h @ U + b)),
                          (i64(0), np.zeros(2)))[1]
    return eager, graph, (W, U, b), (_XS, i64(3))


@variable_program("variables-in-nested-cond-in-loop")
def _():
    w = {"w": ag.Variable(np.array([0.9, -0.7])), "y0": [ag.Variable(np.array([0.4, 0.6]))]}

    def eager(v, n):
        y, i = v["y0"][0] * 1.0, 0
        while i < n:
            if i % 2 == 0:
                if np.sum(y) > 0:
                    y = y * v["w"]
                else:
                    y = y - v["w"]
            else:
                y = np.tanh(y + v["w"])
            i += 1
        return y

    def graph(v, n):  # y is passed to the branches; v["w"] is read in them
        def inner(y):
            return cond(np.sum(y) > 0, lambda y: y * v["w"], lambda y: y - v["w"], (y,))

        def body(i, y):
            return i + 1, cond(i % 2 == 0, inner, lambda y: np.tanh(y + v["w"]), (y,))
        return while_loop(lambda i, y: i < n, body, (i64(0), v["y0"][0] * 1.0))[1]
    return eager, graph, w, (i64(5),)


@variable_program("variable-read-outside-and-inside")
def _():
    k = ag.Variable(np.float64(0.7))

    def eager(k, x, n):
        y, i = x * k, 0
        while i < n:
            y = np.sin(y) + k * y
            i += 1
        return y * k

    def graph(k, x, n):
        y = while_loop(lambda i, y: i < n, lambda i, y: (i + 1, np.sin(y) + k * y), (i64(0), x * k))[1]
        return y * k
    return eager, graph, k, (np.array([0.5, -1.0]), i64(3))


@variable_program("variables-in-cond-branches")
def _():
    W = ag.Variable(np.array([[0.5, -0.3], [0.2, 0.8]]))
    b = ag.Variable(np.array([0.1, -0.4]))

    def eager(v, x):
        W, b = v
        h = x @ W
        if np.sum(h) > 0:
            return np.tanh(h + b)
        return h * b

    def graph(v, x):
        W, b = v
        h = x @ W
        return cond(np.sum(h) > 0, lambda: np.tanh(h + b), lambda: h * b)
    return eager, graph, [W, b], (np.array([1.0, 0.5]),)


@variable_program("variables-in-cond-branches-other-side")
def _():
    eager, graph, variables, _ = PROGRAMS["variables-in-cond-branches"]()
    return eager, graph, variables, (np.array([-1.0, -0.5]),)


@variable_program("variable-in-flagged-loop-with-maximum-iterations")
def _():
    k = {"k": ag.Variable(np.float64(1.4))}

    def eager(v, y, limit):  # stops when the flag is set or after `limit` iterations
        i, done = 0, False
        while not done and i < limit:
            y = y * v["k"] + 0.2
            done = np.max(y) > 2.0
            i += 1
        return y

    def graph(v, y, limit):
        def body(y, done):
            y = y * v["k"] + 0.2
            return y, np.max(y) > 2.0
        # the flag starts symbolic: with a Python False the first iteration would run as
        # Python and a symbolic limit would not count it (test_gradient_programs.py:
        # test_symbolic_maximum_iterations_bug_repro)
        return while_loop(lambda y, done: np.logical_not(done), body, (y, np.max(y) > 2.0),
                          maximum_iterations=limit)[0]
    return eager, graph, k, (np.array([0.3, 0.1]), i64(3))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_variable_program(name):
    eager, graph, variables, data = PROGRAMS[name]()
    check_variable_program(eager, graph, variables, *data)



def test_two_tapes_see_a_variable_read_in_a_loop_body_started_from_a_python_number():
    k = ag.Variable(np.float64(0.5))

    @ag.function(autograph=False)
    def f(n):
        with ag.GradientTape() as outer:
            with ag.GradientTape() as inner:
                # `s` starts as a Python float: the body is traced twice (weak typing)
                s = while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * k + k), (0, 0.0))[1]
        return inner.gradient(s, k), outer.gradient(s, k)

    # s = k + k^2 + k^3 after three iterations: ds/dk = 1 + 2k + 3k^2
    for g in f(i64(3)):
        np.testing.assert_allclose(g, 1 + 2 * 0.5 + 3 * 0.25)
