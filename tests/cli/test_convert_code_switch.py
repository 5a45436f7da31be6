"""The functions `autograph convert` writes run their Python copy without asking while no
trace is being built, and their converted form in a trace (pyct/code_switch.py): each
top-level function and method has two codes and switches between them when the first
trace starts and the last one ends. Differential: the original module on Python values,
eager NumPy against `ag.function` in a trace.
"""
from __future__ import annotations

import dis
import functools
import textwrap
import threading
import traceback
import types

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module

SOURCE = textwrap.dedent('''\
    import functools


    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)


    def relu(x):
        if x > 0:
            return x
        return 0.0 * x


    def fails(x):
        if x > 1:
            raise ValueError(x)
        return x


    def counts():
        yield 1
        yield 2


    def with_nested(x, k):
        def inner(y):
            if y > k:
                return y - k
            return y + k
        return inner(x)


    def wrapped(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args) + 1
        return wrapper


    @wrapped
    def shifted(x):
        if x > 0:
            return x * 2
        return x


    @functools.lru_cache(maxsize=None)
    def cached(n):
        return n * 3 if n > 2 else n


    class Base:
        def scale(self, x):
            return x * 2


    class Child(Base):
        def scale(self, x):
            if x > 0:
                return super().scale(x) + 1
            return x
''')


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("code_switch")
    source = tmp / "switch_cases.py"
    source.write_text(SOURCE)
    original = {}
    exec(compile(SOURCE, str(source), "exec"), original)
    written, text = converted_module(source, tmp, "switch_written")
    compiled = {}
    for const in compile(text, str(tmp / "switch_written.py"), "exec").co_consts:
        _collect(const, compiled)
    return types.SimpleNamespace(**original), written, text, compiled


def _collect(code, out: dict) -> None:
    if isinstance(code, types.CodeType):
        out.setdefault(code.co_qualname, code)
        for const in code.co_consts:
            _collect(const, out)


def _asks(code: types.CodeType) -> bool:
    """Whether `code` starts by reading `tracing_anywhere` (the question)."""
    first = [i for i in dis.get_instructions(code)
             if i.opname not in ("RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP")][:2]
    return [i.opname for i in first] == ["LOAD_GLOBAL", "LOAD_ATTR"] and \
        first[1].argval == "tracing_anywhere"


def _function(fn):
    return getattr(fn, "__wrapped__", fn)


@pytest.mark.parametrize("name", ["fib", "relu", "fails", "Child.scale", "shifted",
                                  "cached"])
def test_outside_traces_a_written_function_does_not_ask(modules, name):
    original, written, _, compiled = modules
    obj = written
    for part in name.split("."):
        obj = getattr(obj, part)
    fn = _function(obj)
    assert _asks(compiled[name])  # (the code the module holds asks)
    assert not _asks(fn.__code__)
    # the same line table, names and free variables: only the question is skipped
    code = compiled[name]
    assert fn.__code__.co_freevars == code.co_freevars
    assert list(fn.__code__.co_lines()) == list(code.co_lines())


def test_python_values_as_the_original(modules):
    original, written, _, _ = modules
    assert [written.fib(n) for n in range(12)] == [original.fib(n) for n in range(12)]
    assert [written.with_nested(x, 2) for x in (0, 5)] == \
        [original.with_nested(x, 2) for x in (0, 5)]
    assert [written.shifted(x) for x in (-1, 3)] == [original.shifted(x) for x in (-1, 3)]
    assert [written.cached(n) for n in (1, 5)] == [original.cached(n) for n in (1, 5)]
    assert [written.Child().scale(x) for x in (-1, 3)] == \
        [original.Child().scale(x) for x in (-1, 3)]
    assert list(written.counts()) == list(original.counts())


def test_a_trace_runs_the_converted_code_then_the_plain_one_again(modules):
    original, written, _, compiled = modules
    seen = []

    @ag.function
    def f(x):
        seen.append(_asks(written.relu.__code__))
        return written.relu(x) + written.Child().scale(x) + written.shifted(x) + \
            written.with_nested(x, 1.5) + written.fib(6)

    for v in (2.5, -1.5, 0.5):
        x = np.array(v)
        want = original.relu(x) + original.Child().scale(x) + original.shifted(x) + \
            original.with_nested(x, 1.5) + original.fib(6)
        assert float(f(x)) == float(want)
    assert seen and all(seen)  # each trace ran the code that asks
    assert not _asks(written.relu.__code__)


def test_an_error_points_at_the_same_line(modules):
    _, written, text, _ = modules
    with pytest.raises(ValueError) as info:
        written.fails(3)
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    assert frame.name == "fails" and frame.line == "raise ValueError(x)"
    assert text.splitlines()[frame.lineno - 1].strip() == "raise ValueError(x)"


def test_a_decorator_that_copies_the_code_keeps_the_plain_one(modules):
    # documented in docs/sharp_bits.md: a function remade from `f.__code__` outside a
    # trace runs the body as written, which cannot take a symbolic condition
    original, written, _, _ = modules
    remade = types.FunctionType(written.relu.__code__, written.relu.__globals__)
    assert [remade(v) for v in (2.0, -2.0)] == [original.relu(v) for v in (2.0, -2.0)]
    with pytest.raises(TypeError, match="as a Python bool") as info:
        ag.function(_calls(remade))(np.array(1.0))
    assert "switch_written.py" in str(info.value)  # (at the user's line in the copy)


def _calls(fn):
    def calls(x):
        return fn(x)
    return calls


def test_a_thread_on_python_values_while_another_traces(modules):
    original, written, _, _ = modules
    stop, results, errors = threading.Event(), [], []
    want = [original.fib(n) for n in range(10)]

    def worker():
        try:
            while not stop.is_set():
                results.append([written.fib(n) for n in range(10)] == want)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    t = threading.Thread(target=worker)
    t.start()
    try:
        for k in range(5):
            f = ag.function(functools.partial(lambda x, k: written.relu(x - k), k=k))
            for v in (3.5, -2.0):
                assert float(f(np.float64(v))) == float(original.relu(np.float64(v) - k))
    finally:
        stop.set()
        t.join()
    assert errors == [] and results and all(results)
    assert not _asks(written.fib.__code__)


def test_the_known_opcodes_are_this_pythons():
    import opcode
    import sys

    from autograph.pyct.code_switch import KNOWN_OPCODES
    known = KNOWN_OPCODES.get(sys.version_info[:2], {})
    assert known == {name: opcode.opmap[name] for name in known}


@pytest.mark.parametrize("jit", [False, True])
def test_ag_function_over_a_written_function_traces_as_eager(modules, jit):
    original, written, _, _ = modules
    for name, make in (("relu", lambda m: m.relu), ("scale", lambda m: m.Child().scale),
                       ("shifted", lambda m: m.shifted)):
        traced = ag.function(make(written), jit_compile=jit)
        for v in (2.5, -1.5):
            assert float(traced(np.array(v))) == float(make(original)(np.array(v))), name
        assert not _asks(_function(make(written)).__code__)


def test_an_array_made_on_python_values_loads_no_operators(tmp_path):
    # `np.array(...)` in the Python copy is the call as written: the lean `ag__` has no
    # `array_`, and asking the operators for it loaded them and the runtime (~0.1 s)
    import json
    import os
    import subprocess
    import sys

    from tests.cli.runner import ROOT, run_cli
    (tmp_path / "orig_arrays.py").write_text(textwrap.dedent('''\
        import numpy as np


        def identity_power(n):
            if n < 0:
                raise ValueError(n)
            m = np.array([[1, 1], [1, 0]], dtype=int)
            out = np.asarray([[1, 0], [0, 1]])
            for _ in range(n):
                out = out @ m
            return int(out[0, 0])
    '''))
    done = run_cli("convert", tmp_path / "orig_arrays.py", "-o", tmp_path / "conv_arrays.py")
    assert done.returncode == 0, done.stderr
    (tmp_path / "driver.py").write_text(textwrap.dedent('''\
        import json, sys
        import conv_arrays, orig_arrays
        got = [conv_arrays.identity_power(n) for n in range(6)]
        print(json.dumps({"same": got == [orig_arrays.identity_power(n) for n in range(6)],
                          "operators": "autograph.operators" in sys.modules,
                          "runtime": "runtime" in sys.modules}))
    '''))
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}")
    out = subprocess.run([sys.executable, str(tmp_path / "driver.py")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == \
        {"same": True, "operators": False, "runtime": False}


def test_the_lean_namespace_keeps_numpys_array_class_once_numpy_is_loaded(tmp_path):
    # an item read in a generator expression (left as converted in the copy) asks
    # `ag__.ndarray` per item: once NumPy is loaded it is a plain attribute, not a call
    # of the lean namespace's `__getattr__`
    import json
    import os
    import subprocess
    import sys

    from tests.cli.runner import ROOT, run_cli
    (tmp_path / "orig_digits.py").write_text(textwrap.dedent('''\
        TABLE = {str(d): d * d for d in range(10)}


        def digit_squares(n):
            return sum(TABLE[d] for d in str(n))
    '''))
    done = run_cli("convert", tmp_path / "orig_digits.py", "-o", tmp_path / "conv_digits.py")
    assert done.returncode == 0, done.stderr
    (tmp_path / "driver.py").write_text(textwrap.dedent('''\
        import json, sys
        import numpy
        import conv_digits, orig_digits
        got = [conv_digits.digit_squares(n) for n in (0, 7, 1234)]
        lean = sys.modules["autograph.pyct.lean_namespace"]
        print(json.dumps({"same": got == [orig_digits.digit_squares(n) for n in (0, 7, 1234)],
                          "lean": ag__ is lean, "operators": "autograph.operators" in sys.modules,
                          "kept": vars(lean).get("ndarray") is numpy.ndarray}))
    '''))
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}")
    out = subprocess.run([sys.executable, str(tmp_path / "driver.py")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == \
        {"same": True, "lean": True, "operators": False, "kept": True}
