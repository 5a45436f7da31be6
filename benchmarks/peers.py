"""jax.jit peers of the workloads in run.py: extra table columns when JAX is installed.

Each peer is its workload rewritten for `jax.numpy` and compiled with `jax.jit`. It gets
the same inputs (put on the device once, beforehand), its first result is checked
against the NumPy one (same dtype; exact for integers, allclose for floats), and every
timed call ends in `block_until_ready()` so asynchronous dispatch hides no work. x64 is
enabled so the int64/float64 workloads stay 64-bit; float32 ones stay float32.

Without JAX, `COLUMNS` is empty and run.py prints its table unchanged. TensorFlow is
not covered: it is not installed here, so a tf.function column would be untested code.
Another framework would be one more entry in `COLUMNS`.
"""
from __future__ import annotations

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:
    jax = None
else:
    jax.config.update("jax_enable_x64", True)


def _power(fn, args):
    def power(x, y):
        result = jnp.eye(10, dtype=jnp.int32)
        for _ in range(y):          # unrolled at trace time, like the graph
            result = jnp.matmul(x, result)
        return result
    return jax.jit(power, static_argnums=1), args


def _matmul_loop(fn, args):
    def matmul_loop(s, y, x):
        for _ in range(10):
            s = s + (s @ y) * x
        return s
    return jax.jit(matmul_loop), args


def _dense_model(model, args):
    weights = [(jnp.asarray(layer.w), jnp.asarray(layer.b)) for layer in model.layers]

    def dense_model(x):             # the weights are captured, as the graph captures them
        for w, b in weights:
            x = jnp.tanh(x @ w + b)
        return x
    return jax.jit(dense_model), args


def _normalise(fn, args):
    def normalise(x):
        eye = jnp.eye(x.shape[1], dtype=x.dtype)
        scale = jnp.sqrt(jnp.float32(x.shape[1]))
        a = (jnp.exp(x) @ eye) / scale
        b = (jnp.exp(x) @ eye) / scale
        return (a + b) / jnp.sum(jnp.exp(x))
    return jax.jit(normalise), args


def _elementwise_chain(fn, args):
    def elementwise_chain(x):
        y = x * 2.0 + 1.0
        y = jnp.tanh(y) * x
        y = y - x / 3.0
        return jnp.sqrt(jnp.abs(y)) + 0.5
    return jax.jit(elementwise_chain), args


def _collatz(fn, args):
    def collatz(n):
        def body(state):
            n, steps = state
            n = lax.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, n)
            return n, steps + 1
        return lax.while_loop(lambda state: state[0] > 1, body, (n, jnp.int64(0)))[1]
    return jax.jit(collatz), args


def _independent_sorts(fn, args):
    return jax.jit(lambda a, b: jnp.sort(a) + jnp.sort(b)), args


def _jax_train_step(lr):
    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        logits = jnp.tanh(x @ w1 + b1) @ w2 + b2
        m = jnp.max(logits, axis=1, keepdims=True)
        log_probs = logits - m - jnp.log(jnp.sum(jnp.exp(logits - m), axis=1, keepdims=True))
        return -jnp.mean(jnp.sum(y * log_probs, axis=1))

    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return loss, tuple(p - lr * g for p, g in zip(params, grads))
    return jax.jit(train_step)


def _train_step(fn, args):
    """run.py's step is train_mlp's with lr=0.0 (the parameters stay put between calls)."""
    import train_mlp  # run.py has put examples/ on sys.path

    def params():
        return tuple(jnp.asarray(p.numpy()) for p in train_mlp.MLP().params)

    # One update with a real learning rate, checked against the eager step, so the
    # gradients (not just the loss) agree; the timed step returns the loss.
    model = train_mlp.MLP()
    train_mlp.make_step(model, lr=0.5)(*args)
    _, updated = _jax_train_step(0.5)(params(), *args)
    for p, q in zip(model.params, updated):
        np.testing.assert_allclose(np.asarray(q), p.numpy(), rtol=1e-4, atol=1e-6)
    step = _jax_train_step(0.0)
    return (lambda p, x, y: step(p, x, y)[0]), (params(), *args)


_JAX = {
    "add_two": lambda fn, args: (jax.jit(lambda x, y: x + y), args),
    "power": _power,
    "matmul_loop": _matmul_loop,
    "DeepModel": _dense_model,
    "normalise": _normalise,
    "elementwise_chain": _elementwise_chain,
    "collatz": _collatz,
    "independent_sorts": _independent_sorts,
    "train_step": _train_step,
}


def _jax_peer(fn, args):
    build = _JAX.get(getattr(fn, "__name__", type(fn).__name__))
    if build is None:
        return None
    f, args = build(fn, tuple(jax.device_put(a) if isinstance(a, (np.ndarray, np.generic))
                              else a for a in args))
    return (lambda *a: jax.block_until_ready(f(*a))), args


COLUMNS = {"jax.jit": _jax_peer} if jax is not None else {}


def peers(fn, args, expected) -> list:
    """One (callable, args) per column of COLUMNS, or None where a column has no peer for
    `fn`; each peer's first result is checked against `expected` (the eager result)."""
    runs = []
    for make in COLUMNS.values():
        run = make(fn, args)
        if run is not None:
            got, want = np.asarray(run[0](*run[1])), np.asarray(expected)
            assert got.dtype == want.dtype, (got.dtype, want.dtype)
            if np.issubdtype(want.dtype, np.inexact):
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
            else:
                np.testing.assert_array_equal(got, want)
        runs.append(run)
    return runs
