"""Functions whose converted code must mean exactly what the Python means (on Python
values): closures' late binding, `locals()`, scope rules, and constructs that used to
crash the converter. `test_fidelity_compiler.py` runs each original, through
`ag.to_graph`, and from the module `autograph convert` writes for this file.

`CASES` lists (function name, argument tuples).
"""
from __future__ import annotations

import numpy as np

COUNTER = 0


# -- closures: late binding ------------------------------------------------------------------
def lambdas_in_for(n):
    fs = []
    for i in range(n):
        fs.append(lambda v: v + i)
    return [f(2.0) for f in fs]


def defs_in_for(n):
    fs = []
    for i in range(n):
        def g(v):
            return v * i
        fs.append(g)
    return [f(3) for f in fs]


def lambdas_in_while_with_break(n):
    fs = []
    k = 0
    while k < 10:
        k += 1
        fs.append(lambda: k * 10)
        if k >= n:
            break
    return [f() for f in fs], k


def closure_before_loop_called_inside(n):
    out = []

    def g():
        return i * 2
    for i in range(n):  # noqa: B007 - g reads it
        out.append(g())
    return out


def closure_in_branch_sees_later_value(x):
    if x > 0:
        g = lambda: y  # noqa: E731
    else:
        g = lambda: -y  # noqa: E731
    y = 10
    return g()


def closures_in_nested_loops(n):
    fs = []
    for i in range(n):
        for j in range(2):
            if (i + j) % 2:
                fs.append(lambda: (i, j))
    return [f() for f in fs]


def closure_over_enumerate_targets(xs):
    fs = []
    for i, v in enumerate(xs):
        fs.append(lambda: (i, v))
    return [f() for f in fs]


def nonlocal_counter_in_loop(n):
    total = 0

    def add(v):
        nonlocal total
        total += v
    for i in range(n):
        add(i)
        if i % 2:
            total += 100
    return total


def closure_over_parameter_rebound_in_loop(x, n):
    get = lambda: x  # noqa: E731
    seen = []
    for _ in range(n):
        x = x + 1
        seen.append(get())
    return seen, get()


def class_in_loop_reads_loop_variable(n):
    classes = []
    for i in range(n):
        class K:
            def value(self):
                return i
        classes.append(K)
    return [c().value() for c in classes]


# -- locals() / vars() / dir() ---------------------------------------------------------------
def locals_after_branch(x):
    if x > 0:
        y = x * 2
    else:
        z = -x  # noqa: F841
    return sorted(locals())


def locals_in_loop_body(n):
    snapshots = []
    acc = 0
    for i in range(n):
        acc += i
        snapshots.append(dict(sorted(locals().items(), key=lambda kv: kv[0])))
    return [{k: v for k, v in s.items() if k != "snapshots"} for s in snapshots]


def vars_and_dir(x, n):
    while n > 0:
        n -= 1
        if n == 1:
            w = x  # noqa: F841
    return sorted(vars()), dir()


# -- scope rules -----------------------------------------------------------------------------
def global_inside_block(x):
    if x > 0:
        global COUNTER
        COUNTER += x
    return COUNTER


class Tree:
    def __init__(self, val, left=None, right=None):
        self.val, self.left, self.right = val, left, right


def best_bst_sum(root):
    # a recursive call inside a branch updates the nonlocal `best` meanwhile
    best = 0

    def solve(node):
        nonlocal best
        if not node:
            return True, 10 ** 9, -10 ** 9, 0
        lv, lmin, lmax, ls = solve(node.left)
        rv, rmin, rmax, rs = solve(node.right)
        if lv and rv and lmax < node.val < rmin:
            total = ls + rs + node.val
            best = max(best, total)
            return True, min(lmin, node.val), max(rmax, node.val), total
        return False, -1, -1, -1

    solve(root)
    return best


def bst_sums():
    return [best_bst_sum(Tree(4, Tree(3, Tree(1), Tree(2)))),
            best_bst_sum(Tree(-4, Tree(-2), Tree(-5))),
            best_bst_sum(Tree(2, Tree(1), Tree(3)))]


def deepest(n):
    # the same with a global (the harness resets COUNTER before each run) updated by the
    # recursion inside the branch
    global COUNTER
    if n > 0:
        deepest(n - 1)
        COUNTER = max(COUNTER, n) + 1
    return COUNTER


def walrus_in_conditions(px, py, grid):
    return [(x, y) for a in [(0, 1), (1, 0), (0, -1), (-1, 0)]
            if (0 <= (x := px + a[1]) < len(grid[0]) and 0 <= (y := py + a[0]) < len(grid)
                and grid[y][x] == 0)]


def subscript_store_order():
    # Python evaluates `v` before `i` in `xs[i] = v`, and `i` before `v` in `xs[i] += v`
    log = []

    def note(tag, v):
        log.append(tag)
        return v

    xs = [0, 0, 0]
    xs[note("index", 1)] = note("value", 5)
    xs[note("aug index", 2)] += note("aug value", 1)
    return xs, log


def cached_chain(n):
    """A memoised recursion (functools.cache around converted code): its depth is checked
    against the original's by test_fidelity_compiler."""
    import functools

    @functools.cache
    def rest(i):
        if i >= n:
            return 0
        return 1 + rest(i + 1)

    return rest(0)


def annotated_cache_read_by_a_closure(limit):
    # after an early return the rest is a generated branch that declares `cache` nonlocal
    if limit <= 0:
        return []
    cache: dict[int, int] = {}

    def square(d):
        if d not in cache:
            cache[d] = d * d
        return cache[d]

    out = []
    for n in range(limit):
        out.append(square(n % 3))
    return out, len(cache)


def bare_annotation_before_loop(xs):
    best: int
    for v in xs:
        if v > 0:
            best = v
    return best


def walrus_in_while_test(xs):
    i = 0
    out = 0
    while (n := xs[i]) > 0:
        out += n
        i += 1
    return out, n


def walrus_in_while_test_with_else(xs, stop):
    i = 0
    while (v := xs[i]) != 0:
        i += 1
        if v == stop:
            break
    else:
        return "ended", i, v
    return "broke", i, v


class Private:
    def __init__(self):
        self.__xs = [1, 2, 3]

    def total(self, scale):
        __k = scale
        s = 0
        for v in self.__xs:
            if v > 1:
                s += v * __k
        return s


def private_total(scale):
    return Private().total(scale)


def _keywords(**kw):
    return sorted(kw.items())


class PrivateKeywords:
    """A keyword argument in a call is not a name: the compiler leaves `__tag=` as written
    (a parameter `__p` is mangled, so `self.mangled(__p=...)` is a TypeError)."""

    def passed(self, n):
        out = []
        for i in range(n):
            if i % 2:
                out.append(_keywords(__tag=i, plain=-i))
        return out, dict(__x=n)

    def mangled(self, __p=0):
        return __p

    def call_mangled(self, n):
        if n > 0:
            return self.mangled(__p=n)
        return self.mangled(n)


def private_keywords(n):
    return PrivateKeywords().passed(n)


def private_keyword_for_a_mangled_parameter(n):
    return PrivateKeywords().call_mangled(n)


def function_defined_in_both_branches(x, n):
    if x > 0:
        def g(v):
            return v + n
    else:
        def g(v):
            return v - n
    s = 0
    for i in range(3):
        s += g(i)
    return s


# -- constructs that crashed the converter ---------------------------------------------------
def raise_then_loop(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    elif x > 10:
        return -1
    s = 0
    for i in range(x):
        s += i
    return s


def elif_return_then_loop(x):
    if x < 0:
        return -1
    elif x == 0:
        raise ZeroDivisionError("zero")
    s = 0
    while s < x:
        s += 3
    return s


class Obj:
    pass


def early_return_then_attributes(o, x):
    if x > 0:
        return
    o.a = 1
    o.b = 2


def set_attributes(x):
    o = Obj()
    early_return_then_attributes(o, x)
    return sorted(vars(o).items())


def int_with_base(s):
    return int(s, base=2) + int(s[:1]) + int("7", 8)


def generated_names_as_parameters(v1, loop_body, if_true, ag__, retval_, itr=1):
    s = 0
    for i in range(v1):
        if i > 1:
            s += i + loop_body + if_true + ag__ + retval_ + itr
    return s


def break_return_raise_in_loop(xs, n):
    # (found by the fuzzer) the branch that raises passed `break_` through as state,
    # reading it before any assignment
    for e in xs:
        if e > 5:
            break
        if e == n:
            return e
        raise ValueError(f"bad {n}")
    return -1


def slice_named_by_the_user(x, slice):  # noqa: A002 - the generated slice() is not this
    if slice > 0:
        x[1:3] = slice
    return x


def numpy_alias_write(x):
    y = x
    for i in range(2):
        if y[i] > 0:
            y[i] = -y[i]
    return x


CASES = [
    ("lambdas_in_for", [(3,), (0,)]),
    ("defs_in_for", [(3,)]),
    ("lambdas_in_while_with_break", [(3,), (20,)]),
    ("closure_before_loop_called_inside", [(3,)]),
    ("closure_in_branch_sees_later_value", [(1,), (-1,)]),
    ("closures_in_nested_loops", [(3,)]),
    ("closure_over_enumerate_targets", [([5, 6, 7],)]),
    ("nonlocal_counter_in_loop", [(4,)]),
    ("closure_over_parameter_rebound_in_loop", [(1, 3)]),
    ("class_in_loop_reads_loop_variable", [(3,)]),
    ("locals_after_branch", [(1,), (-1,)]),
    ("locals_in_loop_body", [(3,)]),
    ("vars_and_dir", [(1.5, 3)]),
    ("global_inside_block", [(2,), (-1,)]),
    ("bare_annotation_before_loop", [([0, 3, 0, 5],), ([0],)]),
    ("annotated_cache_read_by_a_closure", [(5,), (0,)]),
    ("bst_sums", [()]),
    ("subscript_store_order", [()]),
    ("deepest", [(4,)]),
    ("walrus_in_conditions", [(0, 0, [[0, 0], [0, 1]]), (1, 1, [[0, 0], [0, 0]])]),
    ("walrus_in_while_test", [([1, 2, 0],)]),
    ("walrus_in_while_test_with_else", [([1, 2, 3, 0], 2), ([1, 2, 3, 0], 9)]),
    ("private_total", [(2,)]),
    ("private_keywords", [(3,), (0,)]),
    ("private_keyword_for_a_mangled_parameter", [(2,), (-1,)]),
    ("function_defined_in_both_branches", [(1, 2), (-1, 2)]),
    ("raise_then_loop", [(3,), (-2,), (11,)]),
    ("elif_return_then_loop", [(7,), (0,), (-1,)]),
    ("set_attributes", [(1,), (0,)]),
    ("int_with_base", [("101",)]),
    ("generated_names_as_parameters", [(4, 1, 2, 3, 4)]),
    ("break_return_raise_in_loop", [([1, 2], 1), ([1, 2], 3), ([9], 0)]),
    ("slice_named_by_the_user", [(np.zeros(4), 2.0)]),
    ("numpy_alias_write", [(np.array([1.0, -2.0, 3.0]),)]),
]
