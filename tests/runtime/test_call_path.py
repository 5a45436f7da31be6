"""The generated call path (runtime/frontend/call_path.py) against plain Python: every
calling convention gives Python's results, retraces exactly when a cache key made by
`signature.key_of` differs, and a bad call raises Python's own TypeError."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.frontend.function import BoundFunction
from runtime.frontend.signature import has_aliases, key_of, mark_aliases


def scaled(x, scale=2.0, shift=0, flag=False, name="a", extra=None):
    y = x * scale + shift
    if flag:
        y = -y
    if extra is not None:
        y = y + extra
    return y, name


def star(x, *rest, **options):
    out = x
    for r in rest:
        out = out + r
    for v in options.values():
        out = out * v
    return out


def only_keywords(x, *, y, z=1.5):
    return x * z + y


class Model:
    def __init__(self, w):
        self.w = w

    def forward(self, x, bias=0.0):
        return x * self.w + bias


X, Y = np.arange(4.0), np.ones(4)


def same(got, expected):
    if isinstance(expected, tuple):
        assert type(got) is tuple and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape


CALLS = [
    (scaled, (X,), {}),
    (scaled, (X, 3.0), {}),
    (scaled, (X,), {"scale": 3}),          # an int where the default is a float
    (scaled, (X,), {"scale": True}),       # a bool: its own key (not equal to 1)
    (scaled, (X,), {"scale": -0.0}),       # -0.0 keyed apart from 0.0
    (scaled, (X,), {"scale": 0.0}),
    (scaled, (X,), {"shift": 1, "flag": True, "name": "b"}),
    (scaled, (X,), {"extra": Y}),          # an array where the default is None
    (scaled, (X,), {"extra": np.float32(2)}),
    (scaled, (np.float64(3.0),), {}),      # a NumPy scalar
    (star, (X,), {}),
    (star, (X, Y), {}),
    (star, (X, Y, 2.0), {"k": 3}),
    (star, (X, Y), {"k": Y}),
    (star, (X, Y, Y), {}),                 # the same array twice in *args
    (star, (X, np.float32(2)), {}),        # a NumPy scalar in *args
    (star, (X, Y), {"k": True}),
    (star, (X,), {"k": Y}),                # one array in **kwargs (keyed inline)
    (star, (X,), {"k": X}),                # ... the same array as x: one input
    (star, (X,), {"k": 2}),
    (star, (X, Y), {"k": Y, "j": 2.0}),    # two options: keyed by a helper
    (only_keywords, (X,), {"y": Y}),
    (only_keywords, (X,), {"y": 2.0, "z": 0.5}),
]


@pytest.mark.parametrize("fn, args, kwargs", CALLS)
def test_each_convention_gives_pythons_result(fn, args, kwargs):
    f = ag.function(fn)
    for _ in range(3):  # the first call traces, the others take the cached path
        same(f(*args, **kwargs), fn(*args, **kwargs))
    assert f.tracing_count == 1


def test_one_trace_per_distinct_key_as_key_of_makes_them():
    f = ag.function(scaled)
    for kwargs in [{}, {"scale": 2.0}, {"scale": 2}, {"scale": True}, {"scale": 1},
                   {"scale": 0.0}, {"scale": -0.0}, {"scale": 0.0}]:
        same(f(X, **kwargs), scaled(X, **kwargs))
    # 2.0 is the default; 1 and True, 0.0 and -0.0 are keyed apart
    assert f.tracing_count == 6


def test_the_same_array_twice_is_one_input():
    f = ag.function(star)
    same(f(X, X), star(X, X))
    same(f(X, Y), star(X, Y))
    assert f.tracing_count == 2


def test_methods_bound_and_through_the_class():
    m = Model(np.full(4, 2.0))
    forward = ag.function(Model.forward)
    Model.traced = forward
    try:
        bound = m.traced
        assert isinstance(bound, BoundFunction)
        assert bound.function is forward and bound.instance is m
        for _ in range(2):
            same(m.traced(X), m.forward(X))
            same(m.traced(X, bias=1.5), m.forward(X, bias=1.5))
            same(Model.traced(m, X), m.forward(X))
        other = Model(np.full(4, 3.0))  # another `self`: its own trace
        same(other.traced(X), other.forward(X))
        assert bound.get_concrete_function(X) is forward.get_concrete_function(m, X)
    finally:
        del Model.traced


def test_input_signature_fast_and_checked_paths():
    f = ag.function(lambda x, y: x + y,
                    input_signature=[ag.TensorSpec((None,), np.float64)] * 2)
    for n in (2, 3, 2, 2, 3, 3, 2):
        same(f(np.ones(n), np.ones(n)), np.ones(n) + np.ones(n))
    assert f.tracing_count == 1
    with pytest.raises(TypeError):
        f(np.ones(2, np.float32), np.ones(2))
    for n in (2, 3, 2):  # a call that does not fit, between calls that do, is refused
        same(f(np.ones(n), np.ones(n)), np.ones(n) + np.ones(n))
        with pytest.raises(ValueError, match="has shape"):
            f(np.ones((n, 1)), np.ones(n))
        with pytest.raises(TypeError):
            f(np.ones(n), np.ones(n, np.int64))
    assert f.tracing_count == 1


def test_bad_calls_raise_pythons_type_error():
    f = ag.function(scaled)
    for call in (lambda g: g(), lambda g: g(X, nope=1), lambda g: g(X, 1, 2, 3, 4, 5, 6)):
        with pytest.raises(TypeError) as got:
            call(f)
        with pytest.raises(TypeError) as expected:
            call(scaled)
        assert str(got.value) == str(expected.value)


def test_eager_mode_and_nested_calls_run_the_python_function():
    f = ag.function(scaled)
    ag.run_functions_eagerly(True)
    try:
        same(f(X, scale=3), scaled(X, scale=3))
    finally:
        ag.run_functions_eagerly(False)
    assert f.tracing_count == 0

    @ag.function
    def outer(x):
        return f(x, shift=1)[0] + 1.0

    same(outer(X), scaled(X, shift=1)[0] + 1.0)
    assert f.tracing_count == 0  # traced through, inline


class Running:
    def __init__(self, n):
        self.mean = np.zeros(n)
        self.count = 0.0

    def update(self, x, momentum=0.1):
        self.mean *= 1.0 - momentum  # written in place: the caller's array changes
        self.mean += momentum * x
        self.count = self.count + 1.0  # rebound: a float read and written each call
        return self.mean.sum()


@pytest.mark.parametrize("via_class", [False, True])
def test_traces_reading_and_writing_python_state_take_the_call_path(via_class, monkeypatch):
    """A trace whose inputs include places of `self` (a float rebound each call, an
    array written into) runs from the generated call path with those inputs, with
    Python's results and state after every call; a changed shape still retraces."""
    update = ag.function(Running.update)
    graph_obj, eager_obj = Running(4), Running(4)
    call = (lambda o, *a, **k: update(o, *a, **k)) if via_class else \
        (lambda o, *a, **k: update.__get__(o)(*a, **k))
    mean = graph_obj.mean
    for k in range(3):
        same(call(graph_obj, X + k), eager_obj.update(X + k))
    fulls = []
    original = type(update)._call_bound
    monkeypatch.setattr(type(update), "_call_bound",
                        lambda self, args: fulls.append(args) or original(self, args))
    for k in range(3):
        same(call(graph_obj, X + k, momentum=0.5), eager_obj.update(X + k, momentum=0.5))
        same(call(graph_obj, X), eager_obj.update(X))
    assert len(fulls) == 1  # the new momentum's first call only: it traces
    assert graph_obj.mean is mean
    np.testing.assert_array_equal(graph_obj.mean, eager_obj.mean)
    assert type(graph_obj.count) is float and graph_obj.count == eager_obj.count
    graph_obj.mean, eager_obj.mean = np.zeros(3), np.zeros(3)  # another shape: traced again
    same(call(graph_obj, X[:3]), eager_obj.update(X[:3]))
    np.testing.assert_array_equal(graph_obj.mean, eager_obj.mean)


def test_calls_alternating_between_traces_each_run_their_own():
    """The call path compares a call's key parts with the last call's before looking the
    key up: calls alternating in shape, dtype, byte order, Python value and `self`
    each run the trace of their own key."""
    f = ag.function(scaled, max_traces=None)
    method = ag.function(Model.forward)
    models = [Model(np.full(4, 2.0)), Model(np.full(4, 3.0))]
    arrays = [X, np.arange(3.0), X.astype(np.float32), X.astype(">f8"), X.astype(np.int64)]
    for _ in range(3):
        for k, x in enumerate(arrays):
            same(f(x), scaled(x))
            same(f(x, scale=0.5 + k), scaled(x, scale=0.5 + k))
            same(f(x, shift=k), scaled(x, shift=k))
            m = models[k % 2]
            same(method(m, X, bias=float(k)), m.forward(X, bias=float(k)))
    assert f.tracing_count == 3 * len(arrays) - 1  # shift=0 is the default's trace


def named(x, name, k, flag, extra=None):
    return x * k + (1.0 if flag else -1.0) + len(name or ""), name


@pytest.mark.filterwarnings("ignore:.*was traced 5 times")
def test_python_values_without_a_default_take_the_typical_branch_keyed_as_key_of():
    """A str / int / bool / None where the first call passed one (`update(p, g, "W")`)
    is served by the call path's typical branch after the first trace: calls alternating
    in those values, their types and the array's shape each run their own trace, and a
    BoundFunction made before that first trace still runs its own entry exactly."""
    f = ag.function(named, max_traces=None)
    first = f._entry
    calls = [(X, "W", 2, True), (X, "W", 2, True), (X, "bb", 2, True), (X, "W", 3, False),
             (X, "W", True, True), (X, "W", 1, True), (X, "W", 1.0, True),
             (np.arange(3.0), "W", 2, True), (X, "W", 2, 1), (X, None, 2, None)]
    for _ in range(3):
        for args in calls:
            same(f(*args), named(*args))
            same(first(*args), named(*args))  # the entry made before the first trace
    assert f._entry is not first
    assert f.tracing_count == len(calls) - 1  # the first two calls are one key


def test_a_method_made_before_its_first_trace_and_one_made_after_agree():
    m = Model(np.full(4, 2.0))
    forward = ag.function(lambda self, x, name: (self.forward(x), name))
    early = forward.__get__(m)
    for name in ["a", "b", "a"]:
        same(early(X, name), (m.forward(X), name))
        same(forward.__get__(m)(X, name), (m.forward(X), name))
        same(early(X, name), (m.forward(X), name))


def total(xs, scale=1.0):
    out = xs[0] * scale
    for x in xs[1:]:
        out = out + x
    return out


@pytest.mark.filterwarnings("ignore:.*was traced 5 times")
def test_list_and_tuple_arguments_are_keyed_inline_as_key_of_keys_them():
    """A list or tuple of arrays and Python scalars is keyed by the call path itself:
    calls alternating in its type, length, items' shapes and values, the same array
    twice and nested items each run the trace of their own key."""
    f = ag.function(total, max_traces=None)
    calls = [[X, Y], (X, Y), [X, Y, X], [X, X], [X[:2], Y[:2]], [X, 2.0], [X, 3.0],
             [X, 2], [X, True], [X.astype(np.float32), Y], [X, [Y]], [X, Y]]
    for _ in range(2):
        for xs in calls:
            same(f(xs), total(xs))
            same(f(xs, scale=0.5), total(xs, scale=0.5))
    assert f.tracing_count == 2 * (len(calls) - 1)
    assert f._entry_kinds == {0: ("items", 2, list)}  # the first call's: two arrays


def appended(xs, x):
    xs.append(x * 2)
    return len(xs)


def test_a_list_argument_written_into_still_takes_the_full_path():
    f = ag.function(appended)
    graph_list, eager_list = [X], [X]
    for _ in range(3):
        same(f(graph_list, Y), appended(eager_list, Y))
        assert len(graph_list) == len(eager_list)
        for a, b in zip(graph_list, eager_list):
            np.testing.assert_array_equal(a, b)


class Layer:
    def __init__(self):
        self.params = {"W": np.full(4, 0.5), "b": np.zeros(4)}
        self.opt = Running(4)
        self.history = []
        self.scale = 2.0

    def step(self, x):
        y = x * self.params["W"] * self.scale + self.params["b"]
        self.params["b"] = self.params["b"] + 0.1  # rebound in a dict of `self`
        self.history.append(y.sum())
        return y + self.opt.update(y)


def _same_layer(a, b):
    for k in ("W", "b"):
        np.testing.assert_array_equal(a.params[k], b.params[k])
    np.testing.assert_array_equal(a.opt.mean, b.opt.mean)
    assert a.opt.count == b.opt.count and a.scale == b.scale
    assert [float(h) for h in a.history] == [float(h) for h in b.history]


def test_state_guards_inputs_executor_and_write_back_run_as_one_generated_function():
    """A method reading and writing nested state of `self` runs from one generated
    function per trace; every change made from outside between calls (a rebound
    attribute, an array written in place, a replaced dict, a longer list) is seen."""
    graph_layer, eager_layer = Layer(), Layer()
    step = ag.function(Layer.step)
    changes = [lambda m: None, lambda m: None,
               lambda m: setattr(m, "scale", 3.0),
               lambda m: m.params["W"].__setitem__(0, 9.0),
               lambda m: m.params.__setitem__("W", np.full(4, -1.0)),
               lambda m: setattr(m.opt, "count", 10.0),
               lambda m: m.history.append(np.float64(1.0)),
               lambda m: None]
    for change in changes:
        change(graph_layer)
        change(eager_layer)
        same(step(graph_layer, X), eager_layer.step(X))
        _same_layer(graph_layer, eager_layer)
    last = step._cache[next(iter(step._cache))]
    assert last.stateful.__code__.co_filename == "<state guards>"


@pytest.mark.filterwarnings("ignore:.*was traced 5 times")
@pytest.mark.parametrize("first", [(X, Y), (X, Y, Y + 1), (X,)])
@pytest.mark.parametrize("option", [{}, {"y": Y}, {"flag": 2}, {"name": "a"}])
def test_star_args_and_one_option_take_the_typical_branch_after_the_first_trace(first, option):
    """`*args` of arrays and one `**kwargs` option, as the first call passed them, are
    served by the typical branch generated after the first trace; calls alternating in
    the number of arrays, the option's name, type and value, and an array passed twice
    each run their own trace, with Python's results."""
    f = ag.function(star, max_traces=None)
    calls = [(first, option), (first, option), ((X, Y), {"y": Y}), ((X, Y), {"flag": 3}),
             ((X, Y), {"flag": True}), ((X, Y), {"y": Y.astype(np.int64)}), ((X, X), option),
             ((X, Y), {"y": X}), ((X, Y.astype(np.float32)), option), ((X, 2.0), option),
             ((X,), {}), ((X, Y), {"y": Y, "z": Y})]
    first_entry = f._entry
    for _ in range(2):
        for args, kwargs in calls:
            kwargs = {k: v for k, v in kwargs.items() if k != "name"}  # (no str options
            # reach `star`'s product; "name" is in the key only through the first call)
            same(f(*args, **kwargs), star(*args, **kwargs))
    assert f._entry is not first_entry or not f._entry_kinds
    keys = set()
    for args, kwargs in calls:  # the keys the full path makes (`signature.key_of`)
        leaves: list = []
        key = tuple(key_of(a, leaves) for a in f._bind(args, {
            k: v for k, v in kwargs.items() if k != "name"}))
        keys.add(mark_aliases(key, leaves)[0] if has_aliases(leaves) else key)
    assert f.tracing_count == len(keys)


def six_weights(x, h, c, W, U, b):
    c = c * 0.5 + x @ W
    return c + h @ U + b, c


def eight_arrays(a, b, c, d, e, f, g, h):
    a += 1.0  # written: an array passed twice must be one input
    return a * b + c * d - e * f + g * h


@pytest.mark.parametrize("fn, n", [(six_weights, 6), (eight_arrays, 8)])
def test_many_array_arguments_take_the_typical_branch_and_an_array_twice_is_seen(fn, n):
    """Model code passes many arrays (`lstm_cell(x, h, c, W, U, b)`): such calls take
    the typical branch too (it keeps the last call), and an array passed twice, at any
    two places, still goes the general way and gives Python's result."""
    rng = np.random.default_rng(0)
    f = ag.function(fn)

    def fresh():
        return [rng.normal(size=(3, 3)) for _ in range(n)]

    f(*fresh())
    f(*fresh())
    assert f._last is not None  # (the typical branch's: the general one keeps none)
    for places in [None, (0, 1), (n - 2, n - 1), (1, n - 1), None]:
        graph_args = fresh()
        if places is not None:
            graph_args[places[1]] = graph_args[places[0]]
        eager_args = [a.copy() for a in graph_args]
        if places is not None:
            eager_args[places[1]] = eager_args[places[0]]
        same(f(*graph_args), fn(*eager_args))
        for g, e in zip(graph_args, eager_args):
            np.testing.assert_array_equal(g, e)
