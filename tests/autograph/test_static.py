"""`autograph.impl.static`: converting a module's source without importing it.

The static conversion must give exactly the code the run-time conversion gives for the
same function (what a name refers to is decided from the module's text instead of its
live globals), and the module it writes must keep everything outside functions.
"""
from __future__ import annotations

import re
import textwrap

import pytest

from autograph.impl import api
from autograph.impl.static import INSTALL_LINE, Module, convert_module_source
from autograph.pyct import parser
from tests.autograph import corpus, test_golden


def _runtime_code(fn) -> str:
    return parser.unparse(api._convert_node(fn, True)[0])


@pytest.mark.parametrize("module, functions", [
    (corpus, [c.fn for c in corpus.CASES]),
    (test_golden, test_golden.CASES),
], ids=["corpus", "golden"])
def test_static_code_is_the_runtime_code(module, functions):
    with open(module.__file__) as f:
        text = f.read()
    for fn in functions:
        static = Module(text, module.__file__).function_code(fn.__qualname__)
        assert static == _runtime_code(fn), fn.__qualname__


def _convert(text: str) -> str:
    """The module `autograph convert` writes, each call of a name in the short form
    `ag.to_code` prints (`ag__.converted(f)`: what these tests check is which calls are
    routed; the written module takes `f` inline outside traces, `impl/module_paths.py`)."""
    out = convert_module_source(textwrap.dedent(text), "m.py")
    return re.sub(r"\((\w+) if not ag__\.tracing_anywhere else ag__\.converted\(\1\)\)",
                  r"ag__.converted(\1)", out)


def test_import_goes_after_the_docstring_and_future_imports():
    out = _convert('''\
        #!/usr/bin/env python
        """Doc."""
        from __future__ import annotations
        import os

        def f(x):
            return x
        ''')
    lines = out.splitlines()
    assert lines[:3] == ["#!/usr/bin/env python", '"""Doc."""',
                         "from __future__ import annotations"]
    assert lines[4] == INSTALL_LINE.rstrip() and lines[5:7] == ["", "import os"]
    out = _convert("# header comment\nimport os\n\ndef f(x):\n    return x\n")
    assert out.splitlines()[0] == "# header comment"
    assert INSTALL_LINE.rstrip() in out.splitlines()[2]


def test_names_resolve_from_the_module_text():
    out = _convert('''\
        import numpy as np
        from numpy import sum as total
        import not_a_loaded_module as other
        len = 3

        def f(x, xs):
            a = np.abs(x) + total(xs)
            b = other.helper(x)
            c = abs(x)
            return a, b, c, len
        ''')
    assert "np.abs(x) + ag__.converted(total)(xs)" in out  # a module's attribute is
    # resolved; a global name (which may be rebound) is decided at run time
    assert "ag__.converted(other.helper)(x)" in out      # unknown: decided at run time
    assert "ag__.converted(abs)(x)" in out                    # a builtin


def test_a_rebound_builtin_is_not_a_builtin():
    out = _convert('''\
        def len(x):
            return 0

        def f(xs):
            return len(xs)
        ''')
    assert "ag__.converted(len)(xs)" in out and "ag__.len_" not in out


def test_star_import_makes_every_name_unknown():
    out = _convert('''\
        from os.path import *

        def f(x):
            return abs(x)
        ''')
    assert "ag__.converted(abs)(x)" in out


def test_functions_the_runtime_leaves_alone_are_left_verbatim():
    text = '''\
        import autograph as ag

        @ag.do_not_convert
        def plain(x):
            if x:   # a comment that survives
                return 1
            return 2

        @ag.function(autograph=False)
        def untraced(x):
            return x if x else 0

        def gen(n):
            while n:
                yield n

        async def coro(x):
            return x

        def uses(x):
            return plain(x)
        '''
    out = _convert(text)
    for keep in ("    if x:   # a comment that survives\n", "    return x if x else 0\n",
                 "        yield n\n", "async def coro(x):\n"):
        assert keep in out
    assert out.count("@ag__.autograph_artifact") == 1
    # a global function may be rebound: `ag__.converted` calls `plain` as is at run time
    assert "return ag__.converted(plain)(x)" in out


def test_indented_definitions_keep_their_docstrings():
    text = '''\
        class A:
            if True:
                def f(self, x):
                    """Line one.

                    Line two."""
                    if x:
                        return 1
                    return 2
        '''
    out = _convert(text)
    namespace: dict = {}
    exec(compile(textwrap.dedent(text), "m.py", "exec"), namespace)
    converted: dict = {}
    exec(compile(out, "m_ag.py", "exec"), converted)
    assert converted["A"].f.__doc__ == namespace["A"].f.__doc__
    assert converted["A"]().f(1) == 1 and converted["A"]().f(0) == 2
    assert "        @ag__.autograph_artifact\n        def f(self, x):\n" in out


def test_tab_indented_source():
    text = "class A:\n\tdef f(self, x):\n\t\tif x:\n\t\t\treturn 1\n\t\treturn 2\n"
    out = convert_module_source(text, "t.py")
    namespace: dict = {}
    exec(compile(out, "t.py", "exec"), namespace)
    assert namespace["A"]().f(1) == 1 and namespace["A"]().f(0) == 2


def test_zero_argument_super_works_inside_generated_functions():
    text = '''\
        class Base:
            def value(self, x):
                return x

        class Child(Base):
            def value(self, x):
                if x > 0:
                    return super().value(x) + 1
                return super().value(-x)
        '''
    out = _convert(text)
    namespace: dict = {}
    exec(compile(out, "m.py", "exec"), namespace)
    assert namespace["Child"]().value(2) == 3 and namespace["Child"]().value(-4) == 4


def test_a_method_may_rebind_the_class_cell():
    """`nonlocal __class__` is legal in a method (CPython's test_super does it): the
    converted method compiles and behaves as the original."""
    text = textwrap.dedent('''\
        class Base:
            def who(self):
                return "Base"

        class Child(Base):
            def rebind(self, to):
                nonlocal __class__
                before = __class__
                __class__ = to
                return before.__name__

            def who(self):
                return super().who() + "/Child"
        ''')
    outcomes = []
    for source in (text, convert_module_source(text, "m.py")):
        namespace: dict = {}
        exec(compile(source, "m.py", "exec"), namespace)
        child = namespace["Child"]()
        first = [child.who(), child.rebind(namespace["Base"])]
        try:
            first.append(child.who())
        except AttributeError as e:  # (super(Base, child) has no `who`)
            first.append(str(e))
        outcomes.append(first)
    assert outcomes[0] == outcomes[1]


def test_a_module_without_functions_is_unchanged():
    text = "X = 1  # nothing to convert\n"
    assert convert_module_source(text, "m.py") == text
    assert convert_module_source("", "m.py") == ""


def test_syntax_errors_are_raised_before_anything_is_converted():
    with pytest.raises(SyntaxError) as e:
        convert_module_source("def f():\n    nonlocal y\n", "m.py")
    assert e.value.lineno == 2


def test_form_feeds_and_crlf_line_ends_keep_line_numbers():
    text = "import os\r\n\x0c\r\ndef f(x):\r\n    if x:\r\n        return 1\r\n    return 2\r\n"
    out = convert_module_source(text, "m.py")
    namespace: dict = {}
    exec(compile(out, "m.py", "exec"), namespace)
    assert namespace["f"](1) == 1 and namespace["f"](0) == 2
    assert out.count("def f(x):") == 1 and "return 2\r\n" not in out


def test_bindings_inside_top_level_blocks():
    out = _convert('''\
        try:
            import numpy as np
        except ImportError:
            np = None

        if True:
            def helper(xs):
                len = 0           # a local of helper: not a module-level `len`
                return len

        for abs in range(1):      # rebinds the builtin at module level
            pass

        def f(x, xs):
            return np.exp(x), len(xs), abs(x), helper(xs)
        ''')
    assert "ag__.converted(np.exp)(x)" in out   # np is bound twice: unknown
    assert "ag__.converted(len)(xs)" in out           # `len` is still the builtin
    assert "ag__.converted(abs)(x)" in out       # `abs` is not
