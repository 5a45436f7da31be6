"""The differential corpus: functions run three ways by test_corpus.py.

Each `@case(...)` lists argument sets (NumPy values). test_corpus.py runs every function
(1) as the original Python on Python values (NumPy scalars turned into Python numbers),
(2) converted (`ag.to_graph`) on the same Python values, and (3) as `ag.function` on the
NumPy values, so every condition that depends on an argument is symbolic; all argument
sets of a case share dtypes and shapes, so (3) must trace exactly once.
`static=` names arguments passed as the same Python value in every run (not symbolic).
"""
from __future__ import annotations

import contextlib

import numpy as np
from numpy import stack as np_stack

import autograph as ag

CASES: list = []


class Case:
    def __init__(self, fn, arg_sets, static=(), graph=True, escapes=None):
        self.fn, self.arg_sets, self.static, self.graph = fn, arg_sets, set(static), graph
        # the place in Python state where the traced function stores a symbolic value:
        # as a graph it fails with the escape check's error naming it (test_corpus.py)
        self.escapes = escapes

    @property
    def name(self) -> str:
        return self.fn.__name__


def case(*arg_sets, static=(), graph=True, escapes=None):
    def deco(fn):
        CASES.append(Case(fn, [a if isinstance(a, tuple) else (a,) for a in arg_sets],
                          static, graph and escapes is None, escapes))
        return fn
    return deco


i64, f32, f64 = np.int64, np.float32, np.float64
V = np.array([3.0, -1.0, 4.0, -1.5, 5.0], np.float32)
W = np.array([-2.0, 7.0, 1.0, 8.0, -3.0], np.float32)
M = np.array([[1, 2, 3], [4, 50, 6], [7, 8, 90]], np.int64)
M2 = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int64)


# -- if / elif / else -----------------------------------------------------------------------
@case(f32(3.0), f32(-2.0), f32(0.0))
def relu(x):
    if x > 0:
        return x
    return 0


@case(f32(3.0), f32(-2.0))
def relu_assign(x):
    if x > 0:
        y = x
    else:
        y = 0.0
    return y


@case(i64(5), i64(-5), i64(0))
def sign(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


@case(f32(1.0), f32(5.0), f32(15.0), f32(-3.0))
def bucket(x):
    if x < 0:
        return -1
    elif x < 2:
        return 0
    elif x < 10:
        return 1
    else:
        return 2


@case(f32(2.0), f32(-2.0))
def if_no_else(x):
    y = x * 2
    if y > 0:
        y = y + 1
    return y


@case((f32(2.0), f32(3.0)), (f32(-2.0), f32(3.0)), (f32(2.0), f32(-3.0)))
def nested_if(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        r = -x
    return r


@case(f32(2.0), f32(-2.0))
def if_two_outputs(x):
    a = x
    b = x * 2
    if x > 0:
        a = a + 1
        b = b * 3
    else:
        b = b - 1
    return a, b


@case(f32(2.0), f32(-2.0))
def if_temp_variable(x):
    if x > 0:
        t = x * 3
        x = t + 1
    return x


@case(f32(2.0), f32(-2.0))
def if_side_effect_only(x):
    y = x + 1
    if x > 0:
        print("tracing positive branch")
    return y


@case(i64(4), i64(7))
def if_in_expression_call(n):
    return abs(n - 5) if n > 5 else min(n, 5)


@case(f32(1.5), f32(-1.5))
def ternary(x):
    return x if x > 0 else -x


@case(f32(1.5), f32(-1.5), f32(0.5))
def nested_ternary(x):
    return 1.0 if x > 1 else (0.0 if x > 0 else -1.0)


@case((f32(1.0), f32(2.0)), (f32(-1.0), f32(2.0)), (f32(1.0), f32(-2.0)))
def bool_and(x, y):
    if x > 0 and y > 0:
        return x + y
    return x - y


@case((f32(1.0), f32(2.0)), (f32(-1.0), f32(2.0)), (f32(-1.0), f32(-2.0)))
def bool_or(x, y):
    if x > 0 or y > 0:
        return x * y
    return x + y


@case(f32(1.0), f32(-1.0))
def bool_not(x):
    if not x > 0:
        x = -x
    return x


@case(f32(0.5), f32(1.5), f32(-0.5))
def chained_comparison(x):
    if 0 < x < 1:
        return 1
    return 0


XS = np.array([1, 5, 9, 12], np.int64)


@case((XS, i64(3), i64(1)), (XS, i64(3), i64(20)), (XS, i64(10), i64(0)))
def and_guards_index(xs, i, t):
    if i < 4 and xs[i] > t:
        return xs[i]
    return -1


@case((f64(0.0), f64(0.0)), (f64(0.0), f64(2.0)), (f64(-0.5), f64(0.0)))
def or_gives_an_operand(x, y):
    return x or y or 7.0


@case((f64(0.0), f64(5.0)), (f64(2.0), f64(5.0)))
def and_gives_an_operand(x, y):
    return (x and y) * 2


@case((f64(1.0), f64(3.0)), (f64(-1.0), f64(3.0)))
def comparison_and_value(x, y):
    return (x > 0 and y) + 1


@case((i64(3), f64(1.0)), (i64(0), f64(1.0)), (i64(2), f64(-1.0)))
def int_and_comparison_in_while(n, x):
    r = 0
    while n and x > 0:
        n -= 1
        r += 1
    return r


@case(f32(2.0), f32(-2.0))
def early_return_fallthrough(x):
    if x > 0:
        return x * 10
    x = x - 1
    return x * 2


@case((f32(2.0), f32(1.0)), (f32(-2.0), f32(1.0)), (f32(-2.0), f32(-1.0)))
def early_returns_nested(x, y):
    if x > 0:
        return x
    if y > 0:
        z = y * 2
        return z
    return x + y


@case(f32(4.0), f32(-4.0))
def if_else_both_return_then_dead(x):
    if x > 0:
        return x
    else:
        return -x


@case(V, W)
def array_condition_any(x):
    if np.any(x > 4):
        y = x * 2
    else:
        y = x
    return y


@case(V, W)
def reduction_condition(x):
    s = np.sum(x)
    if s > 5:
        return s - 5
    return s


# -- while ----------------------------------------------------------------------------------
@case(i64(27), i64(6), i64(1))
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case(i64(10), i64(0), i64(3))
def while_sum(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


@case(f64(100.0), f64(2.0))
def while_float(x):
    k = 0
    while x > 1.0:
        x = x / 2.0
        k += 1
    return x, k


@case(i64(10), i64(40))
def while_break(n):
    i = 0
    while i < n:
        if i * i > 30:
            break
        i += 1
    return i


@case(i64(10), i64(3))
def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


@case(i64(10), i64(50))
def while_early_return(n):
    i = 0
    while i < n:
        if i * i > 40:
            return i
        i += 1
    return -1


@case(i64(5), i64(2))
def while_else(n):
    i = 0
    found = 0
    while i < n:
        if i == 3:
            found = 1
            break
        i += 1
    else:
        found = -1
    return found, i


@case(i64(4), i64(2))
def nested_while(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


@case(i64(8), i64(3))
def while_python_then_symbolic(n):
    # the condition starts as a Python bool and becomes symbolic
    i = 0
    acc = 0
    while i < 3 or acc < n:
        acc = acc + n // 2 + 1
        i += 1
    return acc


@case(i64(5), i64(20))
def while_loop_options(n):
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=100)
        i += 2
    return i


@case(V, W)
def while_array_state(x):
    k = 0
    while np.max(x) > 1.0:
        x = x * 0.5
        k += 1
    return x, k


# -- for ------------------------------------------------------------------------------------
@case(i64(5), i64(0), i64(3))
def for_range_symbolic(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


@case((i64(2), i64(10)), (i64(0), i64(4)))
def for_range_start_stop(a, b):
    s = 0
    for i in range(a, b):
        s = s + i
    return s


@case((i64(10), i64(0), i64(-2)), (i64(9), i64(2), i64(-3)))
def for_range_negative_step(a, b, c):
    out = 0
    for i in range(a, b, c):
        out = out * 2 + i
    return out


@case(V, W)
def for_over_array(x):
    s = 0.0
    for v in x:
        s = s + v * v
    return s


@case(V, W)
def for_enumerate(x):
    best = 0.0
    best_i = -1
    for i, v in enumerate(x):
        if v > best:
            best = v
            best_i = i
    return best, best_i


@case((V, W), (W, V))
def for_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


@case(V, W)
def linear_search(xs):
    found = -1
    for i in range(len(xs)):
        if xs[i] < 0:
            continue
        if xs[i] > 3.5:
            found = i
            break
    return found


@case((V, f32(3.5)), (V, f32(100.0)), (W, f32(0.0)))
def find_first(xs, t):
    for i in range(len(xs)):
        if xs[i] > t:
            return i
    return -1


@case((M, i64(10)), (M, i64(100)), (M2, i64(4)))
def nested_loop_early_return(m, t):
    for i in range(len(m)):
        for j in range(len(m[i])):
            if m[i, j] > t:
                return i * 100 + j
    return -1


@case((M, i64(10)), (M2, i64(4)))
def nested_loop_break_inner(m, t):
    count = 0
    for i in range(3):
        for j in range(3):
            if m[i, j] > t:
                break
            count += 1
    return count


@case(V, W)
def for_python_list(x):
    weights = [1.0, 2.0, 3.0]
    s = 0.0
    for w in weights:
        if x[0] > 0:
            s = s + w * x[0]
        else:
            s = s - w
    return s


@case(i64(3), i64(7))
def for_continue_symbolic(n):
    s = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        s += i
    return s


@case(i64(6), i64(2))
def for_else(n):
    r = 0
    for i in range(n):
        if i == 4:
            r = 1
            break
    else:
        r = 2
    return r


@case(i64(4), i64(1))
def for_target_used_after(n):
    i = -1
    for i in range(n):  # noqa: B007  (the target is read after the loop)
        pass
    return i


@case(V, W)
def for_break_python_range_symbolic_condition(x):
    # Python range, symbolic break: remaining iterations are predicated
    total = 0.0
    for i in range(5):
        if x[i] < 0:
            break
        total = total + x[i]
    return total


@case(V, W)
def for_return_python_range_symbolic_condition(x):
    for i in range(5):
        if x[i] > 4.5:
            return x[i] * 2
    return x[0]


@case(i64(4), i64(6))
def loop_inside_branch(n):
    s = 0
    if n > 5:
        for i in range(n):
            s += i
    else:
        s = -1
    return s


@case(i64(5), i64(2))
def branch_inside_loop(n):
    evens = 0
    odds = 0
    for i in range(n):
        if i % 2 == 0:
            evens += i
        else:
            odds += i
    return evens, odds


@case(i64(3), i64(5))
def triple_nested(n):
    s = 0
    for i in range(n):
        for j in range(i):
            for k in range(j):
                s += i + j + k
    return s


@case(i64(5), i64(2))
def for_with_maximum_iterations(n):
    s = 0
    for _ in range(n):
        ag.set_loop_options(maximum_iterations=10)
        s += 1
    return s


# -- assignments, lists, subscripts ---------------------------------------------------------
@case(i64(4), i64(2))
def list_append_stack(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return np.stack(out)


@case(i64(4), i64(2))
def list_stacked_by_an_imported_name(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return np_stack(out)   # a global name: `ag__.converted` stacks the graph list


@case(V, W)
def list_append_symbolic_array_loop(x):
    rows = []
    for v in x:
        if v > 0:
            rows.append(v * 2)
        else:
            rows.append(-v)
    return np.array(rows)


@case(V, W)
def list_in_python_loop(x):
    out = []
    for i in range(3):
        out.append(x[i] * 2)
    return np.stack(out)


@case(V, W)
def subscript_assign(x):
    y = np.zeros(5, np.float32)
    for i in range(5):
        if x[i] > 0:
            y[i] = x[i]
    return y


@case(V, W)
def subscript_aug_assign(x):
    y = np.ones(5, np.float32)
    for i in range(5):
        y[i] += x[i]
    return y


@case(V, W)
def subscript_aug_index_evaluated_once(x):
    y = x * 1
    picked = []

    def pick(i):
        picked.append(i)
        return i
    y[pick(1)] += 10
    y[pick(2):pick(4)] *= 2
    return y, len(picked)


@case(M, M2)
def subscript_aug_ops(m):
    y = m * 1
    y[0] += 3
    y[1:, 0] *= 2
    y[:, 2] //= 2
    y[2] -= y[0]
    y[1, 1] += 2.5   # one element: stored back as int64 (truncated), as NumPy does
    return y


@case((V, f64(0.5)), (W, f64(-2.0)))
def subscript_aug_wider_value(x, v):
    y = x * 1
    y[1:3] += v      # float64 into float32: allowed ('same_kind'), y stays float32
    return y


@case(f32(1.0), f32(-1.0))
def tuple_unpacking(x):
    a, b = x, x * 2
    if x > 0:
        a, b = b, a
    return a - b


@case(f32(3.0), f32(-3.0))
def augmented_assignment(x):
    y = x
    if x > 0:
        y *= 2
        y -= 1
    else:
        y **= 2
    return y


COUNTER = [0]


@case(f32(1.0), f32(-1.0))
def global_list_mutation(x):
    COUNTER[0] = 0
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


@case(V, W)
def global_container_mutated_in_symbolic_loop(x):
    s = x[0] * 0
    for v in x:
        COUNTER[0] += 1
        if v > 0:
            COUNTER[0] += 1
            s = s + v
    return s


_G = 0


@case(i64(3), i64(-3), escapes="_G")
def global_statement(n):
    global _G
    _G = 0
    if n > 0:
        _G = 10
    return n + 1


@case(f32(2.0), f32(-2.0))
def assert_statement(x):
    assert x == x, "x is NaN"
    y = x * 2
    return y


@case(f32(2.0), f32(-2.0))
def uses_numpy_functions(x):
    y = np.exp(x)
    if np.abs(x) > 1:
        y = np.log(y + 1)
    return y


@case(i64(3), i64(8))
def builtins_min_max_abs(n):
    a = max(n, 5)
    b = min(n, 5)
    c = abs(n - 6)
    return a + b * 10 + c * 100


@case(f32(2.7), f32(-2.7))
def builtin_int_float(x):
    return int(x) + float(x)


@case(V, W)
def builtin_len_sum(x):
    return len(x) + sum(x)


# -- calls, closures, lambdas, methods ------------------------------------------------------
def _helper_abs(v):
    if v < 0:
        return -v
    return v


@case(f32(2.0), f32(-3.0))
def calls_user_function(x):
    return _helper_abs(x) + 1


def _helper_loop(n):
    s = 0
    while s < n:
        s += 3
    return s


@case(i64(10), i64(4))
def calls_user_loop_function(n):
    return _helper_loop(n) * 2


def _make_scaled(k):
    def scaled(x):
        if x > 0:
            return x * k
        return x
    return scaled


_scale3 = _make_scaled(3.0)


@case(f32(2.0), f32(-2.0))
def calls_closure(x):
    return _scale3(x)


@case(f32(2.0), f32(-2.0))
def nested_def(x):
    def inner(v):
        if v > 0:
            return v + 1
        return v - 1
    return inner(x) * 2


@case(f32(2.0), f32(-2.0))
def lambda_with_ternary(x):
    f = lambda v: v * 2 if v > 0 else v * 3  # noqa: E731
    return f(x)


@case(f32(2.0), f32(-2.0))
def closure_reads_outer(x):
    k = 5.0

    def add_k(v):
        return v + k
    if x > 0:
        y = add_k(x)
    else:
        y = x
    return y


class _Counter:
    def __init__(self):
        self.count = 0

    def step(self, x):
        if x > 0:
            self.count += 1
        return self.count


_COUNTER = _Counter()


@case(f32(2.0), f32(-2.0), escapes="_COUNTER.count")
def method_call(x):
    _COUNTER.count = 0
    return _COUNTER.step(x)


class _Model:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        if x > 0:
            return x * self.scale
        return x


_MODEL = _Model(2.0)


@case(f32(2.0), f32(-2.0))
def callable_object(x):
    return _MODEL(x)


class _Acc:
    def __init__(self):
        self.total = 0.0

    def add_positive(self, xs):
        self.total = 0.0
        for i in range(len(xs)):
            if xs[i] > 0:
                self.total += xs[i]
        return self.total


_ACC = _Acc()


@case(V, W, escapes="_ACC.total")
def attribute_state_in_loop(x):
    return _ACC.add_positive(x)


@ag.do_not_convert
def _plain(x):
    return x * 2


@case(f32(2.0), f32(-2.0))
def calls_do_not_convert(x):
    return _plain(x) + 1


def _recursive_fact(n):
    if n <= 1:
        return 1
    return n * _recursive_fact(n - 1)


@case((i64(5), f32(2.0)), (i64(5), f32(-1.0)), static=(0,))
def recursion_on_python_value(n, x):
    return _recursive_fact(n) * x


# -- match (stays Python; its cases are converted) ------------------------------------------
@case((f32(2.0), "relu"), (f32(-2.0), "relu"), static=(1,))
def match_case_with_symbolic_if(x, mode):
    match mode:
        case "relu":
            if x > 0:
                y = x
            else:
                y = x * 0
        case _:
            y = x
    return y


@case((f32(2.0), "abs"), (f32(-2.0), "abs"), static=(1,))
def match_case_returns_on_some_paths(x, mode):
    match mode:
        case "abs" | "magnitude":
            if x < 0:
                return -x
        case "neg":
            return -x
    return x * 1


@case((f32(2.0), (3, 1)), (f32(-2.0), (3, 1)), static=(1,))
def match_sequence_pattern_and_guard(x, spec):
    match spec:
        case (k, _) if k > 1:
            while x * x < 10 * k:
                x = x * 2 + 1
        case (k, _):
            x = x * k
    return x


@case((V, "skip"), (W, "skip"), static=(1,))
def match_in_loop_with_continue(x, mode):
    s = 0.0
    for v in x:
        match mode:
            case "skip":
                if v < 0:
                    continue
            case "stop":
                if v < 0:
                    break
        s += v
    return s


@case((V, "first"), (W, "first"), static=(1,))
def match_in_loop_with_return(x, mode):
    for v in x:
        match mode:
            case "first":
                if v < 0:
                    return v
    return 0.0


# -- Python values: unrolled / static --------------------------------------------------------
@case((V, 3), (W, 3), static=(1,))
def python_int_loop_bound(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
    return s


@case((f32(2.0), True), (f32(-2.0), True), static=(1,))
def python_flag(x, double):
    if double:
        x = x * 2
    if x > 0:
        return x
    return -x


@case(f32(1.0), f32(-1.0))
def string_and_print(x):
    msg = "value"
    if x > 0:
        msg_len = len(msg)
    else:
        msg_len = 0
    return x + msg_len


@case(i64(3), i64(11))
def while_with_list_index_python(n):
    primes = [2, 3, 5, 7, 11]
    count = 0
    for p in primes:
        if p <= n:
            count += 1
    return count


@case(f32(2.0), f32(-0.5))
def walrus_free_math(x):
    y = x * x
    z = y - 1
    if z > 0:
        z = np.sqrt(z)
    else:
        z = -z
    return z


@case(i64(7), i64(12))
def gcd_loop(a):
    b = 21
    while b != 0:
        a, b = b, a % b
    return a


@case(i64(10), i64(1))
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@case(V, W)
def argmax_manual(x):
    best = x[0]
    idx = 0
    for i in range(1, 5):
        if x[i] > best:
            best = x[i]
            idx = i
    return idx


@case(V, W)
def clip_loop(x):
    y = np.zeros(5, np.float32)
    for i in range(5):
        v = x[i]
        if v > 3:
            v = 3.0
        elif v < -1:
            v = -1.0
        y[i] = v
    return y


@case(i64(20), i64(3))
def count_primes(n):
    count = 0
    for k in range(2, n):
        is_prime = True
        for d in range(2, k):
            if k % d == 0:
                is_prime = False
                break
        if is_prime:
            count += 1
    return count


@case(f32(3.0), f32(0.5))
def newton_sqrt(x):
    g = x
    for _ in range(20):
        g = 0.5 * (g + x / g)
    return g


@case(i64(3), i64(6))
def loop_return_in_else(n):
    for i in range(10):
        if i < n:
            continue
        else:
            return i * 2
    return -1


@case(i64(2), i64(7))
def while_true_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


@case(f32(1.0), f32(-1.0))
def not_on_flag(x):
    done = x > 0
    out = 0.0
    if not done:
        out = 1.0
    return out


@case(V, W)
def matmul_in_branch(x):
    m = np.eye(5, dtype=np.float32)
    if x[0] > 0:
        y = m @ x
    else:
        y = x @ m * 2
    return y


@case(i64(10), i64(3), i64(7))
def while_return_in_nested_if(n):
    i = 0
    while i < n:
        if i > 5:
            if i % 2 == 0:
                return i, 1
            else:
                i += 3
        i += 1
    return -1, 0


@case(V, W)
def for_return_tuple(xs):
    for i in range(len(xs)):
        if xs[i] > 4.5:
            return xs[i], i
    return xs[0], -1


class _Tally:
    def __init__(self):
        self.t = 0.0

    def run(self, xs):
        self.t = 0.0
        for x in xs:
            if x > 0:
                if x > 3.5:
                    self.t += x
                else:
                    self.t -= 1.0
        return self.t


_TALLY = _Tally()


@case(V, W, escapes="_TALLY.t")
def attribute_state_nested_branches(xs):
    return _TALLY.run(xs)


@case(V, W, graph=False)
def comprehension_with_ternary(xs):
    return [v * 2 if v > 0 else 0.0 for v in xs if v != 3]


@case((f32(1.0), f32(2.0), f32(3.0)), (f32(-1.0), f32(2.0), f32(3.0)))
def varargs_and_kwonly(a, *rest, k=2.0):
    if a > 0:
        a = a + sum(rest) + k
    return a


@case(f32(2.0), f32(-2.0))
def nonlocal_in_nested_function(x):
    acc = 0.0

    def bump(v):
        nonlocal acc
        if v > 0:
            acc += v
    bump(x)
    bump(x)
    return acc


@case(V, W, graph=False)
def python_loop_inside_try(xs):
    out = 0.0
    try:
        for x in xs:
            if x < 0:
                break
            out += x
    except TypeError:
        out = -1.0
    return out


@case(V, W)
def walrus_in_condition(xs):
    if (s := np.sum(xs)) > 5:
        return s
    return -s


# -- state that outlives the function, updated in branches that return ----------------------
class _Account:
    def __init__(self, balance):
        self.balance = balance
        self.rejected = 0

    def withdraw(self, amount):
        if amount > self.balance:
            return False
        self.balance -= amount
        return True

    def deposit_capped(self, amount):
        if amount < 0:
            self.rejected += 1
            return -1
        elif self.balance + amount > 100:
            self.balance = 100.0
            return 1
        self.balance += amount
        return 0


@case(f32(4.0), f32(12.0), f32(10.0))
def attribute_update_in_returning_branch(amount):
    acc = _Account(10.0)
    ok = acc.withdraw(amount)
    return ok, acc.balance


@case(f32(5.0), f32(-5.0), f32(95.0))
def attribute_updates_in_nested_returning_branches(amount):
    acc = _Account(10.0)
    code = acc.deposit_capped(amount)
    return code, acc.balance, acc.rejected


class _Scanner:
    def __init__(self):
        self.seen = 0

    def first_over(self, xs, t):
        for i in range(len(xs)):
            self.seen += 1
            if xs[i] > t:
                return i
        return -1


@case(V, W)
def attribute_update_with_return_in_loop(xs):
    s = _Scanner()
    return s.first_over(xs, 4.5), s.seen


_CALLS = 0


def _count_positive(v):
    global _CALLS
    if v > 0:
        _CALLS += 1
        return 1
    return 0


@case(i64(3), i64(-3), i64(1), escapes="_CALLS")
def global_counter_in_returning_branch(n):
    global _CALLS
    _CALLS = 0
    hits = _count_positive(n) + _count_positive(n - 2)
    return hits, _CALLS


@case(i64(3), i64(-3), i64(1))
def nonlocal_counter_in_returning_branch(n):
    count = 0

    def hit(v):
        nonlocal count
        if v > 0:
            count += 1
            return v * 2
        count -= 1
        return 0
    total = hit(n) + hit(n - 2)
    return total, count


class _Box:
    pass


def _set_if_positive(b, x):
    if x > 0:
        b.v = x
        return 1
    return 0


# one branch creates the attribute, so a symbolic condition is an error: Python values only
@case(f32(2.0), f32(-2.0), graph=False)
def attribute_created_in_returning_branch(x):
    b = _Box()
    r = _set_if_positive(b, x)
    return r, hasattr(b, "v"), getattr(b, "v", 0.0)


@case(f32(2.0), f32(-2.0), graph=False)
def attribute_created_in_branch(x):
    b = _Box()
    if x > 0:
        b.v = x * 2
    return hasattr(b, "v")


@case(i64(3), i64(0), graph=False)
def attribute_created_in_loop(n):
    b = _Box()
    for i in range(n):
        b.last = i
    return hasattr(b, "last"), getattr(b, "last", -1)


@case(f32(2.0), f32(-2.0))
def attribute_created_in_both_returning_branches(x):
    b = _Box()
    if x > 0:
        b.v = x
        return b.v * 2, b.v
    b.v = -x
    return b.v, b.v


@case(f32(2.0), f32(-2.0))
def attribute_created_in_both_branches(x):
    b = _Box()
    if x > 0:
        b.v = x
    else:
        b.v = -x
    return b.v * 2


@case((f32(2.0), True), (f32(-2.0), True), static=(1,))
def attribute_created_under_python_condition(x, make):
    b = _Box()
    if make:
        b.v = x
    if x > 0:
        b.v = b.v * 3
    return b.v


@case(V, W)
def subscript_update_in_returning_branch(x):
    y = np.zeros(5, np.float32)
    if x[0] > 0:
        y[0] = x[0]
        y[1] += 1.0
        return y
    y[2] = x[2]
    return y * 2


class _Hist:
    def __init__(self):
        self.bins = np.zeros(3, np.float32)

    def record(self, v):
        if v < 0:
            self.bins[0] += 1.0
            return 0
        self.bins[2] += v
        return 2


@case(f32(2.0), f32(-2.0), f32(5.0))
def attribute_subscript_update_in_returning_branch(x):
    h = _Hist()
    k = h.record(x) + h.record(x - 3)
    return k, h.bins


@case(f32(2.0), f32(-2.0))
def early_return_inside_with(x):
    y = x
    with contextlib.nullcontext():
        if x > 0:
            return x * 2
        y = x - 1
    return y * 3


@case(f32(2.0), f32(-2.0), f32(7.0))
def attribute_update_in_returning_branch_inside_with(amount):
    acc = _Account(np.float32(5.0))
    with contextlib.nullcontext():
        if amount > 6:
            return -1.0, acc.balance
        acc.balance += amount
    acc.balance *= 2
    return 1.0, acc.balance


# -- found by the fuzzer (tests/autograph/fuzz.py), minimized --------------------------------
@case((f64(1.0), V.astype(np.float64)), (f64(-1.0), W.astype(np.float64)))
def chained_comparison_with_subscript(x, xs):
    # the middle operand is not a name: evaluated once, the comparisons still short-circuit
    r = 0
    if -2 < xs[1] <= 2:
        r += 1
    return r, 0 < x + 1 < xs[0] < 10


@case(f64(1.5), f64(-1.0), f64(0.5))
def and_or_of_python_numbers_of_two_types(x):
    b = 0
    r = 0
    if x > 0 or b:       # True or 0
        r += 10
    if x > 0 and 2.5:    # 2.5 or False
        r += 100
    return r, (x > 0 or b), (x > 1 and 5)


@case((i64(0), f64(1.0)), (i64(2), f64(-1.0)), (i64(0), f64(-1.0)), (i64(3), f64(0.0)))
def int_operand_of_or_in_a_test(n, x):
    # only the truth of `n or ...` matters in a test: int and bool operands may mix
    r = 0
    if n or n <= n * 2:
        r += 1
    w = 0
    while w < 3 and (n or x > 0):
        w += 1
        if not (n and x):
            break
    return r + w, (1 if n or x > 0 else 2)


@case((i64(2), f64(1.5)), (i64(2), f64(-1.5)), (i64(0), f64(1.5)))
def return_in_loop_under_and_with_int(k, x):
    w = 0
    while w < k:
        w += 1
        if x > 0 and w:
            return 0.5, x
    return 1.0, x
