"""The guard of a trace covers the places the trace can have read, and all of them.

Each test runs a program as Python and through `ag.function` (and `jit_compile=True`)
on twin objects, changes the state from outside between calls, and compares results
and state after every call. An attribute no code of the trace names changes without a
new trace; one that the trace reads - directly, through another path to the same object,
through a function kept in state, a bound method's object, or a global a called helper
reads - is never served stale.
"""
import sys
import warnings

import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"jit_compile": True}]


def run_both(make, call, changes, **options):
    """Call `call(obj, x)` on two fresh objects, once as Python and once through
    ag.function; before each call i > 0, `changes[i - 1](obj)` changes both."""
    eager_obj, graph_obj = make(), make()
    f = ag.function(call, **options)
    x = np.arange(3.0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        for i in range(len(changes) + 1):
            if i:
                changes[i - 1](eager_obj)
                changes[i - 1](graph_obj)
            expected, got = call(eager_obj, x), f(graph_obj, x)
            assert type(got) is type(expected)
            np.testing.assert_array_equal(got, expected, err_msg=f"call {i}")
    return f


class Layer:
    """A layer as ML libraries write them: what forward reads, and much it does not."""

    def __init__(self):
        self.parameters = {"W": np.full(3, 2.0), "b": np.ones(3)}
        self.scale = 3.0
        self.optimizer = {"lr": 0.1, "cache": {"m": np.zeros(3), "v": np.zeros(3)}}
        self.gradients = {"W": np.zeros(3), "b": np.zeros(3)}
        self.step_count = 0
        self.name = "layer"

    def forward(self, x):
        return x * self.parameters["W"] * self.scale + self.parameters["b"]


def bump_unread(obj):
    obj.step_count += 1
    obj.optimizer["lr"] *= 0.5
    obj.optimizer["cache"]["m"] = obj.optimizer["cache"]["m"] + 1.0
    obj.gradients = {"W": np.ones(3), "b": np.ones(3)}
    obj.name = obj.name + "!"


@pytest.mark.skipif(sys.gettrace() is not None,
                    reason="under a debugger or coverage every attribute is guarded")
@pytest.mark.parametrize("options", MODES)
def test_attributes_the_trace_does_not_name_change_without_a_new_trace(options):
    f = run_both(Layer, Layer.forward, [bump_unread] * 4, **options)
    assert f.tracing_count == 1


def rescale(obj):
    obj.scale = obj.scale + 1.0


def new_weights(obj):
    obj.parameters["W"] = obj.parameters["W"] * 2.0


@pytest.mark.parametrize("options", MODES)
def test_attributes_the_trace_reads_are_still_guarded(options):
    run_both(Layer, Layer.forward, [rescale, bump_unread, new_weights, rescale], **options)


class Shared:
    def __init__(self):
        self.a = {"k": 1.0}
        self.b = self.a  # one dict, two attributes

    def read_b(self, x):
        return x * self.b["k"]


def rebind_b(obj):
    obj.b = {"k": obj.b["k"] + 2.0}


@pytest.mark.parametrize("options", MODES)
def test_a_second_path_to_an_object_rebound_is_seen(options):
    run_both(Shared, Shared.read_b, [rebind_b, rebind_b], **options)


def double(z):
    return 2.0 * z


def negate(z):
    return -z


class Holder:
    def __init__(self):
        self.act = double
        self.table = {"f": double}

    def apply(self, x):
        return self.act(x) + self.table["f"](x)


def swap_act(obj):
    obj.act = negate


def swap_table(obj):
    obj.table["f"] = negate


@pytest.mark.parametrize("options", MODES)
def test_a_function_kept_in_state_rebound_is_seen(options):
    run_both(Holder, Holder.apply, [swap_act, swap_table], **options)


class Scaler:
    def __init__(self):
        self.factor = 2.0

    def scale(self, z):
        return z * self.factor


class Pipeline:
    def __init__(self):
        self.step = Scaler().scale  # a bound method: its object's state is read

    def run(self, x):
        return self.step(x) + 1.0


def change_bound_object(obj):
    obj.step.__self__.factor = obj.step.__self__.factor + 1.5


@pytest.mark.parametrize("options", MODES)
def test_the_object_of_a_bound_method_in_state_is_guarded(options):
    run_both(Pipeline, Pipeline.run, [change_bound_object, change_bound_object], **options)


OFFSET = 1.0
OFFSETS = {"v": 10.0}


def add_offset(z):
    return z + OFFSET + OFFSETS["v"]


class Caller:
    def go(self, x):
        return add_offset(x) * 2.0  # the global is named by the helper only


def change_globals(obj):
    global OFFSET
    OFFSET = OFFSET + 3.0
    OFFSETS["v"] = OFFSETS["v"] - 1.0


@pytest.mark.parametrize("options", MODES)
def test_globals_a_called_helper_reads_are_guarded(options):
    global OFFSET
    OFFSET, OFFSETS["v"] = 1.0, 10.0
    try:
        run_both(Caller, Caller.go, [lambda o: None, change_globals, change_globals],
                 **options)
    finally:
        OFFSET, OFFSETS["v"] = 1.0, 10.0


class Computed:
    def __init__(self):
        self.w0, self.w1, self.unused = 1.0, 2.0, 5.0

    def pick(self, x):
        return x * getattr(self, "w" + str(1))  # a name no code spells


def change_w1(obj):
    obj.w1 = obj.w1 * 3.0


@pytest.mark.parametrize("options", MODES)
def test_an_attribute_read_under_a_computed_name_is_guarded(options):
    run_both(Computed, Computed.pick, [change_w1, change_w1], **options)


class WithDefault:
    rate = 0.5  # read through the instance, from the class

    def __init__(self):
        self.other = 1

    def apply(self, x):
        return x * self.rate


def shadow_rate(obj):
    del obj.other  # the instance keeps its number of attributes
    obj.rate = 4.0


@pytest.mark.parametrize("options", MODES)
def test_a_class_attribute_shadowed_on_the_instance_is_seen(options):
    run_both(WithDefault, WithDefault.apply, [shadow_rate], **options)


def test_under_a_debugger_every_attribute_is_guarded():
    """With a trace function already set (a debugger, coverage), nothing is recorded:
    the guard covers every attribute, the globals helpers read aside, and it is left set."""
    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        f = run_both(Layer, Layer.forward, [bump_unread, rescale, new_weights])
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)
    assert f.tracing_count >= 2  # (the unread change traced again: all is guarded)


RATE = 0.5


def scaled(z):
    return z * RATE


class Schedule:
    def apply(self, x):
        return scaled(x) + 1.0


def decay_rate(obj):
    global RATE
    RATE = RATE * 0.9


@pytest.mark.parametrize("options", MODES)
def test_a_global_a_helper_reads_that_keeps_changing_becomes_an_input(options):
    global RATE
    RATE = 0.5
    try:
        f = run_both(Schedule, Schedule.apply, [decay_rate] * 6, **options)
    finally:
        RATE = 0.5
    assert f.tracing_count <= 2



def _relu_converted_in_the_trace(h):
    return np.maximum(h, 0.0)


def _normalized_converted_in_the_trace(h):
    return h / np.sum(h)


def forward_converting_its_helpers(x, w, activation="relu"):
    h = x @ w
    h = _relu_converted_in_the_trace(h) if activation == "relu" else np.tanh(h)
    return _normalized_converted_in_the_trace(h)


def test_converting_a_callee_inside_a_trace_adds_nothing_to_the_guard():
    """The compiler's work inside a trace (converting a callee on its first call) is not
    the program's: the parser's globals are not guarded, so the trace that converted
    the helpers guards what a trace of the already converted helpers guards."""
    x, w = np.arange(6.0).reshape(2, 3), np.ones((3, 3))

    def guarded() -> list:
        f = ag.function(forward_converting_its_helpers)
        np.testing.assert_array_equal(f(x, w), forward_converting_its_helpers(x, w))
        return sorted(label for label, _, _ in f.concrete_functions[0].state.term_list)

    first = guarded()  # converts the helpers
    assert first == guarded() == ["_normalized_converted_in_the_trace",
                                  "_relu_converted_in_the_trace"]
