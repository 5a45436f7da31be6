"""Python `print` of symbolic values in converted code is a graph print: it runs every
time the graph runs, in program order, and prints the very text the original Python
prints for the same NumPy inputs (stdout and stderr compared byte for byte). Without a
symbolic argument it stays Python's print (run while tracing only)."""
import io
import json
import sys

import numpy as np
import pytest

import autograph as ag
from runtime.exec.interpreter import run_graph


def _outputs(capsys, fn, inputs):
    """(stdout, stderr) of calling `fn` on each input tuple in turn."""
    capsys.readouterr()
    for args in inputs:
        fn(*args)
    captured = capsys.readouterr()
    return captured.out, captured.err


def _same_prints(capsys, fn, inputs):
    """The decorated function prints what the Python function prints, call after call
    (the trace happens on the first call, before any graph run)."""
    f = ag.function(fn)
    f(*inputs[0])  # trace (and run) once outside the comparison
    expected = _outputs(capsys, fn, inputs)
    assert _outputs(capsys, f, inputs) == expected
    assert _outputs(capsys, ag.to_graph(fn), inputs) == expected
    return expected


def message_and_array(x):
    print("x is", x)
    return x


def scalars(x):
    print(np.sum(x))
    print(x[0] * 1.5, x[-1] // 2, np.float32(1) / 3)
    print(np.mean(x.astype(np.float32)))
    return x


def nested(x):
    print([x, 1], (x[0],), {"k": x, "n": None}, [[x[1]], "s"])
    return x


def keywords(x):
    print(x, x + 1, sep=" | ", end=" <-\n")
    print(x, sep=None, end=None, file=sys.stdout, flush=True)
    print("e", x, file=sys.stderr)
    print(x, end="")
    print("", x[0])
    return x


def in_branches(x):
    if np.sum(x) > 3:
        print("big", x)
    else:
        print("small", x, sep="")
    print("after", np.sum(x))
    return x


def in_loop(x):
    total = 0
    for v in x:
        total = total + v
        print("running total", total)
    return total


def in_while(n):
    i = 0
    while i < n:
        print("i", i, n - i)
        i = i + 1
    return i


@pytest.mark.parametrize("fn", [message_and_array, scalars, nested, keywords, in_branches,
                                in_loop])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.float64, np.uint8])
def test_prints_what_python_prints_on_every_call(capsys, fn, dtype):
    out, err = _same_prints(capsys, fn, [(np.arange(1, 4, dtype=dtype),),
                                         (np.arange(5, 8, dtype=dtype),),
                                         (np.zeros(3, dtype),)])
    assert out  # the comparison saw some text


def test_while_loop_prints_every_iteration(capsys):
    out, _ = _same_prints(capsys, in_while, [(np.int64(3),), (np.int64(0),), (np.int64(2),)])
    assert out.count("\n") == 5


def test_bool_and_0d_values(capsys):
    def fn(x):
        print(x > 1, np.any(x > 1), [x > 1, np.all(x)], x.reshape(3, 1))
        return x
    _same_prints(capsys, fn, [(np.arange(3),), (np.ones(3, np.int32),)])


def test_print_without_symbolic_arguments_runs_only_while_tracing(capsys):
    def fn(x):
        print("tracing", 3, [1, 2])
        return x + 1
    f = ag.function(fn)
    capsys.readouterr()
    for _ in range(3):
        f(np.arange(3))
    assert capsys.readouterr().out == "tracing 3 [1, 2]\n"
    assert "ag__.converted(print)('tracing', 3, [1, 2])" in ag.to_code(fn)


def test_converted_code_on_python_values_is_python_print(capsys):
    def fn(x, y):
        print(x, [y, "z"], sep="-", end="!\n")
        print(*range(x), sep=",")
        return x
    assert _outputs(capsys, ag.to_graph(fn), [(3, 2.5)]) == _outputs(capsys, fn, [(3, 2.5)])


def test_errors_match_python_print():
    def bad_sep(x):
        print(x, sep=1)

    def bad_keyword(x):
        print(x, color="red")
    for fn in (bad_sep, bad_keyword):
        with pytest.raises(TypeError) as py:
            fn(np.arange(3))
        with pytest.raises(TypeError) as graph:
            ag.function(fn)(np.arange(3))
        assert str(graph.value) == str(py.value)


def test_other_files_are_refused_at_the_users_line():
    buffer = io.StringIO()

    def to_file(x):
        print(x, file=buffer)
        return x
    with pytest.raises(TypeError, match=r"test_fidelity_print.py:\d+.*sys.stdout or sys.stderr"):
        ag.function(to_file)(np.arange(3))
    to_file(np.arange(3))
    assert buffer.getvalue() == "[0 1 2]\n"


def test_ag_print_renders_nested_values_as_print_does(capsys):
    def fn(x):
        ag.print([x, 1], (x[0],), sep="|")
        return x
    f = ag.function(fn, autograph=False)
    x = np.arange(3)
    capsys.readouterr()
    f(x)
    got = capsys.readouterr().out
    print([x, 1], (x[0],), sep="|")
    assert got == capsys.readouterr().out


def test_graph_with_print_serializes_and_interprets(capsys):
    def fn(x):
        print("x is", [x, 2], file=sys.stderr)
        return x * 2
    x = np.arange(3)
    cf = ag.function(fn).get_concrete_function(x)
    json.dumps(cf.graph.as_graph_def())
    assert "print" in str(cf.graph)
    capsys.readouterr()
    run_graph(cf.graph, [x])
    got = capsys.readouterr().err
    fn(x)
    assert got == capsys.readouterr().err


def constant_text_in_control_flow(x, n):
    if np.sum(x) > 100:
        print("large input")
    else:
        print("small input", [1, "a"], sep=":")
    i = 0
    while i < n:
        print("iteration")
        i = i + 1
    for _ in x:
        print("item", end=";", file=sys.stderr)
    return i


def test_constant_prints_inside_symbolic_control_flow_run_when_python_runs_them(capsys):
    # a Python print there would run once while tracing, also in the untaken branch
    _same_prints(capsys, constant_text_in_control_flow,
                 [(np.arange(3), np.int64(2)), (np.arange(200), np.int64(0)),
                  (np.arange(1), np.int64(3))])


def test_print_to_another_file_inside_symbolic_control_flow_stays_python():
    buffer = io.StringIO()

    def fn(x):
        if x > 0:
            print("positive", file=buffer)
        return x
    ag.function(fn)(np.int64(1))
    assert buffer.getvalue() == "positive\n"  # while tracing, as before
