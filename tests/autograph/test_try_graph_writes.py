"""Writes inside a graph `try` body: attributes (`box.x = v`, `box.count += 1`), list, dict
and array items (`xs[0] = v`, `out[1] = row`, `a[i] = v`), argument arrays and
Variables. A write made before the error stays done, in the handler, after the `try`
and in the caller's objects; one after it is not (converters/try_statements.py carries
them as state, runtime/control_flow/try_arrays.py keeps an array's aliases on the
path's value).

Each case runs eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph`
and the output of `autograph convert`, on inputs that fail at different points, and
compares the outcome (value with dtype, shape and kind, or the exception), what
`ag.print` printed and what the arguments hold afterwards."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same, converted_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SINGULAR, REGULAR = np.zeros((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])
MIXED = np.stack([REGULAR, SINGULAR, REGULAR * 2])


class Box:
    def __init__(self, x=None, count=0):
        self.x = np.zeros((2, 2)) if x is None else x
        self.count = count


def attribute_writes(box, m):
    try:
        box.x = m * 2
        box.count += 1
        y = np.linalg.inv(m)
        box.x = y
        box.count += 1
    except np.linalg.LinAlgError:
        y = box.x + box.count
    return y


def list_item_writes(xs, m):
    try:
        xs[0] = m + 1
        y = np.linalg.inv(m)
        xs[1] = y
    except np.linalg.LinAlgError:
        y = xs[0] * 3
    return y


def nested_item_writes(d, m):
    try:
        d["rows"][0] = m[0] * 2
        d["n"] = d["n"] + 1
        y = np.linalg.inv(m)[1]
        d["rows"][1] = y
    except np.linalg.LinAlgError:
        y = d["rows"][0] - d["n"]
    return y


def argument_array_writes(out, m):
    try:
        out[0] = m[0] + 5
        y = np.linalg.inv(m)
        out[1] = y[1]
    except np.linalg.LinAlgError:
        y = out * 2
    return y


def written_through_an_alias(out, m):
    alias = out
    try:
        alias[0] = m[1] - 1
        y = np.linalg.inv(m)
        alias[1] = y[0]
    except np.linalg.LinAlgError:
        y = out + 1  # the write is seen through the other name too
    return y, out


def local_array_writes(m):
    a = np.zeros((2, 2))
    try:
        a[0] = m[0] + 5
        y = np.linalg.inv(m)
        a[1] = y[1]
    except np.linalg.LinAlgError:
        a[1] = -1.0
    return a


def attribute_item_writes(box, m):
    try:
        box.x[0] = m[1] * 3
        y = np.linalg.inv(m)
        box.x[1] = y[0]
    except np.linalg.LinAlgError:
        y = box.x * 2
    return y


def variable_writes(v, m):
    try:
        v.assign(m + 1)
        y = np.linalg.inv(m)
        v.assign(y)
    except np.linalg.LinAlgError:
        y = v.read_value() * 2
    return y


def writes_between_lookups(box, xs, k):
    try:
        box.count = box.count + 1
        box.x = xs[k]
        box.count = box.count + 1
        box.x = box.x + xs[k + 2]
    except IndexError:
        box.count = box.count * 10
    return box.x


def writes_in_handler_and_finally(box, log, m):
    try:
        box.x = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        box.count += 10
        log["last"] = m[0, 0] - 1
    finally:
        box.count += 1
        ag.print("finally")
    return box.x


def not_caught_here(box, out, m):
    try:
        box.x = m * 3 + 1
        out[0] = m[1] + 2
        y = np.linalg.inv(m)
    except IndexError:
        y = m
    return y


def fills_in_a_loop(out, ms):
    for k in range(ms.shape[0]):
        try:
            out[k] = np.linalg.inv(ms[k])[0, 0]
        except np.linalg.LinAlgError:
            out[k] = -1.0
            break
    return out


def raises_in_finally_after_writes(out, n, x):
    if x < -2:
        try:
            n = n + 1
        finally:
            for i in range(n):  # (writes on a path that ends in an error only)
                out[i % 4] = 2.0
            raise ValueError("bad")
    return x


def written_by_the_handler_only(xs, n):
    a = n
    try:
        a = (a + int(np.array([3, 5, 7])[-n])) % 1009
    except LookupError:
        xs[1] = xs[a % 4] + 1
    except ArithmeticError:
        a = a + 1
    return a


def written_by_else(xs, n):
    try:
        v = xs[n] * 2
    except IndexError:
        v = 0.0
    else:
        xs[1] = v
    return v


ARGS = {  # name -> a function making fresh arguments for one input
    "attribute_writes": lambda m: (Box(), m),
    "list_item_writes": lambda m: ([np.zeros((2, 2)), np.ones((2, 2))], m),
    "nested_item_writes": lambda m: ({"rows": [np.zeros(2), np.ones(2)], "n": 1.5}, m),
    "argument_array_writes": lambda m: (np.zeros((2, 2)), m),
    "written_through_an_alias": lambda m: (np.zeros((2, 2)), m),
    "local_array_writes": lambda m: (m,),
    "attribute_item_writes": lambda m: (Box(), m),
    "variable_writes": lambda m: (ag.Variable(np.zeros((2, 2))), m),
    "writes_in_handler_and_finally": lambda m: (Box(count=3), {"last": np.float64(0)}, m),
    "not_caught_here": lambda m: (Box(), np.zeros((2, 2)), m),
}
CASES = [(name, make, m) for name, make in ARGS.items() for m in ("singular", "regular")]
CASES += [("writes_between_lookups", lambda k: (Box(np.float64(0.5), 1), np.arange(4.0), k),
           np.int64(k)) for k in (-9, 0, 1, 2, 5)]
CASES += [("fills_in_a_loop", lambda ms: (np.zeros(ms.shape[0]), ms), ms)
          for ms in ("mixed", "regular3")]
CASES += [("written_by_the_handler_only", lambda n: (np.array([3.0, 2.5, -1.5, 1.0]), n),
           np.int64(n)) for n in (1, 5)]
CASES += [("written_by_else", lambda n: (np.array([3.0, 2.5, -1.5, 1.0]), n), np.int64(n))
          for n in (0, 9)]
CASES += [("raises_in_finally_after_writes", lambda x: (np.zeros(4), np.int64(2), x),
           np.float64(x)) for x in (-3.0, -1.5)]
INPUTS = {"singular": SINGULAR, "regular": REGULAR, "mixed": MIXED,
          "regular3": np.stack([REGULAR] * 3)}


def state_of(x):
    """What an argument holds, as comparable values."""
    if isinstance(x, Box):
        return {"x": state_of(x.x), "count": x.count}
    if isinstance(x, ag.Variable):
        return np.array(x.numpy())
    if isinstance(x, list):
        return [state_of(v) for v in x]
    if isinstance(x, dict):
        return {k: state_of(v) for k, v in x.items()}
    return np.array(x) if isinstance(x, np.ndarray) else x


def outcome(fn, args, capsys):
    try:
        result = "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        result = "error", (type(e), e.args)
    return result, capsys.readouterr().out, [state_of(a) for a in args]


def assert_same_outcome(got, want):
    (kind, value), printed, state = got
    assert kind == want[0][0], (got, want)
    if kind == "value":
        assert_same(value, want[0][1])
    else:
        assert value == want[0][1]
    assert printed == want[1]
    assert_same(state, want[2])


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_writes")[0]


def _input(value):
    return INPUTS[value] if isinstance(value, str) else value


@pytest.mark.parametrize("name,make,value", CASES,
                         ids=[f"{n}-{v}" for n, _, v in CASES])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_writes_before_the_error_stay_done(name, make, value, mode, capsys, converted):
    fn = globals()[name]
    want = outcome(fn, make(_input(value)), capsys)
    if mode == "convert":
        run = ag.function(getattr(converted, name))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, make(_input(value)), capsys), want)
    if mode == "function":  # a second call runs the graph only
        assert_same_outcome(outcome(run, make(_input(value)), capsys), want)


def test_the_graph_form_is_used():
    for name in ARGS:
        if name != "not_caught_here":
            assert "try_graph(" in ag.to_code(globals()[name]), name


def written_through_a_view(out, m):
    row = out[0]
    try:  # refused
        row[:] = m[0]
        y = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        y = m
    return y


def attribute_of_an_item(items, m):
    try:  # refused
        items[0].x = m
        y = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        y = m
    return y


@pytest.mark.parametrize("fn,args,match", [
    (written_through_a_view, (np.zeros((2, 2)), SINGULAR), "through the variable that holds"),
    (attribute_of_an_item, ([Box()], SINGULAR), "could catch an error"),
])
def test_writes_the_graph_cannot_carry_are_refused_at_the_try(fn, args, match):
    with pytest.raises(ag.ConversionError, match=match) as info:
        ag.function(fn)(*args)
    lines, first = inspect.getsourcelines(fn)
    assert info.value.lineno == first + next(
        i for i, line in enumerate(lines) if "# refused" in line)
