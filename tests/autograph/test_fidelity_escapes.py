"""The escape check: a traced function that stores a value it computed in Python state
(objects, containers, closures, globals) fails at the end of the trace with an error that
names the place and the line, instead of leaving a dead symbolic value there and running
later calls on stale state. Where nothing escapes, the graph still matches Python: the
same results and the same state of every object afterwards.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime import Tensor

THIS_FILE = __file__.rsplit("/", 1)[-1]


class Momentum:
    def __init__(self):
        self.cache = {}

    def update(self, p, g):
        if "v" not in self.cache:
            self.cache["v"] = np.zeros_like(g)
        v = 0.9 * self.cache["v"] + 0.1 * g
        self.cache["v"] = v
        return p - v


class Node:
    def __init__(self, value=None):
        self.value = value


class Slotted:
    __slots__ = ("state",)

    def __init__(self):
        self.state = None


G_LIST: list = []
G_VALUE = None


def append_to_global(x):
    G_LIST.append(x * 2)
    return x


def assign_global_in_branch(x):
    global G_VALUE
    if np.sum(x) > 0:
        G_VALUE = x * 2
    return x


def set_attribute_of_argument(node, x):
    node.value = np.tanh(x)
    return x + 1


def set_in_nested_list_of_objects(nodes, x):
    nodes[1].value = x - 1
    return x


def set_slot(obj, x):
    obj.state = x * 3
    return x


def store_argument_itself(node, x):
    node.value = x
    return x + 0


def make_closure_cache():
    cache = {}

    def f(x):
        cache["y"] = x + 1
        return x
    return f, cache


def _all_tensors(obj, seen=None) -> list:
    """Every symbolic Tensor reachable from obj (to check nothing is left behind)."""
    seen = set() if seen is None else seen
    if isinstance(obj, Tensor):
        return [obj]
    if id(obj) in seen or isinstance(obj, (str, bytes, np.ndarray, int, float)):
        return []
    seen.add(id(obj))
    if isinstance(obj, dict):
        items = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        items = list(obj)
    else:
        items = list(getattr(obj, "__dict__", {}).values())
        items += [getattr(obj, s) for s in getattr(type(obj), "__slots__", ()) if hasattr(obj, s)]
    return [t for item in items for t in _all_tensors(item, seen)]


def _raises_escape(call, place: str, line_of: str):
    with pytest.raises(ValueError, match="holds symbolic values of the trace") as info:
        call()
    text = str(info.value)
    assert place in text, text
    assert f"{THIS_FILE}:" in text and line_of in _source_line(text, place), text
    assert "ag.Variable" in text and "Return" in text
    return text


def _source_line(text: str, place: str) -> str:
    """The source line the error names for `place` (the line that computed the value)."""
    row = next(r for r in text.splitlines() if r.strip().startswith(place))
    line = int(row.rsplit(":", 1)[1])
    return open(__file__).read().splitlines()[line - 1]


def _both(fn, make_args, read_state, calls=3):
    """fn as Python and as an ag.function on fresh arguments, `calls` times each: the
    same results and the same state (`read_state(args)`) after every call."""
    eager_args, graph_args = make_args(), make_args()
    f = ag.function(fn)
    for _ in range(calls):
        expected, got = fn(*eager_args), f(*graph_args)
        np.testing.assert_array_equal(got, expected)
        want, have = read_state(eager_args), read_state(graph_args)
        assert type(want) is type(have), (want, have)
        np.testing.assert_array_equal(have, want)
        assert not _all_tensors(graph_args)
    return f


def test_state_on_self_is_read_and_written_every_call():
    m, e = Momentum(), Momentum()
    f = ag.function(m.update)
    for _ in range(4):
        np.testing.assert_array_equal(f(np.ones(3), np.ones(3)), e.update(np.ones(3), np.ones(3)))
        np.testing.assert_array_equal(m.cache["v"], e.cache["v"])
    assert f.tracing_count == 2   # the buffer is an input from the second trace on


def test_decorated_method_state_is_written_back():
    class Layer:
        def __init__(self):
            self.last = None

        def forward(self, x):
            self.last = x * 2
            return self.last + 1
    traced = type("Traced", (Layer,), {"forward": ag.function(Layer.forward)})
    a, b = Layer(), traced()
    for k in range(3):
        np.testing.assert_array_equal(b.forward(np.full(2, k)), a.forward(np.full(2, k)))
        np.testing.assert_array_equal(b.last, a.last)


def test_global_list_append_appends_on_every_call():
    G_LIST.clear()
    f = ag.function(append_to_global)
    for k in range(3):
        f(np.full(2, float(k)))
    assert len(G_LIST) == 3 and all(type(v) is np.ndarray for v in G_LIST)
    np.testing.assert_array_equal(G_LIST[2], np.full(2, 4.0))
    G_LIST.clear()


def test_global_assigned_in_a_symbolic_branch_follows_the_branch_taken():
    global G_VALUE
    f = ag.function(assign_global_in_branch)
    for x in (np.ones(2), -np.ones(2), np.full(2, 3.0)):
        G_VALUE = np.zeros(2)
        f(x)
        graph_value = G_VALUE
        G_VALUE = np.zeros(2)
        assign_global_in_branch(x)
        np.testing.assert_array_equal(graph_value, G_VALUE)
    G_VALUE = None


def test_closure_cell_dict_is_written_back():
    f, cache = make_closure_cache()
    g = ag.function(f)
    for k in range(3):
        g(np.full(2, float(k)))
        np.testing.assert_array_equal(cache["y"], np.full(2, k + 1.0))


def test_state_reached_through_an_object_argument_is_written_back():
    _both(set_attribute_of_argument, lambda: (Node(), np.ones(2)), lambda a: a[0].value)


def test_storing_an_argument_array_keeps_its_identity():
    node, x = Node(), np.ones(2)
    ag.function(store_argument_itself)(node, x)
    assert node.value is x       # as in Python: the caller's array itself


@pytest.mark.parametrize("fn, make_args, place, line", [
    # objects inside a list argument are not state the trace tracks (the list is traced
    # as a copy)
    (set_in_nested_list_of_objects, lambda: ([Node(), Node()], np.ones(2)), "nodes[1].value",
     "x - 1"),
])
def test_state_that_cannot_be_written_back_is_an_error(fn, make_args, place, line):
    _raises_escape(lambda: ag.function(fn)(*make_args()), place, line)


def test_a_slot_is_written_back_as_python_writes_it():
    f = ag.function(set_slot)
    for x in (np.ones(2), np.arange(2.0)):
        obj, expected = Slotted(), Slotted()
        f(obj, x)
        set_slot(expected, x)
        np.testing.assert_array_equal(obj.state, expected.state)
        assert type(obj.state) is np.ndarray


def test_more_than_three_places_are_counted():
    def many(xs, x):
        for k in range(5):
            xs[k].value = x + k
        return x
    with pytest.raises(ValueError, match=r"\.\.\. and 2 more"):
        ag.function(many)([Node() for _ in range(5)], np.ones(2))


# -- where nothing escapes, graph and Python agree, and no Tensor is left anywhere --------
def keeps_python_values_in_state(node, x):
    node.value = "seen"          # a Python value: a trace-time effect, as in tf.function
    G_LIST.append(len(x))
    return x * 2


def writes_dict_argument(d, x):
    d["y"] = x * 2               # a dict argument: written back after every call
    return x


def reads_state_only(node, x):
    return x * node.value


def test_python_values_in_state_and_dict_arguments_match_python():
    G_LIST.clear()
    node = Node()
    f = ag.function(keeps_python_values_in_state)
    np.testing.assert_array_equal(f(node, np.ones(3)), np.ones(3) * 2)
    assert node.value == "seen" and G_LIST == [3]
    d = {}
    g = ag.function(writes_dict_argument)
    for k in range(3):
        g(d, np.full(2, float(k)))
        assert type(d["y"]) is np.ndarray
        np.testing.assert_array_equal(d["y"], np.full(2, 2.0 * k))
    n = Node(np.float64(3.0))
    h = ag.function(reads_state_only)
    np.testing.assert_array_equal(h(n, np.ones(2)), np.full(2, 3.0))
    assert not _all_tensors([node, d, n, G_LIST])
    G_LIST.clear()


def test_a_cyclic_object_graph_is_walked_once():
    a, b = Node(), Node()
    a.value, b.value = b, a      # a cycle: the walk must end
    holder = [a]

    def f(x):
        holder[0].value.value.extra = x * 2   # a.value.value is a again
        return x
    ag.function(f)(np.ones(2))
    assert type(a.extra) is np.ndarray and a.value is b and b.value is a


def test_a_huge_object_graph_costs_a_bounded_search():
    big = [Node(k) for k in range(100_000)]

    def f(x):
        return x + big[0].value
    # nothing escapes; the search stops at its budget instead of walking 100,000 objects
    np.testing.assert_array_equal(ag.function(f)(np.ones(2)), np.ones(2))


class Grads:
    def __init__(self):
        self.grads = {"W": np.zeros(3)}

    def backward(self, d):
        self.grads["W"] += d * 2       # an array of Python state, written in place
        return d


def test_in_place_write_into_an_array_of_python_state_lands_in_that_array():
    eager, traced = Grads(), Grads()
    f = ag.function(traced.backward)
    array = traced.grads["W"]
    for k in range(3):
        f(np.full(3, float(k)))
        eager.backward(np.full(3, float(k)))
        np.testing.assert_array_equal(traced.grads["W"], eager.grads["W"])
        assert traced.grads["W"] is array   # written in place, as NumPy does
    assert f.tracing_count == 1


_OUTSIDE = np.zeros(3)


def _accumulate_outside(d):
    global _OUTSIDE
    _OUTSIDE += d     # a global of another function: not state the trace tracks


def test_in_place_write_into_an_array_the_trace_cannot_track_says_what_to_do():
    def backward(d):
        _accumulate_outside(d * 2)
        return d
    with pytest.raises(TypeError, match=r"`a \+= v`\) \(at \S*test_fidelity_escapes\.py:\d+\) "
                                        r"writes a value computed in the graph") as info:
        ag.function(backward)(np.ones(3))
    assert "ag.Variable" in str(info.value) and "a = a + v" in str(info.value)
    assert not _OUTSIDE.any()  # nothing was written
