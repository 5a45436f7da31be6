"""A module written by `autograph convert` costs nothing to import: it loads neither the
runtime nor NumPy (`ag__` is the lean namespace, pyct/lean_namespace.py) until something
needs them, and its functions still take their graph forms in a trace.

Each check runs in a fresh interpreter (what is loaded is the point) and compares the
converted module with the original: plain Python, then eager NumPy against `ag.function`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.cli.runner import ROOT, run_cli

# Python-only code: what a module written for plain Python values does at import time and
# when called (module level, class bodies, decorators, defaults, lambdas, comprehensions)
SOURCE = textwrap.dedent('''\
    import functools

    LIMIT = 4
    TABLE = {k: (k * k if k % 2 else -k) for k in range(LIMIT)}


    def twice(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * 2
        return wrapper


    def collatz_steps(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps


    @twice
    def total(xs, start=sum(range(LIMIT)), key=lambda v: v):
        acc = start
        for x in xs:
            if key(x) > 2 and x != 5:
                acc += x
            elif x < 0 or not x:
                continue
            else:
                acc -= 1
        return acc


    class Counter:
        kinds = [k for k in TABLE if k]
        default = collatz_steps(7)

        def __init__(self, start=0):
            self.value = start

        def bump(self, by=1):
            while by > 0:
                self.value += 1
                by -= 1
            return self.value


    def relu(x):
        if x > 0:
            return x
        return 0.0 * x


    def scaled_sum(x, n):
        acc = 0.0 * x
        for i in range(n):
            acc = acc + relu(x - i)
        return acc


    class Log:
        def __init__(self):
            self.items = [0, 0]
            self.entered = 0

        def __enter__(self):
            self.entered += 1
            return self

        def __exit__(self, *exc):
            return False


    def nested_shapes(xs):
        log = Log()

        def inner(ys):
            out = []
            with log as lg:
                for y in ys:
                    try:
                        assert 0 <= y < 10, y
                        out.append(y)
                        lg.items[1] += y
                    except AssertionError:
                        lg.items[0] += 1
                        if out:
                            out.pop()
            return out, lg.items, [ys][0][-1:], log.entered
        return inner(xs)


    def first_row(table):
        def head(t, n):
            out = t[0:n]
            return out
        return head(table, 1)


    def probe():
        c = Counter(3)
        return [collatz_steps(27), total([1, 3, 5, -2, 0, 9]), c.bump(4), TABLE,
                Counter.kinds, Counter.default, scaled_sum(2.5, 4), relu(-1.0),
                nested_shapes([3, 12, 4, 5, -1, 7]), first_row([[1, 2], [3]])]
''')

LOADED = ("numpy", "runtime", "autograph.operators", "autograph.api", "autograph.impl.api")


def _run(code: str, cwd) -> dict:
    """Run `code` as a script file (ag.function needs its source) in a fresh interpreter:
    the JSON it prints last."""
    (cwd / "driver.py").write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{cwd}")
    out = subprocess.run([sys.executable, str(cwd / "driver.py")], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def modules(tmp_path):
    """(directory, original module name, converted module name)."""
    (tmp_path / "orig_mod.py").write_text(SOURCE)
    result = run_cli("convert", tmp_path / "orig_mod.py", "-o", tmp_path / "conv_mod.py")
    assert result.returncode == 0, result.stderr
    return tmp_path


def test_importing_and_running_a_converted_module_loads_neither_runtime_nor_numpy(modules):
    out = _run(f"""
        import json, sys
        import conv_mod
        after_import = [m for m in {LOADED!r} if m in sys.modules]
        got = conv_mod.probe()
        after_run = [m for m in {LOADED!r} if m in sys.modules]
        import numpy as np  # NumPy alone (a user's) still needs no operators
        arrays = repr(conv_mod.first_row(np.arange(6).reshape(2, 3)))
        after_numpy = [m for m in {LOADED!r} if m in sys.modules]
        import orig_mod
        print(json.dumps({{"import": after_import, "run": after_run,
                          "numpy": after_numpy, "lean": ag__.__name__,
                          "same": repr(got) == repr(orig_mod.probe()) and
                          arrays == repr(orig_mod.first_row(np.arange(6).reshape(2, 3)))}}))
    """, modules)
    assert out == {"import": [], "run": [], "numpy": ["numpy"],
                   "lean": "autograph.pyct.lean_namespace", "same": True}


def test_import_autograph_loads_nothing_and_every_public_name_resolves(modules):
    out = _run(f"""
        import json, sys
        import autograph as ag
        loaded = [m for m in {LOADED!r} if m in sys.modules]
        from autograph import function, to_graph, GradientTape
        names = {{n: type(getattr(ag, n)).__name__ for n in ag.__all__}}
        print(json.dumps({{"loaded": loaded, "names": names,
                          "dir": sorted(set(ag.__all__) - set(dir(ag))),
                          "same": function is ag.function and to_graph is ag.to_graph}}))
    """, modules)
    assert out["loaded"] == []
    assert out["dir"] == [] and out["same"]
    expected = {"function", "to_code", "to_graph", "do_not_convert", "set_loop_options",
                "run_functions_eagerly", "functions_run_eagerly", "print", "TensorSpec",
                "Variable", "GraphModeError", "RetracingWarning", "ConversionError",
                "GradientTape", "save", "load", "dask", "export_onnx", "set_parallel",
                "vmap", "jvp", "hessian", "set_traceback_filtering"}
    assert expected <= set(out["names"])
    assert out["names"]["dask"] == "module" and out["names"]["TensorSpec"] == "type"


def test_a_trace_uses_the_converted_functions_graph_forms(modules):
    # the converted module is imported lean; ag.function then traces a function calling
    # it: `relu`'s `if` on a symbolic value must take its graph form (its Python copy
    # would raise), so one trace serves inputs on both sides of the branch
    out = _run("""
        import json, sys
        import numpy as np
        import conv_mod, orig_mod
        lean = ag__.__name__
        import autograph as ag

        @ag.function
        def f(x):
            return conv_mod.scaled_sum(x, 4) + conv_mod.relu(-x)

        xs = [np.float64(v) for v in (2.5, -1.5, 0.25)]
        got = [float(f(x)) for x in xs]
        want = [float(orig_mod.scaled_sum(x, 4) + orig_mod.relu(-x)) for x in xs]
        print(json.dumps({"lean": lean, "after": ag__.__name__, "got": got, "want": want,
                          "traces": f.tracing_count,
                          "gate": ag__.tracing_anywhere is sys.modules["runtime.core.tracing"].building}))
    """, modules)
    assert out["lean"] == "autograph.pyct.lean_namespace"
    assert out["after"] == "autograph.operators" and out["gate"]
    assert out["got"] == out["want"] and out["traces"] == 1


def test_a_thread_runs_converted_code_while_another_traces(modules):
    # a thread loops over converted code on Python values from before autograph is
    # loaded; meanwhile the main thread loads it and traces through the same module
    out = _run("""
        import json, sys, threading
        import numpy as np
        import conv_mod, orig_mod
        expected = repr(orig_mod.probe())
        lean = ag__.__name__
        stop, seen, errors = threading.Event(), [], []

        def worker():
            try:
                while not stop.is_set():
                    seen.append(repr(conv_mod.probe()) == expected)
            except BaseException as e:
                errors.append(repr(e))

        t = threading.Thread(target=worker)
        t.start()
        import autograph as ag
        got, want = [], []
        for k in range(6):
            @ag.function
            def f(x, k=k):
                return conv_mod.scaled_sum(x, 3) * k + conv_mod.relu(x - k)
            for v in (3.5, -2.0):
                got.append(float(f(np.float64(v))))
                want.append(float(orig_mod.scaled_sum(np.float64(v), 3) * k
                                  + orig_mod.relu(np.float64(v) - k)))
        stop.set()
        t.join()
        print(json.dumps({"lean": lean, "runs": len(seen), "all_same": all(seen),
                          "errors": errors, "graph": got == want}))
    """, modules)
    assert out["lean"] == "autograph.pyct.lean_namespace"
    assert out["errors"] == [] and out["runs"] > 0 and out["all_same"]
    assert out["graph"]


def test_the_runtime_alone_traces_the_converted_functions_graph_forms(modules):
    # no `autograph` entry point: the runtime, imported after the converted module, traces
    # a function that calls it directly; the first trace must already see the operators
    out = _run("""
        import json, sys
        import numpy as np
        import conv_mod, orig_mod
        lean = ag__.__name__
        from runtime import Function
        watching = [type(f).__name__ for f in sys.meta_path].count("_RuntimeWatch")
        f = Function(lambda x: conv_mod.relu(x) + conv_mod.scaled_sum(x, 3), autograph=False)
        xs = [np.float64(v) for v in (2.5, -1.5)]
        got = [float(f(x)) for x in xs]
        want = [float(orig_mod.relu(x) + orig_mod.scaled_sum(x, 3)) for x in xs]
        print(json.dumps({"lean": lean, "after": ag__.__name__, "got": got, "want": want,
                          "traces": f.tracing_count, "watching": watching}))
    """, modules)
    assert out["lean"] == "autograph.pyct.lean_namespace" and out["watching"] == 0
    assert out["after"] == "autograph.operators"
    assert out["got"] == out["want"] and out["traces"] == 1
