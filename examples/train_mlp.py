"""Train a two-layer network with a decorated training step.

Shows: ag.Variable parameters, ag.GradientTape inside @ag.function (the backward pass
is part of the same graph), Variable.assign_sub for the update, the loss falling, and
the step time of the graph against the same step run eagerly.
"""
import time

import numpy as np

import autograph as ag


def make_data(n: int = 512, seed: int = 0):
    """Three interleaved spirals in 32 dimensions (2 informative + 30 noise)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    t = rng.uniform(0.2, 1.0, n)
    angle = labels * (2 * np.pi / 10) + 3.0 * t
    points = np.stack([t * np.cos(angle), t * np.sin(angle)], axis=1)
    noise = rng.normal(0, 0.05, (n, 30))
    x = np.concatenate([points, noise], axis=1).astype(np.float32)
    return x, np.eye(10, dtype=np.float32)[labels]


class MLP:
    def __init__(self, n_in=32, n_hidden=64, n_out=10, seed=1):
        rng = np.random.default_rng(seed)
        self.w1 = ag.Variable(rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_hidden)).astype(np.float32))
        self.b1 = ag.Variable(np.zeros(n_hidden, np.float32))
        self.w2 = ag.Variable(rng.normal(0, 1 / np.sqrt(n_hidden), (n_hidden, n_out)).astype(np.float32))
        self.b2 = ag.Variable(np.zeros(n_out, np.float32))
        self.params = [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x):
        h = np.tanh(x @ self.w1 + self.b1)
        return h @ self.w2 + self.b2


def cross_entropy(logits, onehot):
    m = np.max(logits, axis=1, keepdims=True)
    log_probs = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(onehot * log_probs, axis=1))


def make_step(model, lr=0.5):
    def train_step(x, y):
        with ag.GradientTape() as tape:
            loss = cross_entropy(model(x), y)
        grads = tape.gradient(loss, model.params)
        for p, g in zip(model.params, grads):
            p.assign_sub(lr * g)
        return loss
    return train_step


def time_steps(step, batches, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for x, y in batches:
            step(x, y)
        best = min(best, (time.perf_counter() - start) / len(batches))
    return best


def main():
    x, y = make_data()
    batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, len(x), 64)]
    model = MLP()
    step = ag.function(make_step(model))
    for epoch in range(30):
        losses = [float(step(bx, by)) for bx, by in batches]
        if epoch % 5 == 0 or epoch == 29:
            print(f"epoch {epoch:2d}  loss {np.mean(losses):.4f}")

    graph_time = time_steps(step, batches)
    eager_time = time_steps(make_step(MLP()), batches)
    print(f"step time: graph {graph_time * 1e3:.3f} ms, eager {eager_time * 1e3:.3f} ms "
          f"(graph/eager {graph_time / eager_time:.2f})")


if __name__ == "__main__":
    main()
