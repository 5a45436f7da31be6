"""State held by classes and in `__slots__`: data attributes read through an instance or
the class name, written by the function (`Counter.total += n`, `type(self).calls += 1`,
`self.a = ...` of a slotted object), or changed by the caller between calls. Differential: eager against ag.function, jit_compile=True and
ag.to_graph, on repeated calls, with the class's attributes compared after each call.

Before classes were walked as state, a trace baked a class attribute in as a constant
(`Model.lr = 0.1` between calls was ignored) and a write left the trace's symbolic value
in the class (the next read of `Counter.total` raised); an object with `__slots__` kept
the trace's symbolic values in its slots."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import autograph as ag


def make_classes():
    """Fresh classes per run: each mode starts from the same class state."""
    class Model:
        lr = 0.5
        history = []
        table = {"seen": 0}

        def step(self, w):
            return w - self.lr * w

        def record(self, w):
            type(self).history.append(float(np.sum(w)))
            return len(self.history)

        def count(self, w):
            Model.table["seen"] = Model.table["seen"] + int(np.sum(w > 0))
            return Model.table["seen"]

    class Counter:
        total = 0
        calls = 0

        def add(self, x):
            Counter.total += int(np.sum(x > 0))
            type(self).calls += 1
            return Counter.total

        def add_symbolic(self, x):
            type(self).total = type(self).total + np.sum(x)
            return self.total

        def add_in_branch(self, x):
            if np.sum(x) > 0:
                type(self).total = type(self).total + 1
            else:
                type(self).calls += 2
            return x

        def add_through_a_list(self, x):
            holder = [Counter]
            if np.sum(x) > 0:
                holder[0].total += 5
            return x

        def add_in_a_symbolic_loop(self, x):
            i = np.int64(0)
            while i < np.sum(x > 0):
                type(self).total = type(self).total + x[i]
                i += 1
            return i

    class Base:
        scale = 2.0

        def scaled(self, x):
            return x * self.scale

    class Child(Base):
        pass

    class Shadowed(Base):
        def scaled(self, x):
            return x * self.scale + 1.0

    class Slotted:
        __slots__ = ("a", "n", "__hidden")

        def __init__(self):
            self.a, self.n, self.__hidden = np.zeros(3), 0, np.ones(3)

        def go(self, x):
            self.a = self.a + x
            self.n += 1
            return self.a

        def in_branch(self, x):
            if np.sum(x) > 0:
                self.n += 2
                self.__hidden = x
            return self.n

    return {"Model": Model, "Counter": Counter, "Base": Base, "Child": Child,
            "Shadowed": Shadowed, "Slotted": Slotted}


def class_state(classes, obj) -> dict:
    """Each class's data attributes and `obj`'s slots, as comparable values."""
    out = {f"obj.{k}": (type(getattr(obj, k)).__name__, repr(getattr(obj, k)))
           for k in ("a", "n", "_Slotted__hidden") if hasattr(obj, k)}
    for name, cls in classes.items():
        for k, v in vars(cls).items():
            if not k.startswith("__") and not callable(v):
                out[f"{name}.{k}"] = (type(v).__name__, repr(v))
    return out


# (class, method, changes made between calls: (class name, attribute, value) or None)
CASES = {
    "read_through_self": ("Model", "step", [None, ("Model", "lr", 0.1), None]),
    "read_from_a_base_class": ("Child", "scaled", [None, ("Base", "scale", 3.0), None]),
    "base_attribute_shadowed_later": ("Child", "scaled", [None, ("Child", "scale", 5.0),
                                                          ("Base", "scale", 7.0)]),
    "method_of_a_subclass": ("Shadowed", "scaled", [None, ("Base", "scale", 4.0)]),
    "counter_in_the_class": ("Counter", "add", [None, None, ("Counter", "total", 10)]),
    "symbolic_value_stored_in_the_class": ("Counter", "add_symbolic", [None, None, None]),
    "list_in_the_class_appended": ("Model", "record", [None, None]),
    "class_attribute_stored_in_a_symbolic_branch": ("Counter", "add_in_branch",
                                                    [None, None, None]),
    "class_reached_through_a_list_in_a_branch": ("Counter", "add_through_a_list",
                                                 [None, None, None]),
    "class_attribute_carried_by_a_symbolic_loop": ("Counter", "add_in_a_symbolic_loop",
                                                   [None, None, ("Counter", "total", 1.5)]),
    "state_in_slots": ("Slotted", "go", [None, None, None]),
    "slots_written_in_a_symbolic_branch": ("Slotted", "in_branch", [None, None, None]),
    "dict_in_the_class_updated": ("Model", "count", [None, None, ("Model", "table",
                                                                  {"seen": 100})]),
}
INPUTS = [np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.5, -1.0]), np.array([2.0, 2.0, 2.0])]


def run(mode: str, case: str):
    cls_name, method, changes = CASES[case]
    classes = make_classes()
    obj = classes[cls_name]()
    fn = getattr(obj, method)
    if mode == "to_graph":
        fn = ag.to_graph(fn)
    elif mode != "eager":
        fn = ag.function(fn, jit_compile=mode == "jit")
    results = []
    for change, x in zip(changes, INPUTS):
        if change is not None:
            setattr(classes[change[0]], change[1], copy.deepcopy(change[2]))
        value = fn(x.copy())
        results.append((type(value).__name__, np.asarray(value).tolist(),
                        class_state(classes, obj)))
    return results


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_class_state_matches_python(case, mode):
    assert run(mode, case) == run("eager", case)


def test_a_class_attribute_changed_between_calls_retraces_once():
    classes = make_classes()
    f = ag.function(classes["Model"]().step)
    x = np.ones(2)
    f(x)
    classes["Model"].lr = 0.25
    np.testing.assert_array_equal(f(x), x - 0.25 * x)
    classes["Model"].lr = 0.125
    np.testing.assert_array_equal(f(x), x - 0.125 * x)
    assert f.tracing_count <= 3


def test_a_global_class_counter_written_by_the_function():
    """The class named as a global (not through `self`)."""
    assert bump(np.ones(3)) == bump_graph(np.ones(3)) == 3
    assert bump(np.ones(2)) == bump_graph(np.ones(2)) == 5
    assert Tally.n == TallyGraph.n == 5
    assert type(Tally.n) is type(TallyGraph.n) is int


class Tally:
    n = 0


class TallyGraph:
    n = 0


def bump(x):
    Tally.n += int(np.sum(x))
    return Tally.n


@ag.function
def bump_graph(x):
    TallyGraph.n += int(np.sum(x))
    return TallyGraph.n


class Dense:
    """A model as a callable object: `ag.function(layer)` traces its `__call__`."""
    calls = np.zeros(1)

    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        Dense.calls[0] += 1.0
        return x @ self.w


@pytest.mark.parametrize("jit", [False, True])
def test_a_callable_object_is_state_like_a_method(jit):
    layer = Dense(np.eye(2))
    f = ag.function(layer, jit_compile=jit)
    x = np.array([1.0, 2.0])
    Dense.calls[0] = 0.0
    np.testing.assert_array_equal(f(x), x)
    layer.w = np.eye(2) * 3.0  # rebound between calls: seen, as by the object itself
    np.testing.assert_array_equal(f(x), x * 3.0)
    layer.w[0, 0] = 5.0  # written in place: seen too
    np.testing.assert_array_equal(f(x), layer(x))
    assert Dense.calls[0] == 4.0  # three calls through f, one eagerly
