"""The runtime's control-flow gradient programs (cond / while_loop, nested, with lists
and Variables) and the MLP training step, saved, loaded in a fresh process and called:
the same values and gradients, and the same Variable values before and after (the
training step updates its Variables on every call)."""
from __future__ import annotations

import importlib.util
import os

import numpy as np

import autograph as ag
from tests.runtime import test_gradient_programs as flat
from tests.runtime import test_gradient_programs_nested as nested
from tests.runtime import test_gradient_programs_variables as with_variables
from tests.saved.roundtrip import roundtrip


def _step(graph):
    def step(p, *d):
        with ag.GradientTape() as tape:
            tape.watch(p)
            y = graph(p, *d)
        return y, tape.gradient(y, p)
    return step


def _variable_step(graph, variables):
    def step(*d):
        with ag.GradientTape() as tape:
            y = graph(variables, *d)
        return y, tape.gradient(y, variables)
    return step


def test_gradient_programs_round_trip_through_a_fresh_process(tmp_path):
    entries = []
    for table in (flat.programs, nested.programs):
        for name in table.working():
            _, graph, points = table.table[name]
            fn = ag.function(_step(graph), autograph=False)
            for point in points:
                fn.get_concrete_function(*point)
            entries.append((name, fn, list(points)))
    for name, make in sorted(with_variables.PROGRAMS.items()):
        _, graph, variables, data = make()
        fn = ag.function(_variable_step(graph, variables), autograph=False)
        fn.get_concrete_function(*data)
        entries.append((name, fn, [data]))
    assert len(entries) >= 20
    roundtrip(entries, tmp_path)


def test_training_step_updates_restored_variables_like_the_original(tmp_path):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_mlp.py")
    spec = importlib.util.spec_from_file_location("train_mlp_for_saving", path)
    train_mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_mlp)
    x, y = train_mlp.make_data(n=128)
    step = ag.function(train_mlp.make_step(train_mlp.MLP()), autograph=False)
    step.get_concrete_function(x[:64], y[:64])
    batches = [(x[:64], y[:64]), (x[64:], y[64:])] * 3
    roundtrip([("train_step", step, batches)], tmp_path)


def test_a_function_with_several_traces_and_relaxed_shapes(tmp_path):
    @ag.function(reduce_retracing=True)
    def scale(x, k=2):
        return x * k if np.sum(x) > 0 else x - k

    for n in (3, 4, 5):
        scale(np.ones(n, np.float32))
    scale(np.ones(2, np.int64), k=3)
    # only arguments some saved trace serves (a new one would make the original trace)
    args = [(np.ones(7, np.float32),), (-np.ones(2, np.float32),), (np.ones(2, np.int64), 3),
            (np.arange(3, dtype=np.float32), 2)]
    roundtrip([("scale", scale, args)], tmp_path)
