"""`autograph show SRC.py::NAME`: one function's converted code, statically."""
from __future__ import annotations

import textwrap

import pytest

from tests.cli.runner import assert_user_error, import_path, run_cli

SOURCE = textwrap.dedent('''\
    import numpy as np


    def simple_relu(x):
        if np.greater(x, 0):
            return x
        else:
            return 0


    class Model:
        def step(self, x):
            total = 0
            for i in range(x):
                total += i
            return total

        class Inner:
            def run(self, n):
                while n > 1:
                    n = n // 2
                return n


    def gen(n):
        yield n
    ''')


@pytest.fixture
def src(write):
    return write("model.py", SOURCE)


def test_show_prints_the_converted_function(src):
    result = run_cli("show", f"{src}::simple_relu")
    assert result.returncode == 0, result.stderr
    assert result.stdout == textwrap.dedent('''\
        def simple_relu(x):
            cond = np.greater(x, 0)
            if cond.__class__ is bool or not ag__.symbolic(cond):
                if cond:
                    return x
                else:
                    return 0
            else:
                def if_true():
                    return x
                def if_false():
                    return 0
                return ag__.if_stmt(cond, if_true, if_false)
        ''')


def test_show_matches_to_code(src):
    """The static conversion gives the code ag.to_code gives for the imported function."""
    import autograph as ag

    module = import_path(src)
    for name, fn in (("simple_relu", module.simple_relu), ("Model.step", module.Model.step),
                     ("Model.Inner.run", module.Model.Inner.run)):
        result = run_cli("show", f"{src}::{name}")
        assert result.returncode == 0, result.stderr
        assert result.stdout == ag.to_code(fn) + "\n"


def test_show_a_method(src):
    result = run_cli("show", f"{src}::Model.step")
    assert result.returncode == 0
    assert result.stdout.startswith("def step(self, x):\n")
    assert "iterable = ag__.converted(range)(x)" in result.stdout
    assert "ag__.for_stmt(iterable" in result.stdout


def test_show_a_generator_says_it_is_left_as_is(src):
    result = run_cli("show", f"{src}::gen")
    assert result.returncode == 3  # left as Python, as `autograph convert` says it
    assert result.stdout == "def gen(n):\n    yield n\n"
    assert "generator" in result.stderr


def test_an_unknown_name_is_a_one_line_error_listing_the_names(src):
    err = assert_user_error(run_cli("show", f"{src}::nope"), one_line=True)
    assert "'nope'" in err and "simple_relu, Model.step, Model.Inner.run" in err
    err = assert_user_error(run_cli("show", f"{src}::Model.nope"), one_line=True)
    assert "'Model.nope'" in err


@pytest.mark.parametrize("target", ["{src}", "{src}::", "::f", "{src}::not-a-name"])
def test_a_malformed_target_is_a_usage_error(src, target):
    err = assert_user_error(run_cli("show", target.format(src=src)), code=2, one_line=True)
    assert "autograph show: error:" in err


def test_a_missing_file_is_a_one_line_error(tmp_path):
    err = assert_user_error(run_cli("show", f"{tmp_path / 'missing.py'}::f"), one_line=True)
    assert "missing.py: no such file" in err


def test_a_syntax_error_points_at_the_line(tmp_path, write):
    write("bad.py", "def f(x):\n    return x +\n")
    err = assert_user_error(run_cli("show", "bad.py::f", cwd=tmp_path))
    assert err.startswith("bad.py:2:") and "syntax error" in err
    assert err.splitlines()[1].strip() == "return x +"


def test_show_converts_only_what_it_shows(write):
    """A function that cannot be converted does not stop `show` on another one."""
    src = write("m.py", "def f(x):\n    return -x\n\ndef g(n):\n    while n > 0:\n"
                        "        ag.set_loop_options(3)\n        n -= 1\n    return n\n")
    result = run_cli("show", f"{src}::f")
    assert result.returncode == 0 and result.stdout == "def f(x):\n    return -x\n"
    err = assert_user_error(run_cli("show", f"{src}::g"))
    assert "cannot convert: set_loop_options() takes keyword arguments only" in err
