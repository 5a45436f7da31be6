"""`input_signature` as users write it: on methods (the bound `self` is not in it),
nested specs (dicts, lists, tuples of TensorSpec), Python-valued arguments after the
specs (keyed by value), and `ag.to_graph`/`ag.to_code` of decorated functions/methods.

Differential: each call is compared with the plain Python function on the same inputs
(value, dtype, shape, type) and the object's state after the call.
"""
import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"jit_compile": True}]
F32 = np.float32


def same(a, b) -> None:
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    else:
        assert a == b


def affine(self, x):
    if x.shape[0] > 2:
        self.calls += 1
        return x * self.w + self.b
    return x - self.b


def make_layer(options):
    class Layer:
        def __init__(self, w):
            self.w, self.b, self.calls = w, F32(1), 0

        forward = ag.function(affine, input_signature=[ag.TensorSpec((None,), F32)],
                              **options)
    return Layer


@pytest.mark.parametrize("options", MODES)
def test_method_signature_excludes_self(options):
    layer_type = make_layer(options)
    a, b = layer_type(F32(2)), layer_type(F32(3))
    eager_a, eager_b = layer_type(F32(2)), layer_type(F32(3))
    for sizes in ([1, 3, 5, 2], [4, 7, 6, 9]):
        for n in sizes:
            x = np.arange(n, dtype=F32)
            same(a.forward(x), affine(eager_a, x))
            same(b.forward(x), affine(eager_b, x))
            assert (a.calls, b.calls) == (eager_a.calls, eager_b.calls)
        if sizes[0] == 1:
            traced = layer_type.forward.tracing_count
    # per instance (and the Python state it writes), never per shape
    assert layer_type.forward.tracing_count == traced
    with pytest.raises(TypeError, match="dtype"):
        a.forward(np.ones(3, np.int8))
    assert a.forward.get_concrete_function() is a.forward.get_concrete_function()


def combine(inputs, pair, scale=2, mode="sum"):
    total = inputs["a"] * scale + pair[0]
    if mode == "sum":
        return total + pair[1], {"b": inputs["b"]}
    return total - pair[1], {"b": inputs["b"]}


@pytest.mark.parametrize("options", MODES)
def test_nested_specs_and_python_values_after_them(options):
    sig = [{"a": ag.TensorSpec((None,), F32), "b": ag.TensorSpec((), np.int64)},
           (ag.TensorSpec((None,), F32), ag.TensorSpec((None,), F32))]
    f = ag.function(combine, input_signature=sig, **options)
    for n, scale, mode in [(2, 2, "sum"), (4, 2, "sum"), (3, 5, "sum"), (3, 5, "diff"),
                           (1, 2, "sum")]:
        inputs = {"b": np.int64(n), "a": np.arange(n, dtype=F32)}  # any key order
        pair = (np.ones(n, F32), np.full(n, 3, F32))
        same(f(inputs, pair, scale, mode=mode), combine(inputs, pair, scale, mode=mode))
        same(f(inputs, list(pair), scale, mode), combine(inputs, list(pair), scale, mode))
    # Python values are keyed by value: 3 settings (x list/tuple), not one per shape
    assert f.tracing_count == 6
    with pytest.raises(TypeError, match="keys"):
        f({"a": np.ones(2, F32)}, (np.ones(2, F32), np.ones(2, F32)))
    with pytest.raises(TypeError, match="2 items"):
        f({"a": np.ones(2, F32), "b": np.int64(1)}, (np.ones(2, F32),))


def test_python_argument_without_default_beside_specs():
    def shift(x, k):
        return x + k
    f = ag.function(shift, input_signature=[ag.TensorSpec((None,), F32)])
    for k in [1, 2, 1]:
        x = np.arange(3, dtype=F32)
        same(f(x, k), shift(x, k))
    assert f.tracing_count == 2


class Net:
    def __init__(self):
        self.scale = F32(3)

    @ag.function
    def apply(self, x):
        if x.sum() > 0:
            return x * self.scale
        return -x


def plain_square(x):
    y = x
    for _ in range(2):
        y = y * x
    return y


def test_to_graph_and_to_code_reach_the_function_underneath():
    net, x = Net(), np.arange(3.0, dtype=F32)
    converted = ag.to_graph(net.apply)
    same(converted(x), Net.apply.python_function(net, x))
    same(converted(-x), Net.apply.python_function(net, -x))
    assert "def " in ag.to_code(net.apply) and "ag__" in ag.to_code(net.apply)
    decorated = ag.function(plain_square)
    same(ag.to_graph(decorated)(x), plain_square(x))
    assert ag.to_code(decorated) == ag.to_code(plain_square)
