"""`try` / `except` / `else` / `finally` around graph operations is a graph construct:
errors operations raise when the graph runs reach the handler Python would pick.

Each case runs eagerly (the original function), through `ag.function` (also with
`jit_compile=True`), through `ag.to_graph` on NumPy values, and through the reference
interpreter, and compares the outcome: the value (dtype, shape) or the exception's type,
message and cause."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_interpreter_agrees, assert_same

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class TooLarge(ValueError):
    """A user exception class."""


def safe_inv(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = np.zeros_like(x)
    return y


def pick(x, i):
    try:
        return x[i]
    except IndexError:
        return -1.0


def log_or_zero(x):
    try:
        y = np.log(x)
    except FloatingPointError:
        y = np.zeros_like(x)
    return y


def python_division(x, k):
    try:
        y = x * (1 / k)
    except ZeroDivisionError:
        y = x
    return y


def after_op_python_division(x, k):
    try:
        s = np.sum(x)
        y = x * s + 1 / k
    except ZeroDivisionError:
        y = -x
    return y


def exact_int_division(x):
    k = 0
    while k < np.sum(x):  # k: a Python int carried by a graph loop (exact)
        k += 1
    try:
        q = 10 // (k - 3)  # ZeroDivisionError when the graph runs, as in Python
    except ZeroDivisionError:
        q = -1
    return q


def assertion(x):
    try:
        assert np.all(x > 0), "x must be positive"
        y = np.sqrt(x)
    except AssertionError:
        y = -x
    return y


def _checked(x):
    if np.sum(x) > 3:
        raise TooLarge("too large")
    return x * 2


def symbolic_raise(x):
    try:
        y = _checked(x)
    except ValueError:
        y = x
    return y


def order_of_handlers(x):
    try:
        y = _checked(x)
    except TooLarge:
        y = x + 100
    except ValueError:
        y = x
    return y


def not_caught(x):
    try:
        y = np.linalg.inv(x)
    except KeyError:
        y = x
    return y


def chained(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        raise ValueError("singular input") from e
    return y


def reraised(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise
    return y


def else_and_finally(x):
    n = 0
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = np.eye(2)
        n = 1
    else:
        y = y * 2
        n = 2
    finally:
        z = 3.0
    return y * z, n


def nested(x, m):
    try:
        try:
            y = np.linalg.inv(x)
        except KeyError:
            y = x
        z = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        y = np.ones((2, 2))
        z = np.ones((2, 2))
    return y + z


def in_symbolic_loop(xs):
    s = np.zeros((2, 2))
    i = 0
    while i < xs.shape[0]:
        try:
            s = s + np.linalg.inv(xs[i])
        except np.linalg.LinAlgError:
            s = s - 1.0
        i += 1
    return s


def in_symbolic_branch(x):
    if np.sum(x) > 0:
        try:
            y = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            y = x * 0
    else:
        y = x
    return y


def constant_before_error(x):
    try:
        n = 1
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = x * n
    return y


def temporaries(x):
    try:
        t = x + 1
        y = np.linalg.inv(t)
    except np.linalg.LinAlgError:
        y = x * 0
    return y


def bare_except(x):
    try:
        y = np.linalg.inv(x)
    except:  # noqa: E722 - the construct under test
        y = x
    return y


def nested_in_handler(x, m):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        try:
            y = np.linalg.inv(m)
        except np.linalg.LinAlgError:
            y = np.zeros((2, 2))
    return y


def reraise_from_nested_try(x, m):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        try:
            y = np.linalg.inv(m)
        except np.linalg.LinAlgError:
            y = m
        if np.sum(m) > 10:
            raise ValueError("too large") from e
        raise
    return y


def tuple_of_kinds(x, i):
    try:
        y = np.linalg.inv(x)[i]
    except (IndexError, np.linalg.LinAlgError):
        y = x[0]
    return y


def in_symbolic_for(xs):
    s = np.zeros((2, 2))
    for m in xs:
        try:
            s = s + np.linalg.inv(m)
        except np.linalg.LinAlgError:
            s = s - 1.0
    return s


def handler_reads_body_value(x):
    y = x + 1
    try:
        y = y * 2
        z = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        z = y - 1
    return z, y


def handler_reads_temporary(x):
    try:
        t = x + 1
        y = np.linalg.inv(t)
    except np.linalg.LinAlgError:
        y = t
    return y


def finally_reads_body_value(x):
    try:
        t = np.sqrt(x * x)
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = t + 1
    finally:
        s = t.sum()
    return y, s


def loop_handler_reads_body_value(xs):
    s = np.zeros((2, 2))
    for m in xs:
        try:
            t = s + m
            s = s + np.linalg.inv(m)
        except np.linalg.LinAlgError:
            s = t * 2
    return s


def nested_try_assigning_in_its_body_only(x):
    z = x * 1
    try:
        try:
            z = np.linalg.inv(x)
        except ValueError:
            pass
    except np.linalg.LinAlgError:
        pass
    return z


SINGULAR, REGULAR = np.zeros((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])

CASES = [
    (safe_inv, (SINGULAR,)), (safe_inv, (REGULAR,)),
    (pick, (np.arange(3.0), np.int64(5))), (pick, (np.arange(3.0), np.int64(1))),
    (python_division, (np.ones(2), 0)), (python_division, (np.ones(2), 2)),
    (after_op_python_division, (np.ones(2), 0)), (after_op_python_division, (np.ones(2), 2)),
    (exact_int_division, (np.array([3.0]),)), (exact_int_division, (np.array([5.0]),)),
    (assertion, (np.arange(3.0),)), (assertion, (np.arange(1.0, 4.0),)),
    (symbolic_raise, (np.arange(3.0),)), (symbolic_raise, (np.zeros(3),)),
    (order_of_handlers, (np.arange(3.0),)), (order_of_handlers, (np.zeros(3),)),
    (not_caught, (SINGULAR,)), (not_caught, (REGULAR,)),
    (chained, (SINGULAR,)), (chained, (REGULAR,)),
    (reraised, (SINGULAR,)),
    (else_and_finally, (SINGULAR,)), (else_and_finally, (REGULAR,)),
    (nested, (SINGULAR, REGULAR)), (nested, (REGULAR, SINGULAR)), (nested, (REGULAR, REGULAR)),
    (in_symbolic_loop, (np.stack([REGULAR, SINGULAR, REGULAR]),)),
    (in_symbolic_branch, (SINGULAR,)), (in_symbolic_branch, (REGULAR,)),
    (in_symbolic_branch, (-REGULAR - 5,)),
    (constant_before_error, (SINGULAR,)),
    (bare_except, (SINGULAR,)), (bare_except, (REGULAR,)),
    (nested_in_handler, (SINGULAR, REGULAR)), (nested_in_handler, (SINGULAR, SINGULAR)),
    (nested_in_handler, (REGULAR, SINGULAR)),
    (reraise_from_nested_try, (SINGULAR, SINGULAR)), (reraise_from_nested_try, (SINGULAR, REGULAR)),
    (reraise_from_nested_try, (SINGULAR, REGULAR * 10)), (reraise_from_nested_try, (REGULAR, REGULAR)),
    (tuple_of_kinds, (REGULAR, np.int64(5))), (tuple_of_kinds, (SINGULAR, np.int64(1))),
    (tuple_of_kinds, (REGULAR, np.int64(1))),
    (in_symbolic_for, (np.stack([REGULAR, SINGULAR, REGULAR]),)),
    (handler_reads_body_value, (SINGULAR,)), (handler_reads_body_value, (REGULAR,)),
    (handler_reads_temporary, (SINGULAR - 1,)), (handler_reads_temporary, (REGULAR,)),
    (finally_reads_body_value, (SINGULAR,)), (finally_reads_body_value, (REGULAR,)),
    (loop_handler_reads_body_value, (np.stack([REGULAR, SINGULAR, REGULAR]),)),
    (nested_try_assigning_in_its_body_only, (SINGULAR,)),
    (nested_try_assigning_in_its_body_only, (REGULAR,)),
]


def outcome(fn, args):
    try:
        return "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        cause = e.__cause__
        return "error", (type(e), e.args, type(cause) if cause is not None else None)


def assert_same_outcome(got, want):
    assert got[0] == want[0], (got, want)
    if want[0] == "value":
        assert_same(got[1], want[1])
    else:
        assert got[1] == want[1]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_matches_python(fn, args, mode):
    if mode == "jit":
        pytest.importorskip("numba")
    want = outcome(fn, args)
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, args), want)


@pytest.mark.parametrize("fn,args", [c for c in CASES if outcome(*c)[0] == "value"],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_interpreter_agrees(fn, args):
    f = ag.function(fn)
    actual = f(*args)
    cf = f.get_concrete_function(*args)
    cf.graph.verify()
    assert_interpreter_agrees(cf, args, actual)


def test_floating_point_errors_under_errstate():
    f = ag.function(log_or_zero)
    for x in (np.arange(3.0), np.arange(1.0, 4.0)):
        with np.errstate(all="raise"):
            assert_same_outcome(outcome(f, (x,)), outcome(log_or_zero, (x,)))


def test_a_value_assigned_between_operations_that_may_fail_is_refused_at_the_try():
    with pytest.raises(ag.ConversionError, match="'t'"):
        ag.function(_reassigned_between_failures)(SINGULAR)


def _reassigned_between_failures(x):
    try:
        t = np.linalg.inv(x + 1)
        y = np.linalg.inv(t)
    except np.linalg.LinAlgError:
        y = t
    return y


def test_temporaries_of_the_body_are_not_state():
    assert_same(ag.function(temporaries)(REGULAR - 1), temporaries(REGULAR - 1))


def test_effects_before_the_error_stay_done(capsys):
    def printed(x):
        try:
            ag.print("before")
            y = np.linalg.inv(x)
            ag.print("after")
        except np.linalg.LinAlgError:
            y = x
        return y

    f = ag.function(printed)
    f(SINGULAR)
    assert capsys.readouterr().out == "before\n"
    f(REGULAR)
    assert capsys.readouterr().out == "before\nafter\n"


def _summed(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = x * x
    return np.sum(y)


def _gradient(x):
    with ag.GradientTape() as tape:
        x = tape.watch(x)
        y = _summed(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("x", [REGULAR, SINGULAR + 1.0], ids=["body", "handler"])
def test_gradient_through_the_path_taken(x):
    assert_same(ag.function(_gradient)(x), _gradient(x))


def _replayed_gradient(x):
    with ag.GradientTape() as tape:
        x = tape.watch(x)
        try:
            t = np.sin(x) * x
            y = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            y = t * 3
        total = np.sum(y)
    return tape.gradient(total, x)


@pytest.mark.parametrize("x", [REGULAR, SINGULAR + 1.0], ids=["body", "handler"])
def test_gradient_through_a_body_value_the_handler_reads(x):
    assert_same(ag.function(_replayed_gradient)(x), _replayed_gradient(x))


def test_save_carries_the_try_and_onnx_refuses_it_by_name(tmp_path):
    # (tests/saved/test_saved_try.py covers saving in depth)
    cf = ag.function(safe_inv).get_concrete_function(REGULAR)
    ag.save(cf, str(tmp_path / "saved"))
    loaded = ag.load(str(tmp_path / "saved"))
    for x in (REGULAR, SINGULAR):
        assert_same(loaded(x), safe_inv(x))
    pytest.importorskip("onnx")
    with pytest.raises(ag.OnnxExportError, match=r"'try' \(recorded at .*:\d+ in safe_inv\)"):
        cf.to_onnx()


def test_finally_runs_its_effects_on_every_path(capsys):
    def cleaned(x):
        try:
            y = np.linalg.inv(x)
        except KeyError:
            y = x
        finally:
            ag.print("cleanup")
        return y

    f = ag.function(cleaned)
    for x in (REGULAR, SINGULAR):
        got = outcome(f, (x,))
        graph_out = capsys.readouterr().out
        assert_same_outcome(got, outcome(cleaned, (x,)))
        assert graph_out == capsys.readouterr().out == "cleanup\n"


def test_variable_writes_before_the_error_stay_done():
    v = ag.Variable(0.0)

    def counted(x):
        try:
            v.assign_add(1.0)
            y = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            y = x
        return y

    f = ag.function(counted)
    f(SINGULAR)
    f(REGULAR)
    assert v.numpy() == 2.0


def in_python_loop(xs):
    total = np.zeros((2, 2))
    for k in range(3):
        try:
            total = total + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            total = total + k
    return total


def test_try_in_a_python_loop():
    xs = np.stack([REGULAR, SINGULAR, REGULAR])
    assert_same(ag.function(in_python_loop)(xs), in_python_loop(xs))


def handler_raises_under_condition(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        if np.sum(x) > 1:
            raise TooLarge("singular and large")  # noqa: B904 - context chaining under test
        y = x
    return y


@pytest.mark.parametrize("x", [REGULAR, SINGULAR, np.ones((2, 2))])
def test_a_handler_raising_under_a_symbolic_condition(x):
    f = ag.function(handler_raises_under_condition)
    assert_same_outcome(outcome(f, (x,)), outcome(handler_raises_under_condition, (x,)))


def test_a_finally_effect_on_a_value_the_graph_cannot_know_is_refused():
    with pytest.raises(ag.ConversionError, match="finally"):
        ag.function(_finally_reads)(SINGULAR)


def _finally_reads(x):
    s = x * 0
    try:
        s = s + 1
        y = np.linalg.inv(x + s)
    except KeyError:
        y = x
    finally:
        ag.print(s)
    return y


def unused_result(x):
    try:
        np.linalg.inv(x)  # its result is not used: it still runs (and may raise)
        y = x
    except np.linalg.LinAlgError:
        y = -x
    return y


def comprehension_in_body(xs):
    try:
        parts = [np.linalg.inv(v) for v in xs]
        y = parts[0] + parts[1]
    except np.linalg.LinAlgError:
        y = xs[0]
    return y


@pytest.mark.parametrize("fn,args", [
    (unused_result, (SINGULAR,)), (unused_result, (REGULAR,)),
    (comprehension_in_body, (np.stack([REGULAR, REGULAR]),)),
    (comprehension_in_body, (np.stack([REGULAR, SINGULAR]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_optimizer_keeps_every_operation_of_a_body(fn, args):
    assert_same_outcome(outcome(ag.function(fn), args), outcome(fn, args))


def finally_with_returns(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        return x * 0
    finally:
        ag.print("done")


def returns_in_symbolic_loop(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            s = s + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            return s
    return s


@pytest.mark.parametrize("fn,args", [
    (finally_with_returns, (SINGULAR,)), (finally_with_returns, (REGULAR,)),
    (returns_in_symbolic_loop, (np.stack([REGULAR, SINGULAR, REGULAR]),)),
    (returns_in_symbolic_loop, (np.stack([REGULAR, REGULAR]),)),
], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["function", "to_graph"])
def test_returns_in_try(fn, args, mode, capsys):
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn)
    got = outcome(run, args)
    printed = capsys.readouterr().out
    assert_same_outcome(got, outcome(fn, args))
    assert printed == capsys.readouterr().out


def test_autograph_convert_output_matches_python(tmp_path):
    import importlib.util

    from autograph.impl.static import convert_module_source

    with open(__file__) as f:
        text = convert_module_source(f.read(), __file__)
    assert "ag__.try_graph(" in text
    path = tmp_path / "converted_try_cases.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("converted_try_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for fn, args in CASES:
        converted = getattr(module, fn.__name__)
        want = outcome(fn, args)
        assert_same_outcome(outcome(converted, args), want)
        assert_same_outcome(outcome(ag.function(converted), args), want)


class _Box:
    """An object a `try` that stays Python writes to."""

    value = 0


_BOX = _Box()


def graph_try_inside_python_try(x):
    try:
        _BOX.value = 1  # this `try` stays Python (it writes an attribute)
        try:
            y = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            y = x
    except KeyError:
        y = x * 0
    return y


@pytest.mark.parametrize("x", [REGULAR, SINGULAR], ids=["regular", "singular"])
def test_a_graph_try_inside_a_try_that_stays_python(x):
    f = ag.function(graph_try_inside_python_try)
    assert_same_outcome(outcome(f, (x,)), outcome(graph_try_inside_python_try, (x,)))


def _warned_in_body(x, m):
    try:
        t = np.log(x) * 1e308
        y = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        y = t
    return y


@pytest.mark.parametrize("m", [SINGULAR, REGULAR], ids=["handler", "body"])
def test_a_body_value_the_handler_reads_warns_once_as_in_python(m):
    x = np.array([[0.0, 10.0], [1.0, 2.0]])
    got = {}
    for name, run in [("eager", _warned_in_body), ("graph", ag.function(_warned_in_body))]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = run(x, m)
        got[name] = (value, [str(w.message) for w in caught])
    assert_same(got["graph"][0], got["eager"][0])
    assert got["graph"][1] == got["eager"][1]
    with np.errstate(all="raise"):
        assert_same_outcome(outcome(ag.function(_warned_in_body), (x, m)),
                            outcome(_warned_in_body, (x, m)))
