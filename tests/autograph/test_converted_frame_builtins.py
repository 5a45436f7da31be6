"""Converted code behaves as the original where CPython's own language tests
(`Lib/test`, run through `autograph convert`) found it did not:

- `exec` / `eval` / `compile` read their caller's frame (globals, compiler flags such as
  `from __future__ import annotations`): they are called directly, not through
  `converted_call`, whose own frame they would read (this file has no
  `from __future__ import annotations`, so that `exec` here makes real annotations);
- calling a dead `weakref.ref` (it returns None; hashing it raises);
- `super()` inside a method of a class defined in a converted function is that
  method's own (not rewritten with the enclosing function's first argument);
- `locals()` in a class body or a lambda is that namespace, not the function's;
- parameter annotations naming a class local to the enclosing function.

Each case runs as the original, through `ag.to_graph` and through the output of
`autograph convert`, and compares the results."""
import gc
import weakref

import pytest

import autograph as ag
from tests.helpers import converted_module

SCALE = 3


def exec_keeps_annotations_as_objects():
    ns: dict = {}
    exec("x: int = 5\n", ns, ns)
    return ns["__annotations__"]["x"], ns["x"]


def eval_reads_the_modules_globals(k):
    return eval("SCALE * k", globals(), {"k": k})


def compile_keeps_its_own_flags():
    code = compile("y: float = 1.0", "<cell>", "exec")
    ns: dict = {}
    exec(code, ns)
    return ns["__annotations__"]["y"]


class _Obj:
    pass


def dead_reference_gives_none():
    o = _Obj()
    ref = weakref.ref(o)
    alive = ref() is o
    del o
    gc.collect()
    return alive, ref() is None


class _Base(Exception):
    pass


def super_in_a_nested_class(code):
    class Sub(_Base):
        def __new__(cls, message):
            obj = super().__new__(cls, message)
            obj.code = code
            return obj

        def describe(self):
            return f"{super().__str__()}:{self.code}"
    return Sub("m").describe()


class _Maker:
    def make(self, code):  # (a method: `self` is its first argument)
        class Sub(_Base):
            def __new__(cls, message):
                obj = super().__new__(cls, message)
                obj.code = code
                return obj
        return Sub("m").code


def super_in_a_class_a_method_makes(code):
    return _Maker().make(code)


def annotations_naming_a_local_class(v):
    class Local:
        pass

    def inner(x: Local, *rest: Local, k: Local = None, **kw: Local) -> Local:
        if x > 0:
            return x
        return -x
    return ag.to_graph(inner)(v), inner.__annotations__["x"] is Local


def locals_in_a_class_body_is_the_class_namespace():
    x = 42

    class X:
        locals()["x"] = 43
        y = x
    return X.y, x, (lambda q: sorted(locals()))(1)


CASES = [
    (locals_in_a_class_body_is_the_class_namespace, ()),
    (super_in_a_class_a_method_makes, (5,)), (annotations_naming_a_local_class, (-2,)),
    (exec_keeps_annotations_as_objects, ()), (eval_reads_the_modules_globals, (4,)),
    (compile_keeps_its_own_flags, ()), (dead_reference_gives_none, ()),
    (super_in_a_nested_class, (7,)),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_frame_builtins")[0]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_converted_matches_python(fn, args, converted):
    want = fn(*args)
    assert ag.to_graph(fn)(*args) == want
    assert getattr(converted, fn.__name__)(*args) == want
