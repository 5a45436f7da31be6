"""A decorated training step gives the same losses as the eager step, step after step."""
import importlib.util
import os

import numpy as np

import autograph as ag

_spec = importlib.util.spec_from_file_location(
    "train_mlp", os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_mlp.py"))
train_mlp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_mlp)


def test_graph_step_matches_eager_step_for_30_steps():
    x, y = train_mlp.make_data(n=256)
    batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, len(x), 64)]
    graph_model, eager_model = train_mlp.MLP(), train_mlp.MLP()
    graph_step = ag.function(train_mlp.make_step(graph_model), autograph=False)
    eager_step = train_mlp.make_step(eager_model)
    graph_losses, eager_losses = [], []
    for i in range(30):
        bx, by = batches[i % len(batches)]
        graph_losses.append(float(graph_step(bx, by)))
        eager_losses.append(float(eager_step(bx, by)))
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert graph_losses[-1] < graph_losses[0]
    assert graph_step.tracing_count == 1
    for a, b in zip(graph_model.params, eager_model.params):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
