"""Gradients through an `ag.function` called under an eager GradientTape.

`with tape: loss = model(x)` where `model` is a compiled function reading Variables must
give the gradients of running model's code eagerly under the same tape. Every case is
differential: the function under the tape vs the same Python code eagerly (values,
dtypes, gradients), and vs central differences where the gradient is new.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import autograph as ag


def _value(v):
    return None if v is None else np.asarray(v.numpy() if hasattr(v, "numpy") else v)


def _same(a, b):
    """Gradients (or results) equal in value, dtype and structure; None only for None."""
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    assert (a is None) == (b is None), (a, b)
    if a is None:
        return
    a, b = _value(a), _value(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)


def _both(make, run, **options):
    """run(fn, tape) with fn eager, then compiled with `options`; fresh state (from
    `make()`: (fn, variables)) for each, so assigns start from the same values. Returns
    (eager results, graph results, eager variables' values, graph variables' values)."""
    out = []
    for compiled in (False, True):
        fn, variables = make()
        if compiled:
            fn = ag.function(fn, **options)
        results = run(fn)
        out.append((results, [v.numpy() for v in variables]))
    (eager, eager_vars), (graph, graph_vars) = out
    _same(eager, graph)
    _same(eager_vars, graph_vars)
    return eager, graph


def _close(a, b):
    """Central differences agree to about 1e-7."""
    np.testing.assert_allclose(_value(a), b, rtol=1e-6, atol=1e-7)


def _central(f, x, eps=1e-6):
    """Central differences of scalar f at float64 array x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def _variable_only():
    w = ag.Variable(np.array([-1.0, 2.0, 0.5]))

    def h():
        return np.sum(np.sin(w) * 3)
    return h, [w]


def _grad_w(make_fn, **options):
    def run(fn):
        w = run.vars[0]
        with ag.GradientTape() as tape:
            y = fn()
        return [y, tape.gradient(y, w)]

    def make():
        fn, variables = make_fn()
        run.vars = variables
        return fn, variables
    return _both(make, run, **options)


def test_the_brief_example_variable_read_inside_the_function():
    w = ag.Variable(np.array([-1., -1.], np.float32))

    def h():
        return (w * 3).sum()
    with ag.GradientTape() as t:
        y = h()
    eager = t.gradient(y, w)
    with ag.GradientTape() as t:
        y = ag.function(h)()
    _same(eager, t.gradient(y, w))
    assert _value(eager).tolist() == [3.0, 3.0]


@pytest.mark.parametrize("options", [{}, {"optimize": False}], ids=["default", "optimize_off"])
def test_variable_read_matches_eager_and_central_differences(options):
    _, (y, g) = _grad_w(_variable_only, **options)
    x0 = np.array([-1.0, 2.0, 0.5])
    _close(g, _central(lambda v: np.sum(np.sin(v) * 3), x0))


def _model():
    w = ag.Variable(np.array([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]]), name="w")
    b = ag.Variable(np.array([0.1, -0.2]), name="b")

    def model(x):
        return np.sum(np.tanh(x @ w + b) ** 2)
    return model, [w, b]


@pytest.mark.parametrize("options", [{}, {"optimize": False}], ids=["default", "optimize_off"])
def test_watched_argument_and_variables(options):
    x0 = np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]])

    def run(fn):
        w, b = run.vars
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = fn(x)
        return [y, *tape.gradient(y, [x, w, b])]

    def make():
        fn, variables = _model()
        run.vars = variables
        return fn, variables
    _, (y, gx, gw, gb) = _both(make, run, **options)
    w, b = _model()[1]
    _close(gx, _central(lambda v: np.sum(np.tanh(v @ w.numpy() + b.numpy()) ** 2), x0))
    _close(gw, _central(lambda v: np.sum(np.tanh(x0 @ v + b.numpy()) ** 2), w.numpy()))


def test_jit_compiled_regions(small_jit_regions):
    w = ag.Variable(np.array([0.5, -1.0, 2.0]))

    def f(x):
        y = x * w + 1.5  # one compiled elementwise region
        return y * y - x * 0.5

    compiled = ag.function(f, jit_compile=True)
    x0 = np.array([1.0, 2.0, 3.0])
    compiled(x0)
    report = compiled.get_concrete_function(x0).jit_report
    assert any(line.startswith("region") and "not compiled" not in line for line in report)
    results = []
    for fn in (f, compiled):
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = fn(x)
        results.append([y, *tape.gradient(y, [x, w])])
    _same(results[0], results[1])
    _close(results[1][1], _central(lambda v: np.sum((v * w.numpy() + 1.5) ** 2 - v * 0.5), x0))


def test_symbolic_if_both_branches_and_a_data_dependent_while():
    w = ag.Variable(np.array([0.7, -0.3]))

    def f(x):
        if np.sum(x * w) > 0:
            y = x * w * 2.0
        else:
            y = np.exp(x) - w
        n = 0
        while np.sum(y * y) < 50.0:  # the trip count depends on the values
            y = y * 1.5 + w
            n += 1
        return np.sum(y), n

    compiled = ag.function(f)
    for x0 in (np.array([1.0, 2.0]), np.array([-3.0, 0.5])):
        results = []
        for fn in (f, compiled):
            with ag.GradientTape() as tape:
                x = tape.watch(x0)
                y, n = fn(x)
            results.append([y, n, *tape.gradient(y, [x, w])])
        _same(results[0][::2], results[1][::2])
        assert results[0][1] == results[1][1]


def test_persistent_tape_gives_two_gradients():
    def run(fn):
        w, b = run.vars
        with ag.GradientTape(persistent=True) as tape:
            x = tape.watch(np.array([[1.0, 2.0, 3.0]]))
            y = fn(x)
        return [tape.gradient(y, w), tape.gradient(y, [x, b])]

    def make():
        fn, variables = _model()
        run.vars = variables
        return fn, variables
    _both(make, run)


def test_hessian_through_nested_tapes():
    def f(x):
        return np.sum(np.sin(x) * x ** 2)

    x0 = np.array([0.3, -1.2, 2.0])
    results = []
    for fn in (f, ag.function(f)):
        with ag.GradientTape() as outer:
            x = outer.watch(x0)
            with ag.GradientTape() as inner:
                x2 = inner.watch(x)
                y = fn(x2)
            g = inner.gradient(y, x2)
        results.append([g, outer.jacobian(g, x)])
    _same(results[0], results[1])
    _close(results[1][0], _central(lambda v: np.sum(np.sin(v) * v ** 2), x0))


def test_jacobian_of_a_function_call():
    w = ag.Variable(np.array([[1.0, 2.0], [-0.5, 0.3]]))

    def f(x):
        return np.tanh(x @ w)

    x0 = np.array([0.2, -0.4])
    results = []
    for fn in (f, ag.function(f)):
        with ag.GradientTape(persistent=True) as tape:
            x = tape.watch(x0)
            y = fn(x)
        results.append([tape.jacobian(y, x), tape.jacobian(y, w)])
    _same(results[0], results[1])


def test_a_function_called_twice_under_one_tape():
    def run(fn):
        w, b = run.vars
        with ag.GradientTape() as tape:
            x = tape.watch(np.array([[1.0, 2.0, 3.0]]))
            y = fn(x) + fn(x * 2.0)
        return [y, *tape.gradient(y, [x, w, b])]

    def make():
        fn, variables = _model()
        run.vars = variables
        return fn, variables
    _both(make, run)


def _assigning():
    w = ag.Variable(np.array([1.0, -2.0]))
    count = ag.Variable(np.array(0.0))

    def step(x):
        loss = np.sum((x * w) ** 2)
        w.assign(w - 0.1 * x)      # the value read before the assign is differentiated
        after = np.sum(w * 3.0)    # a read after the assign is a new read, as eagerly
        count.assign_add(1.0)
        return loss + after
    return step, [w, count]


def test_a_function_that_assigns_a_variable():
    def run(fn):
        w, _ = run.vars
        with ag.GradientTape() as tape:
            x = tape.watch(np.array([0.5, 1.5]))
            y = fn(x)
        return [y, *tape.gradient(y, [x, w])]

    def make():
        fn, variables = _assigning()
        run.vars = variables
        return fn, variables
    _both(make, run)


def test_loaded_function(tmp_path):
    fn, (w, b) = _model()
    compiled = ag.function(fn)
    x0 = np.array([[1.0, -2.0, 0.5]])
    compiled(x0)
    path = str(tmp_path / "model.agz")
    ag.save(compiled, path)
    loaded = ag.load(path)
    own = {v.name: v for v in loaded.variables}  # a loaded function reads its own copies
    results = []
    for f, variables in ((fn, [w, b]), (loaded, [own["w"], own["b"]])):
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = f(x)
        results.append([y, *tape.gradient(y, [x, *variables])])
    _same(results[0], results[1])


def test_input_signature_keeps_the_watched_argument():
    def f(x):
        return np.sum(np.cos(x) * x)

    compiled = ag.function(f, input_signature=[ag.TensorSpec((None,), np.float64)])
    x0 = np.array([0.1, 0.7, -2.0])
    results = []
    for fn in (f, compiled):
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = fn(x)
        results.append([y, tape.gradient(y, x)])
    _same(results[0], results[1])


def test_watched_arguments_do_not_retrace_and_results_match_outside_tapes():
    def f(x):
        return np.sum(x ** 3)

    compiled = ag.function(f)
    for scale in (1.0, 2.0, 3.0):
        x0 = np.array([1.0, 2.0]) * scale
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = compiled(x)
        _same(tape.gradient(y, x), 3 * x0 ** 2)
        _same(compiled(x0), f(x0))
    assert compiled.tracing_count == 1


def test_a_method_reading_its_variables_like_a_model():
    class Dense:
        def __init__(self):
            self.w = ag.Variable(np.array([[0.5], [-1.0]]))

        def __call__(self, x):
            return np.sum(np.maximum(x @ self.w, 0.0))

    layer = Dense()
    compiled = ag.function(layer.__call__)
    x0 = np.array([[1.0, -1.0], [2.0, 3.0]])
    results = []
    for fn in (layer, compiled):
        with ag.GradientTape() as tape:
            y = fn(x0)
        results.append([y, tape.gradient(y, layer.w)])
    _same(results[0], results[1])


def test_a_tape_on_another_thread_does_not_see_this_call():
    w = ag.Variable(np.array([1.0, 2.0]))
    compiled = ag.function(lambda: np.sum(w * w))
    compiled()
    inside, done = threading.Event(), threading.Event()
    got = {}

    def other():
        with ag.GradientTape() as tape:
            inside.set()
            done.wait(5)
        got["records"] = len(tape._records)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    _same(compiled(), np.sum(w.numpy() ** 2))
    done.set()
    t.join()
    assert got["records"] == 0


def test_an_op_without_a_gradient_rule_is_a_clear_error():
    def f(x):
        return np.sum(np.floor(x) * x)  # floor's gradient is zero: a rule exists

    def g(x):
        return np.sum(np.sort(x)[::-1].cumsum())

    for fn in (f, g):
        results = []
        for h in (fn, ag.function(fn)):
            with ag.GradientTape() as tape:
                x = tape.watch(np.array([0.5, 2.5, -1.0]))
                y = h(x)
            results.append(tape.gradient(y, x))
        _same(results[0], results[1])


def _eager_and_graph(f, x0, variables):
    results = []
    for fn in (f, ag.function(f)):
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            y = fn(x)
        results.append([y, *tape.gradient(y, [x, *variables])])
    _same(results[0], results[1])
    return results[1]


def test_values_appended_in_a_data_dependent_loop():
    w = ag.Variable(np.array([0.5, -1.0]))

    def f(x):
        rows = []
        i = 0
        while i < np.sum(x):  # a graph list carried by a while_loop
            rows.append(x * w * (i + 1))
            i += 1
        return np.sum(np.stack(rows) ** 2)
    _, gx, gw = _eager_and_graph(f, np.array([1.0, 2.0]), [w])
    _close(gx, _central(lambda v: np.sum(np.stack(
        [v * w.numpy() * (i + 1) for i in range(3)]) ** 2), np.array([1.0, 2.0])))


def test_a_variable_read_only_in_the_branch_not_taken_has_no_gradient():
    w = ag.Variable(np.array([0.5, -1.0]))

    def f(x):
        if np.sum(x) > 100.0:
            return np.sum(x * w)
        return np.sum(x * 2.0)
    _, gx, gw = _eager_and_graph(f, np.array([1.0, 2.0]), [w])
    assert gw is None


def test_a_gradient_taken_inside_the_function_is_differentiated_again():
    w = ag.Variable(np.array([0.5, -1.0]))

    def f(x):
        with ag.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.sin(x) * w)
        return np.sum(inner.gradient(y, x) ** 2)
    _eager_and_graph(f, np.array([1.0, 2.0]), [w])


def _writes_into_argument(x):
    x[0] = x[1] * 2.0
    return np.sum(x * x)


def test_writing_into_a_watched_argument_is_recorded_as_eagerly():
    results = []
    for fn in (_writes_into_argument, ag.function(_writes_into_argument)):
        with ag.GradientTape() as tape:
            x = tape.watch(np.array([1.0, 3.0]))
            x = np.copy(x)  # the write goes into this copy, under the tape
            y = fn(x)
        results.append([y, x.numpy(), tape.gradient(y, x)])
    _same(results[0], results[1])


def test_writing_into_the_array_given_to_watch_is_refused_with_the_fix():
    for fn in (_writes_into_argument, ag.function(_writes_into_argument)):
        x0 = np.array([1.0, 3.0])
        with ag.GradientTape() as tape:
            x = tape.watch(x0)
            with pytest.raises(TypeError, match="tape never writes its values in place"):
                fn(x)
        assert x0.tolist() == [1.0, 3.0]
