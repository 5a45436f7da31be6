"""Functions whose Python meaning converted code must keep exactly (issue 21's numbered
differences): each runs as written, through `ag.to_graph` and from a module written by
`autograph convert`, and test_fidelity_python_semantics21.py compares the outcomes.

Results are compared by value, so what depends on the module (its name, its file) is
returned as a comparison with this module's own `__name__` / `__file__`.

>>> 1 + 1
2
"""
import collections
import dataclasses
import doctest
import functools
import sys
import typing
import warnings
import weakref
from keyword import *  # noqa: F403  (item 9: `super()` in a module with `import *`)

import autograph as ag

Y = "global"


# -- 2: eval / exec / locals() / vars() see the function's variables -----------------------
def eval_sees_locals(x):
    Y = x + 1  # noqa: N806, F841 (read by eval; shadows the global, as in the issue)
    if x > 0:
        return eval("Y * 2")
    return eval("x")


def exec_sees_locals(x):
    out = []
    for i in range(2):  # noqa: B007 (read by exec)
        exec("out.append(i + x)")
    return out


def eval_sees_enclosing_variables(x):
    scale = 3
    unseen = 4  # noqa: F841 (inner does not capture it: eval does not see it either)

    def inner(v):
        assert scale
        if v > 0:
            if v > 1:
                return eval("v * scale + unseen")
            return eval("v * scale")
        return eval("Y")
    return inner(x), inner(-x)


def eval_with_namespaces_given(x):
    if x > 0:
        return eval("x + 1", {"x": 10})
    return eval("x", {}, {"x": -1})


def vars_and_locals_in_a_loop(x):
    seen = []
    for i in range(x):  # noqa: B007 (seen by vars)
        seen.append(sorted(vars()))
    return seen, sorted(locals())


# -- 3: class bodies nested in a converted function -----------------------------------------
def class_body_locals(x):
    class A:
        a = x
        names = sorted(locals())
        keys = sorted(vars())
    return A.names, A.keys, A.a


def class_defined_in_a_branch(x):
    if x > 0:
        class A:
            v = x * 2
    else:
        class A:
            v = -x
    return A.v, A.__name__, sorted(vars(A))


def super_in_a_nested_class_whose_first_parameter_is_not_self(x):
    class B:
        def m(self, v):
            return v + 1

    class C(B):
        def m(this, v):
            if v > 0:
                return super().m(v) * 10
            return super().m(v)
    return C().m(x), C().m(-x)


def metaclass_new_calls_super(x):
    class Meta(type):
        def __new__(mcls, name, bases, ns):
            ns["made_by"] = mcls.__name__
            return super().__new__(mcls, name, bases, ns)

    class K(metaclass=Meta):
        pass
    return type(K).__name__, K.made_by


def closure_mutation_in_methods(x):
    count = [0]
    n = 0

    class Counter:
        def bump(self, k):
            nonlocal n
            for _ in range(k):
                n += 1
                count[0] += 1
            return n
    c = Counter()
    c.bump(x)
    return n, count, c.bump(1)


class Base:
    def describe(self, v):
        return f"base {v}"


class Outer(Base):
    def make(self, v):
        # a class nested in a method: its methods' `super()` is about their own class
        class Inner(Base):
            def describe(self, w):
                if w > 0:
                    return "inner " + super().describe(w)
                return super().describe(w)
        if v > 0:
            return Inner().describe(v), super().describe(v)
        return Inner().describe(v), "none"


def nested_class_method(v):
    return Outer().make(v)


# -- 4: callees that read their caller's frame see the user's function ---------------------
@ag.do_not_convert
def deprecated():
    warnings.warn("old", DeprecationWarning, stacklevel=2)
    caller = sys._getframe(1)
    return caller.f_code.co_name, caller.f_lineno


def frame_readers(x):
    P = collections.namedtuple("P", "a b")  # noqa: N806
    T = typing.TypeVar("T")  # noqa: N806
    UserId = typing.NewType("UserId", int)  # noqa: N806
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        caller, line = deprecated()
    w = caught[0]
    found = doctest.DocTestFinder().find(sys.modules[__name__])
    suite = doctest.DocTestSuite()
    return (P.__module__ == __name__, T.__module__ == __name__, UserId.__module__ == __name__,
            w.filename == __file__, w.lineno == line, caller, len(found) > 0,
            suite.countTestCases() == len([t for t in found if t.examples]),
            sys._getframe(0).f_globals["__name__"] == __name__, x)


def whose_caller():
    # converted too: its caller is the converted function itself, no wrapper between
    caller = sys._getframe(1)
    return caller.f_code.co_name, caller.f_globals["__name__"] == __name__, caller.f_lineno


def warns_its_caller():
    warnings.warn("mind", UserWarning, stacklevel=2)
    return sys._getframe(1).f_lineno


def converted_callees_see_their_caller(x):
    name, same_module, _ = whose_caller()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warned_line = warns_its_caller()
    w = caught[0]
    return name, same_module, w.filename == __file__, w.lineno == warned_line, x


# -- 6: exec / compile from converted code inherit no future flags -----------------------------
def exec_annotations(x):
    ns = {}
    if x > 0:
        exec("def g(a: int) -> str: pass", ns)
    else:
        ns["g"] = eval(compile("lambda: 0", "<text>", "eval"))
        return "compiled"
    return ns["g"].__annotations__


# -- 7: builtins are looked up when the call runs --------------------------------------------
def uses_builtins(xs):
    print(f"{len(xs)} items")
    if len(xs) > 1:
        return len(xs), abs(-len(xs)), sum(xs)
    return len(xs), 0, 0


# -- 8: any callable: unhashable ones, cmp_to_key objects, dead weak references ------------
@dataclasses.dataclass
class Adder:  # eq=True without frozen: instances are unhashable
    k: int

    def __call__(self, v):
        if v > 0:
            return v + self.k
        return v - self.k


class Thing:
    pass


def odd_callables(x):
    add = Adder(2)
    key = functools.cmp_to_key(lambda a, b: a - b)
    t = Thing()
    ref = weakref.ref(t)
    alive = ref() is t
    del t
    return add(x), add(-x), key(x) < key(x + 1), alive, ref()


# -- 9: super() in a module with `import *` ------------------------------------------------
class Child(Base):
    def describe(self, v):
        if v > 0:
            return "child " + super().describe(v)
        return super().describe(v)


def child_describe(v):
    return Child().describe(v), iskeyword("if")  # noqa: F405


# -- 10: functions without a source file are called as is, without a warning --------------
_made = {}
exec("def made_by_exec(v):\n    return v * 2\n", _made)
made_by_exec = _made["made_by_exec"]


@dataclasses.dataclass
class Point:
    x: int
    y: int


def no_source_callees(v):
    P = collections.namedtuple("P", "a b")  # noqa: N806
    if v > 0:
        return made_by_exec(v), repr(P(v, 2)), Point(v, 1) == Point(v, 1)
    return made_by_exec(-v), repr(P(1, v)), repr(Point(1, v))


CASES = [
    (eval_sees_locals, (3,)), (eval_sees_locals, (-1,)), (exec_sees_locals, (5,)),
    (eval_sees_enclosing_variables, (2,)),
    (eval_sees_enclosing_variables, (1,)), (eval_with_namespaces_given, (1,)),
    (eval_with_namespaces_given, (-1,)), (vars_and_locals_in_a_loop, (2,)),
    (class_body_locals, (4,)), (class_defined_in_a_branch, (1,)),
    (class_defined_in_a_branch, (-2,)),
    (super_in_a_nested_class_whose_first_parameter_is_not_self, (3,)),
    (metaclass_new_calls_super, (0,)), (closure_mutation_in_methods, (3,)),
    (nested_class_method, (2,)), (nested_class_method, (-2,)),
    (frame_readers, (1,)), (converted_callees_see_their_caller, (1,)), (exec_annotations, (1,)), (exec_annotations, (-1,)),
    (uses_builtins, ([1, 2, 3],)), (uses_builtins, ([4],)), (odd_callables, (3,)),
    (child_describe, (2,)), (child_describe, (-2,)), (no_source_callees, (3,)),
    (no_source_callees, (-3,)),
]
