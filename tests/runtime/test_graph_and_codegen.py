"""Graph IR listing, graph_def, DOT, generated code, errors pointing at user lines."""
import json
import os

import numpy as np
import pytest

import autograph as ag
import runtime
from runtime.exec.interpreter import run_graph
from tests.helpers import assert_same

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def simple_relu(x):
    return runtime.cond(x > 0, lambda: x, lambda: x * 0)


def _normalise(text: str) -> str:
    """Golden files do not depend on where the tests live."""
    return text.replace(os.path.basename(__file__), "THIS_FILE")


def _check_golden(name: str, text: str) -> None:
    path = os.path.join(GOLDEN, name)
    text = _normalise(text)
    if not os.path.exists(path):
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        pytest.fail(f"wrote the missing golden file {path}; review it and commit it")
    with open(path) as fh:
        assert text == fh.read(), f"{name} changed; review and update {path}"


def test_listing_and_python_code_golden():
    cf = ag.function(simple_relu, autograph=False).get_concrete_function(np.float32(1))
    _check_golden("simple_relu.graph.txt", str(cf.graph))
    _check_golden("simple_relu.py.txt", cf.python_code)


def dense_chain(x, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1) * 0.5
    h = np.tanh(h @ w2 + b2) * 0.5
    return np.tanh(h @ w1 + b1) - 1


def test_optimized_listing_and_buffer_reuse_golden():
    """Materialized constants, `out=` into dying inputs and spare buffers, pinned."""
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((2, 4, 4)).astype(np.float32)
    b1, b2 = np.float32([0.5, -1, 2, 0.25]), np.float32([1, 2, 3, 4])
    fn = lambda x: dense_chain(x, w1, b1, w2, b2)
    x = rng.standard_normal((1, 4)).astype(np.float32)
    f = ag.function(fn, autograph=False)
    np.testing.assert_array_equal(f(x), fn(x))
    cf = f.get_concrete_function(x)
    _check_golden("dense_chain.optimized.txt", str(cf.optimized_graph))
    _check_golden("dense_chain.py.txt", cf.python_code)


def test_listing_mentions_every_node_with_user_line():
    def fn(x, w):
        h = x @ w                                  # line A
        return np.tanh(h).sum(axis=1)
    cf = ag.function(fn, autograph=False).get_concrete_function(np.ones((2, 3)), np.ones((3, 4)))
    text = str(cf.graph)
    line_a = fn.__code__.co_firstlineno + 1
    assert "matmul(x, w)" in text and f"test_graph_and_codegen.py:{line_a}" in text
    assert "tanh" in text and "sum(" in text and "axis=1" in text


def test_graph_def_is_json_serialisable_and_complete():
    def fn(x, n):
        i, s = runtime.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x[i]),
                                  (np.int64(0), np.float64(0)))
        return runtime.cond(s > 1, lambda: s, lambda: -s)
    cf = ag.function(fn, autograph=False).get_concrete_function(np.ones(5), np.int64(3))
    gd = cf.graph.as_graph_def()
    text = json.dumps(gd)
    ops = [n["op"] for n in gd["nodes"]]
    assert "while_loop" in ops and "cond" in ops
    loop = gd["nodes"][ops.index("while_loop")]
    assert set(loop["subgraphs"]) == {"cond", "body"}
    assert loop["origin"]["line"] > 0
    assert json.loads(text) == gd


def test_to_dot_has_clusters_for_branches():
    cf = ag.function(simple_relu, autograph=False).get_concrete_function(np.float32(1))
    dot = cf.graph.to_dot()
    assert dot.startswith("digraph") and dot.count("subgraph cluster_") == 2
    assert "cond: then" in dot and "cond: else" in dot and "greater" in dot


@pytest.mark.parametrize("x", [np.float32(3), np.float32(-3)])
def test_interpreter_agrees_with_generated_code(x):
    f = ag.function(simple_relu, autograph=False)
    cf = f.get_concrete_function(x)
    assert_same(run_graph(cf.graph, [x])[0], f(x))


def test_symbolic_bool_int_index_iter_raise_graph_mode_error():
    cases = {
        "bool": lambda x: x if x > 0 else -x,
        "int": lambda x: int(x),
        "index": lambda x: [1, 2, 3][x],
        "iter": lambda x: [v for v in x],
    }
    for what, fn in cases.items():
        f = ag.function(fn, autograph=False)
        arg = np.ones(2)[:0] if what == "iter" else np.int64(1)
        spec = ag.TensorSpec((None,), np.float64) if what == "iter" else arg
        with pytest.raises(ag.GraphModeError, match="AutoGraph") as info:
            f.get_concrete_function(spec)
        assert isinstance(info.value, TypeError)
        assert "test_graph_and_codegen.py" in str(info.value)


def test_iterating_known_first_dim_unrolls():
    f = ag.function(lambda x: [v * 2 for v in x], autograph=False)
    assert_same(f(np.arange(3.0)), [np.float64(0), np.float64(2), np.float64(4)])


def test_runtime_error_points_at_user_line():
    def fn(x, i):
        y = x * 2
        return np.take(y, i)                         # the failing line
    f = ag.function(fn, autograph=False)
    f(np.arange(3), np.array(1))
    with pytest.raises(IndexError) as info:
        f(np.arange(3), np.array(7))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"test_graph_and_codegen.py:{fn.__code__.co_firstlineno + 2}" in notes
    assert ".take(i)" in notes  # the generated line (`y.take(i)`: np.take's own call)


def test_trace_time_error_keeps_type_and_user_frame():
    def fn(x):
        return x @ np.ones((4, 4))
    with pytest.raises(ValueError) as info:
        ag.function(fn, autograph=False)(np.ones((2, 3)))
    assert any(fr.name == "fn" for fr in info.traceback)


def test_graph_assertion_runs_every_call():
    def fn(x):
        runtime.assert_(np.all(x > 0), "x must be positive")
        return np.log(x)
    f = ag.function(fn, autograph=False)
    assert_same(f(np.ones(2)), np.zeros(2))
    with pytest.raises(AssertionError, match="x must be positive"):
        f(-np.ones(2))


def test_values_stored_in_python_state_are_written_back_or_reported():
    kept = []
    f = ag.function(lambda x: kept.append(x) or kept.append(x * 2) or x, autograph=False)
    x = np.ones(2)
    f(x)
    f(x)  # every call appends, as Python does: the argument itself, then a new array
    assert len(kept) == 4 and kept[0] is x and kept[2] is x
    assert_same(kept[1], np.full(2, 2.0))
    # a value that cannot be written back (inside an object the trace created) ends the
    # trace with the escape error, naming the place
    class Box:
        def __init__(self, v):
            self.v = v
    leaked = []
    g = ag.function(lambda x: leaked.append(Box(x * 2)) or x, autograph=False)
    with pytest.raises(ValueError, match=r"holds symbolic values(?s:.*)  leaked\[0\]\.v: "
                                         r"float64\[2\]"):
        g(np.ones(2))
    assert leaked == []


def test_setitem_on_tensor_writes_like_numpy():
    def fn(x):
        x[0] = 1.0
        return x
    eager, traced = np.zeros(3), np.zeros(3)
    # without conversion too: the write reaches the name's array and the caller's argument
    assert_same(ag.function(fn, autograph=False)(traced), fn(eager))
    assert_same(traced, eager)
    g = ag.function(lambda x: runtime.index_update(x, 0, 1.0), autograph=False)
    assert_same(g(np.zeros(3)), np.array([1.0, 0, 0]))


def test_notebook_representations():
    import shutil

    cf = ag.function(simple_relu, autograph=False).get_concrete_function(np.float32(1))

    class Printer:
        def __init__(self):
            self.out = ""

        def text(self, s):
            self.out += s
    p = Printer()
    cf.graph._repr_pretty_(p, False)
    assert p.out == str(cf.graph)
    svg = cf.graph._repr_svg_()
    if shutil.which("dot") is None:
        assert svg is None
    else:
        assert "<svg" in svg and "cluster" in svg
