"""`with np.errstate(...)` inside a compiled function is a run-time region: its body's
operations warn, raise FloatingPointError or stay silent when the graph runs exactly as
they do eagerly, whatever errstate the caller sets. Each case compares eager Python with
`ag.function`, `jit_compile=True`, `ag.to_graph`, the graph interpreter and the
`autograph convert` output, under the caller's default, "raise" and "ignore" settings,
with warnings turned into errors (so an extra or missing warning fails)."""
from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.errors import ConversionError
from tests.helpers import assert_interpreter_agrees, assert_same


def ignore_divide(x):
    with np.errstate(divide="ignore"):
        y = np.log(x)
    return y + 1


def raise_all(x):
    with np.errstate(all="raise"):
        y = x / (x - 1)
    return y


def outside_ops_keep_the_callers_setting(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x) - np.log(x)
    return y, np.log(x)


def nested_regions(x):
    with np.errstate(all="ignore"):
        y = x / 0
        with np.errstate(divide="raise"):
            z = np.log(x + 1)
    return y, z


def in_symbolic_branch(x):
    y = x * 1
    if np.sum(x) > 2:
        with np.errstate(divide="ignore"):
            y = np.log(x)
    return y


def in_symbolic_loop(xs):
    s = np.zeros(2)
    for x in xs:
        with np.errstate(divide="ignore", invalid="ignore"):
            s = s + np.log(x)
    return s


def in_graph_try(x):
    try:
        with np.errstate(over="ignore"):
            y = x * 1e308 * 10
    except KeyError:
        y = x
    return y


def caught_floating_point_error(x):
    try:
        with np.errstate(divide="raise"):
            y = np.log(x)
    except FloatingPointError:
        y = x * 0
    return y


ZERO, POSITIVE = np.array([0.0, 2.0]), np.array([1.5, 2.0])
CASES = [
    (ignore_divide, (ZERO,)), (ignore_divide, (POSITIVE,)),
    (raise_all, (np.array([1.0, 3.0]),)), (raise_all, (POSITIVE,)),
    (outside_ops_keep_the_callers_setting, (ZERO,)),
    (outside_ops_keep_the_callers_setting, (POSITIVE,)),
    (nested_regions, (np.array([-1.0, 2.0]),)), (nested_regions, (POSITIVE,)),
    (in_symbolic_branch, (ZERO,)), (in_symbolic_branch, (np.array([0.0, 1.0]),)),
    (in_symbolic_loop, (np.stack([ZERO, POSITIVE]),)),
    (in_graph_try, (POSITIVE,)),
    (caught_floating_point_error, (ZERO,)), (caught_floating_point_error, (POSITIVE,)),
]
SETTINGS = [{}, {"all": "raise"}, {"all": "ignore"}]


def outcome(fn, args, setting):
    with warnings.catch_warnings(), np.errstate(**setting):
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return "value", fn(*args)
        except (Exception, RuntimeWarning) as e:  # noqa: BLE001 - the outcome compared
            return "error", (type(e), str(e))


def assert_same_outcome(got, want):
    assert got[0] == want[0], (got, want)
    if want[0] == "value":
        assert_same(got[1], want[1])
    else:
        assert got[1] == want[1]


COMPILERS = {"function": ag.function, "to_graph": ag.to_graph,
             "jit": lambda fn: ag.function(fn, jit_compile=True)}


@pytest.mark.parametrize("setting", SETTINGS, ids=["default", "raise", "ignore"])
@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", list(COMPILERS))
def test_matches_python(fn, args, setting, mode):
    compiled = COMPILERS[mode](fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        assert_same_outcome(outcome(compiled, args, setting), outcome(fn, args, setting))


@pytest.mark.parametrize("fn,args", [c for c in CASES if outcome(*c, {})[0] == "value"],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_interpreter_agrees(fn, args):
    f = ag.function(fn)
    with np.errstate(all="ignore"):
        actual = f(*args)
        cf = f.get_concrete_function(*args)
        cf.graph.verify()
        assert_interpreter_agrees(cf, args, actual)


def test_autograph_convert_output_matches_python(tmp_path):
    from autograph.impl.static import convert_module_source

    with open(__file__) as f:
        text = convert_module_source(f.read(), __file__)
    assert "ag__.errstate_region(" in text
    path = tmp_path / "converted_errstate_cases.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("converted_errstate_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for fn, args in CASES:
        converted = getattr(module, fn.__name__)
        for setting in SETTINGS:
            want = outcome(fn, args, setting)
            assert_same_outcome(outcome(converted, args, setting), want)
            assert_same_outcome(outcome(ag.function(converted), args, setting), want)


def errstate_as_name(x):
    with np.errstate(all="raise") as state:
        y = x / 0
    return y, state


def errstate_with_call(x):
    with np.errstate(call=print, all="call"):
        y = x / 0
    return y


@pytest.mark.parametrize("fn", [errstate_as_name, errstate_with_call])
def test_forms_without_a_region_stay_refused_at_the_with(fn):
    with pytest.raises(ConversionError, match="around the call"):
        ag.function(fn)(np.ones(2))


def test_save_carries_the_region_and_onnx_refuses_it_by_name(tmp_path):
    cf = ag.function(ignore_divide).get_concrete_function(ZERO)
    ag.save(cf, str(tmp_path / "saved"))
    loaded = ag.load(str(tmp_path / "saved"))
    for x in (ZERO, POSITIVE):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            result = loaded(x)
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = ignore_divide(x)
        assert_same(result, expected)
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
    # (onnx: in the dev extra, so CI runs it)
    with pytest.raises(ag.OnnxExportError, match=r"'try' \(recorded at .*:\d+ in ignore_divide"):
        cf.to_onnx()
