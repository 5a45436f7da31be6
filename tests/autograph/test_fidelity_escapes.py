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


def test_state_on_self_is_an_error_naming_the_key_and_line():
    m = Momentum()
    f = ag.function(m.update)
    _raises_escape(lambda: f(np.ones(3), np.ones(3)), "self.cache['v']", "0.9 * self.cache")
    # not cached: the next call traces (and fails) again instead of running a stale graph
    m.cache.clear()
    _raises_escape(lambda: f(np.ones(3), np.ones(3)), "self.cache['v']", "0.9 * self.cache")
    assert f.tracing_count == 0


def test_decorated_method_state_is_an_error():
    class Layer:
        def __init__(self):
            self.last = None

        @ag.function
        def forward(self, x):
            self.last = x * 2
            return self.last + 1

    _raises_escape(lambda: Layer().forward(np.ones(2)), "self.last", "self.last = x * 2")


def test_global_list_append_is_an_error():
    G_LIST.clear()
    _raises_escape(lambda: ag.function(append_to_global)(np.ones(2)), "G_LIST[0]",
                   "G_LIST.append(x * 2)")
    G_LIST.clear()


def test_global_assigned_in_a_symbolic_branch_is_an_error():
    global G_VALUE
    G_VALUE = np.zeros(2)        # both branches leave an array in it (the `if` selects)
    # the value the global holds is the symbolic `if`'s output: its line is the `if`
    _raises_escape(lambda: ag.function(assign_global_in_branch)(np.ones(2)), "G_VALUE",
                   "if np.sum(x) > 0")
    G_VALUE = None


def test_closure_cell_dict_is_an_error():
    f, cache = make_closure_cache()
    _raises_escape(lambda: ag.function(f)(np.ones(2)), "cache['y']", 'cache["y"] = x + 1')


@pytest.mark.parametrize("fn, make_args, place, line", [
    (set_attribute_of_argument, lambda: (Node(), np.ones(2)), "node.value", "np.tanh(x)"),
    (set_in_nested_list_of_objects, lambda: ([Node(), Node()], np.ones(2)), "nodes[1].value",
     "x - 1"),
    (set_slot, lambda: (Slotted(), np.ones(2)), "obj.state", "x * 3"),
])
def test_state_reached_through_arguments_is_an_error(fn, make_args, place, line):
    _raises_escape(lambda: ag.function(fn)(*make_args()), place, line)


def test_storing_an_argument_array_is_an_error():
    with pytest.raises(ValueError, match=r"node\.value: float64\[2\]"):
        ag.function(store_argument_itself)(Node(), np.ones(2))


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


def test_a_cyclic_object_graph_is_searched_once():
    a, b = Node(), Node()
    a.value, b.value = b, a      # a cycle: the search must end
    holder = [a]

    def f(x):
        holder[0].value.value.extra = x * 2   # a.value.value is a again
        return x
    with pytest.raises(ValueError, match=r"holder\[0\]\.extra"):
        ag.function(f)(np.ones(2))


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


def test_in_place_write_into_an_array_of_python_state_says_what_to_do():
    layer = Grads()
    with pytest.raises(TypeError, match=r"`a \+= v`\) \(at \S*test_fidelity_escapes\.py:\d+\) "
                                        r"writes a value computed in the graph") as info:
        ag.function(layer.backward)(np.ones(3))
    assert "ag.Variable" in str(info.value) and "a = a + v" in str(info.value)
    assert not layer.grads["W"].any()  # nothing was written
