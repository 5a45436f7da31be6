"""Python state a traced function reads and writes follows Python on every call.

Each test runs the same program twice from fresh state: once as Python (eager NumPy),
once through `ag.function` (and `jit_compile=True`), for several calls, and compares
the results and the whole state (attributes, dict and list contents, globals) after
every call: values, dtypes, shapes and Python types.
"""
import copy
import warnings

import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"jit_compile": True}]


def same(a, b, where="") -> None:
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and not callable(a):
        same(vars(a), vars(b), where)
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} vs {b!r}"


def run_both(make, call, n=5, between=None, **options):
    """`call(obj, f)` n times on two fresh objects: `f` the method as Python and as an
    ag.function; `between(obj, i)` changes state from outside before call i."""
    eager_obj, graph_obj = make(), make()
    converted = ag.function(call, **options)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        for i in range(n):
            if between is not None:
                between(eager_obj, i)
                between(graph_obj, i)
            expected = call(eager_obj, *args_for(i))
            got = converted(graph_obj, *args_for(i))
            same(got, expected, f"call {i}: result")
            same(vars(graph_obj), vars(eager_obj), f"call {i}: state")
    return converted


def args_for(i):
    return (np.arange(3.0) + i, np.full(3, 0.5 + i))


class Momentum:
    def __init__(self):
        self.cache = {}

    def update(self, p, g):
        if "v" not in self.cache:
            self.cache["v"] = np.zeros_like(g)
        v = 0.9 * self.cache["v"] + 0.1 * g
        self.cache["v"] = v
        return p - v


@pytest.mark.parametrize("options", MODES)
def test_momentum_buffer_on_self_is_read_and_written_every_call(options):
    f = run_both(Momentum, Momentum.update, n=6, **options)
    assert f.tracing_count <= 2


class Adam:
    def __init__(self):
        self.t = 0
        self.lr = 0.1
        self.history = []
        self.state = {"m": np.zeros(3), "v": np.zeros(3)}

    def step(self, w, g):
        self.t += 1
        m = 0.9 * self.state["m"] + 0.1 * g
        v = 0.99 * self.state["v"] + 0.01 * g * g
        self.state["m"], self.state["v"] = m, v
        m_hat = m / (1 - 0.9 ** self.t)
        v_hat = v / (1 - 0.99 ** self.t)
        self.history.append(w.copy())
        return w - self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


@pytest.mark.parametrize("options", MODES)
def test_counter_dict_of_arrays_and_history_list(options):
    def schedule(obj, i):
        if i == 3:
            obj.lr = 0.05     # a hyperparameter changed from outside
    f = run_both(Adam, Adam.step, n=8, between=schedule, **options)
    assert f.tracing_count <= 4  # the counter, the buffers and lr become inputs


class Cell:
    """An RNN cell keeping its hidden state and the activations it computed."""

    def __init__(self):
        rng = np.random.default_rng(0)
        self.W = rng.normal(size=(3, 3))
        self.h = np.zeros(3)
        self.derived = {"Z": [], "A": []}

    def forward(self, x, _):
        z = self.h @ self.W + x
        a = np.tanh(z)
        self.derived["Z"].append(z)
        self.derived["A"].append(a)
        self.h = a
        return a


@pytest.mark.parametrize("options", MODES)
def test_recurrent_state_and_lists_of_activations(options):
    f = run_both(Cell, Cell.forward, n=6, **options)
    assert f.tracing_count <= 3


class Switch:
    def __init__(self):
        self.mode = "double"
        self.scale = 2.0
        self.offset = np.array([1.0, 2.0, 3.0])
        self.table = {"a": 1}

    def apply(self, x, _):
        y = x * self.scale if self.mode == "double" else x - self.scale
        if hasattr(self, "extra"):
            y = y + self.extra
        if "b" in self.table:
            y = y * self.table["b"]
        return y + self.offset


def _change_switch(obj, i):
    if i == 1:
        obj.mode = "minus"            # a string read by a Python branch
    if i == 2:
        obj.scale = 5.0               # a float read as a constant
    if i == 3:
        obj.extra = 7.0               # hasattr
    if i == 4:
        obj.table["b"] = 3            # `in`
    if i == 5:
        obj.offset = np.array([0.0, 0.0, 1.0])   # an array rebound
    if i == 6:
        obj.offset[1] = 10.0          # a small array written in place


@pytest.mark.parametrize("options", MODES)
def test_facts_the_trace_read_are_guards(options):
    warnings.simplefilter("ignore", ag.RetracingWarning)  # state changes every call here
    run_both(Switch, Switch.apply, n=8, between=_change_switch, **options)


class Recorder:
    """A layer that keeps its inputs (only appended to, never read) and a weight."""

    def __init__(self):
        self.inputs = []
        self.w = np.ones(3)

    def forward(self, x, y):
        self.inputs.append(x)
        return x * self.w + y


def _restore_checkpoint(obj, i):
    # as a training loop restores a saved model: every attribute is replaced by a
    # copy, so the list, its items and the weight are new objects each time
    if i == 0:
        obj.inputs.append(np.zeros(3))
        obj.checkpoint = copy.deepcopy(obj.__dict__)
    saved = obj.__dict__.pop("checkpoint")
    obj.__dict__.clear()
    obj.__dict__.update(copy.deepcopy(saved))
    obj.checkpoint = saved


@pytest.mark.parametrize("options", MODES)
def test_state_restored_from_a_checkpoint_between_calls(options):
    warnings.simplefilter("ignore", ag.RetracingWarning)  # every call sees new objects
    run_both(Recorder, Recorder.forward, n=6, between=_restore_checkpoint, **options)


scale_by = np.linalg.norm   # a NumPy function under a global name of the user's


class Normalizer:
    def __init__(self):
        self.eps = 1e-3

    def apply(self, x, y):
        return x / (scale_by(y) + self.eps)


def _rebind_numpy_function(obj, i):
    global scale_by
    scale_by = np.sum if i % 2 else np.linalg.norm


def test_a_numpy_function_global_is_guarded_by_identity_and_rebinding_it_retraces():
    warnings.simplefilter("ignore", ag.RetracingWarning)
    run_both(Normalizer, Normalizer.apply, n=4, between=_rebind_numpy_function)
    obj, f = Normalizer(), ag.function(Normalizer.apply)
    f(obj, *args_for(0))
    # one fact about the global: which function it is (not its name, module or doc)
    labels = [label for label, _, _ in f.concrete_functions[0].state.term_list]
    assert labels.count("scale_by") == 1, labels
    assert not any(label.startswith("scale_by.") for label in labels), labels


COUNT = 0
SEEN = []


def _counting(x):
    global COUNT
    COUNT += 1
    SEEN.append(x.sum())
    return x * COUNT


def test_global_counter_and_global_list():
    global COUNT
    expected = []
    COUNT = 0
    SEEN.clear()
    for i in range(4):
        expected.append(_counting(np.ones(2) * i))
    eager_seen, eager_count = list(SEEN), COUNT
    COUNT = 0
    SEEN.clear()
    f = ag.function(_counting)
    for i in range(4):
        same(f(np.ones(2) * i), expected[i], f"call {i}")
    assert COUNT == eager_count and type(COUNT) is int
    same(SEEN, eager_seen, "SEEN")


def test_closure_dict_counts_calls():
    def make():
        memo = {}

        def f(x):
            memo["n"] = memo.get("n", 0) + 1
            memo["last"] = x * 2
            return x + memo["n"]
        return f, memo
    f_eager, memo_eager = make()
    f_graph, memo_graph = make()
    g = ag.function(f_graph)
    for i in range(5):
        same(g(np.ones(2) * i), f_eager(np.ones(2) * i), f"call {i}")
        same(memo_graph, memo_eager, f"call {i}: memo")


class Node:
    def __init__(self, value):
        self.value = value


class Holder:
    def keep(self, x):
        self.node = Node(x * 2)      # a new object holding a symbolic value
        return x


def test_new_object_holding_a_symbolic_value_is_a_clear_error():
    h = Holder()
    with pytest.raises(ValueError, match=r"self\.node.*\.value"):
        ag.function(h.keep)(np.ones(2))
    assert not hasattr(h, "node")   # the trace's writes were undone


class Failing:
    def __init__(self):
        self.cache = {}

    def run(self, x):
        self.cache["v"] = x * 2
        raise KeyError("boom")


def test_a_trace_that_raises_leaves_the_state_python_leaves():
    eager, graph = Failing(), Failing()
    with pytest.raises(KeyError):
        eager.run(np.ones(2))
    with pytest.raises(KeyError):
        ag.function(graph.run)(np.ones(2))
    same(graph.cache, eager.cache, "cache")  # NumPy values, never a Tensor of the trace


class Layer:
    def __init__(self, scale):
        self.scale = scale
        self.calls = 0

    @ag.function
    def __call__(self, x):
        self.calls += 1
        return x * self.scale + self.calls


def test_decorated_method_keeps_state_per_instance():
    a, b = Layer(2.0), Layer(3.0)
    for i in range(3):
        np.testing.assert_array_equal(a(np.ones(2)), np.ones(2) * 2.0 + (i + 1))
    np.testing.assert_array_equal(b(np.ones(2)), np.ones(2) * 3.0 + 1)
    assert (a.calls, b.calls) == (3, 1) and type(a.calls) is int


def test_functions_that_touch_no_state_have_no_guards():
    @ag.function
    def f(x):
        return np.sin(x) * 2
    f(np.ones(3))
    assert f.concrete_functions[0].state is None


def test_repeated_state_changes_name_the_place_in_the_retracing_warning():
    class Scaled:
        def __init__(self):
            self.name = "a"

        def run(self, x, _):
            return x if self.name.startswith("a") else -x
    obj = Scaled()
    f = ag.function(Scaled.run)
    with pytest.warns(ag.RetracingWarning, match=r"Python state that changed: self\.name"):
        for i in range(6):
            obj.name = "ab"[i % 2] + str(i)
            f(obj, np.ones(2), None)


def test_save_and_onnx_refuse_a_trace_that_reads_or_writes_state(tmp_path):
    from runtime.onnx_export import OnnxExportError
    from runtime.saved.format import SaveError

    m = Momentum()
    f = ag.function(m.update)
    f(np.ones(3), np.ones(3))
    with pytest.raises(SaveError, match=r"Python state \(self\.cache\['v'\]\)"):
        ag.save(f, str(tmp_path / "m.agz"))
    with pytest.raises(OnnxExportError, match=r"op 'python state'.*self\.cache\['v'\]"):
        f.concrete_functions[0].to_onnx()


class Counts:
    def __init__(self):
        self.seen = np.zeros(3)

    def count(self, x, _):
        self.seen[0] += 1          # in place, with a Python value: every call, as in NumPy
        self.seen[1:] += 0.5
        return x + self.seen[0]


@pytest.mark.parametrize("options", MODES)
def test_state_array_changed_in_place_with_python_values_changes_every_call(options):
    run_both(Counts, Counts.count, n=4, **options)
