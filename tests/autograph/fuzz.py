"""Differential fuzzer for the compiler: random, valid Python functions as source text.

`generate(seed)` writes one function `fuzz_<seed>(n, k, x, y, xs)` (n, k ints; x, y
floats; xs a float64 array of length 4) made of nested if/elif/else, bounded `while`
loops, `for` over `range(...)` and over `xs`, break/continue, early returns, augmented
assignment, ternaries, and/or, and int/float arithmetic. `check(seed, directory)` writes
it to a file, imports it and runs it three ways (see test_fuzz.py):

1. the original function on Python values (NumPy scalars turned into Python numbers),
2. `ag.to_graph(fn)` on the same Python values (must be identical),
3. `ag.function(fn)` on NumPy int64/float64 scalars, so conditions are symbolic (must
   agree numerically and trace once per function).

Programs are valid under the documented rules: every variable is defined before any
branch or loop that might not run (branch/loop temporaries and loop targets are used
only inside the block that defines them), every path returns a tuple of the same types,
loops are bounded (`while` loops carry a counter), int arithmetic cannot overflow int64
(a value that could grow geometrically is taken `% 1009`), no float NaN can arise (no
float products of two variables, divisions only by constants).

With `features` (fuzz_features.py) the programs also make closures in loops, build a
linked list and dicts/lists through rebound names, raise in branches and write to `xs`
through an alias; the runs then compare raised exceptions (type and message) and `xs`
after the call too, and the graph run is only made for the features in
`fuzz_features.SYMBOLIC_OK` (unless asked with `--graph`).

With the object features of `fuzz_objects` ("methods", "decorators", "closures_state",
"raise_mid", "views") the function sits in a generated class, decorator or factory (or
writes its arguments, raises, creates arrays); the runner then calls it through every
entry the module makes and compares results, arguments and state after every call
(documented refusals are counted, not failures).

Run `python -m tests.autograph.fuzz START COUNT [--features=all|a,b] [--graph |
--python-only] [--jit]` to check many seeds and print failures (`--jit`: the graph run
is repeated with `jit_compile=True` and compared exactly with the default executor).
"""
from __future__ import annotations

import importlib.util
import random
import sys
import traceback
from pathlib import Path

import numpy as np

from tests.autograph import fuzz_features, fuzz_objects

XS_LEN = 4
MOD = 1009


class _Env:
    """Names readable at a point of the program, copied on entering a block."""

    def __init__(self):
        self.bounded = ["n", "k"]       # ints of small magnitude (args, loop indices)
        self.index4 = []                # ints known to be in range(4): index xs with them
        self.ivars = []                 # int variables (may grow)
        self.fvars = ["x", "y"]         # float values
        self.loop_depth = 0
        self.if_depth = 0

    def child(self):
        e = _Env.__new__(_Env)
        e.__dict__ = {k: (list(v) if isinstance(v, list) else v)
                      for k, v in self.__dict__.items()}
        return e


class _Gen:
    def __init__(self, seed: int, features=frozenset()):
        self.r = random.Random(seed)
        self.seed = seed
        self.features = frozenset(features)
        self.uid = 0
        self.budget = self.r.randint(5, 18)
        self.int_names = ["a", "b", "c"][:self.r.randint(1, 3)]
        self.float_names = ["u", "v"][:self.r.randint(1, 2)] + ["x"] * self.chance(0.3)
        self.flag = self.chance(0.4)
        self.ret_types = [self.r.choice("if") for _ in range(self.r.randint(1, 3))]

    def fresh(self, prefix):
        self.uid += 1
        return f"{prefix}{self.uid}"

    def chance(self, p):
        return self.r.random() < p

    # -- expressions -------------------------------------------------------------------
    def int_atom(self, env, bounded_only=False):
        """(text, kind): kind 'b' bounded, 'lin' one variable, 'u' unbounded."""
        r = self.r
        choices = ["const", "bounded"]
        if env.ivars and not bounded_only:
            choices += ["var", "var", "var"]
        pick = r.choice(choices)
        if pick == "const":
            return str(r.randint(-3, 5)), "b"
        if pick == "bounded":
            name = r.choice(env.bounded + ["len(xs)"] if self.chance(0.1) else env.bounded)
            return name, "b"
        return r.choice(env.ivars), "lin"

    def int_expr(self, env, depth=2, bounded_only=False):
        r = self.r
        if depth <= 0 or self.chance(0.35):
            return self.int_atom(env, bounded_only)
        form = r.choice(["add", "add", "sub", "mulc", "mod", "floordiv", "neg", "abs",
                         "minmax", "ternary", "andor", "mulv"])
        d = depth - 1
        if form in ("add", "sub"):
            (a, ka), (b, kb) = self.int_expr(env, d, bounded_only), self.int_expr(env, d, bounded_only)
            op = "+" if form == "add" else "-"
            kind = _worst(ka, kb) if "b" in (ka, kb) else "u"
            return f"({a} {op} {b})", kind
        if form == "mulc":
            a, ka = self.int_expr(env, d, bounded_only)
            return f"{a} * {r.choice([2, 3, -1, -2])}", "b" if ka == "b" else "u"
        if form == "mulv":
            (a, ka), (b, kb) = self.int_atom(env, bounded_only), self.int_atom(env, bounded_only)
            return f"{a} * {b}", "b" if ka == kb == "b" else "u"
        if form == "mod":
            a, _ = self.int_expr(env, d, bounded_only)
            return f"{a} % {r.choice([2, 3, 5, 7])}", "b"
        if form == "floordiv":
            a, ka = self.int_expr(env, d, bounded_only)
            return f"{a} // {r.choice([2, 3, 4])}", ka
        if form == "neg":
            a, ka = self.int_expr(env, d, bounded_only)
            return f"-{a}" if not a.startswith("-") else f"-({a})", ka
        if form == "abs":
            a, ka = self.int_expr(env, d, bounded_only)
            return f"abs({a})", ka
        if form == "minmax":
            (a, ka), (b, kb) = self.int_expr(env, d, bounded_only), self.int_expr(env, d, bounded_only)
            return f"{r.choice(['min', 'max'])}({a}, {b})", _worst(ka, kb)
        if form == "ternary":
            (a, ka), (b, kb) = self.int_expr(env, d, bounded_only), self.int_expr(env, d, bounded_only)
            return f"({a} if {self.cond(env, 1)} else {b})", _worst(ka, kb)
        # value-level and/or: gives one of its operands
        (a, ka), (b, kb) = self.int_atom(env, bounded_only), self.int_atom(env, bounded_only)
        return f"({a} {r.choice(['and', 'or'])} {b})", _worst(ka, kb)

    def bounded_int(self, env, depth=1):
        return self.int_expr(env, depth, bounded_only=True)[0]

    def int_value(self, env, depth=2):
        """An int expression safe to store in a variable (cannot blow up)."""
        text, kind = self.int_expr(env, depth)
        if kind == "u":
            text = f"({text}) % {MOD}"
        return text

    def float_atom(self, env):
        r = self.r
        pick = r.choice(["var", "var", "var", "const", "xs"])
        if pick == "var":
            return r.choice(env.fvars)
        if pick == "const":
            return r.choice(["0.0", "0.5", "1.0", "-1.5", "2.0", "2.5", "3.0"])
        return f"xs[{self.index(env)}]"

    def index(self, env):
        r = self.r
        opts = ["const", "kmod"] + ["idx"] * 3 * bool(env.index4)
        pick = r.choice(opts)
        if pick == "idx":
            return r.choice(env.index4)
        if pick == "const":
            return str(r.randint(0, XS_LEN - 1))
        src = r.choice(env.bounded + env.ivars)
        return f"{src} % {XS_LEN}"

    def float_expr(self, env, depth=2):
        r = self.r
        if depth <= 0 or self.chance(0.3):
            return self.float_atom(env)
        d = depth - 1
        form = r.choice(["add", "add", "sub", "mix", "scale", "div", "neg", "abs",
                         "minmax", "ternary", "andor", "intdiv"])
        if form in ("add", "sub"):
            op = "+" if form == "add" else "-"
            return f"({self.float_expr(env, d)} {op} {self.float_expr(env, d)})"
        if form == "mix":   # float with an int operand
            i = self.int_expr(env, 1)[0]
            f = self.float_expr(env, d)
            op = r.choice(["+", "-"])
            return f"({f} {op} {i})" if self.chance(0.5) else f"({i} {op} {f})"
        if form == "scale":
            return f"{self.float_expr(env, d)} * {r.choice(['0.5', '2.0', '-1.0', '1.5'])}"
        if form == "div":
            return f"{self.float_expr(env, d)} / {r.choice(['2.0', '4.0', '-2.0'])}"
        if form == "intdiv":
            return f"{self.int_expr(env, 1)[0]} / {r.choice(['2', '4'])}"
        if form == "neg":
            return f"-({self.float_expr(env, d)})"
        if form == "abs":
            return f"abs({self.float_expr(env, d)})"
        if form == "minmax":
            return f"{r.choice(['min', 'max'])}({self.float_expr(env, d)}, {self.float_expr(env, d)})"
        if form == "ternary":
            return (f"({self.float_expr(env, d)} if {self.cond(env, 1)} "
                    f"else {self.float_expr(env, d)})")
        return f"({self.float_atom(env)} {r.choice(['and', 'or'])} {self.float_atom(env)})"

    def cond(self, env, depth=2):
        r = self.r
        if depth <= 0 or self.chance(0.55):
            return self.compare(env)
        form = r.choice(["and", "or", "not", "truth", "chain"])
        if form in ("and", "or"):
            return f"({self.cond(env, depth - 1)} {form} {self.cond(env, depth - 1)})"
        if form == "not":
            return f"not {self.cond(env, depth - 1)}"
        if form == "truth":
            if self.flag and self.chance(0.5):
                return "flag"
            return self.int_atom(env)[0]
        lo, hi = sorted(r.sample(range(-3, 4), 2))
        return f"{lo} < {self.float_atom(env)} <= {hi}"

    def compare(self, env):
        r = self.r
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        left = self.float_expr(env, 1) if self.chance(0.5) else self.int_expr(env, 1)[0]
        right = self.float_expr(env, 1) if self.chance(0.5) else self.int_expr(env, 1)[0]
        return f"{left} {op} {right}"

    # -- statements --------------------------------------------------------------------
    def ret_stmt(self, env):
        self.returned = True  # what follows an early return is in a branch of its `if`
        vals = [self.int_value(env, 1) if t == "i" else self.float_expr(env, 1)
                for t in self.ret_types]
        return "return " + ", ".join(vals + fuzz_features.observed(self.features))

    def block(self, env, indent, lines, min_stmts=1, max_stmts=4):
        """Appends a block; returns True if it ends in an unconditional jump."""
        count = self.r.randint(min_stmts, max_stmts)
        for k in range(count):
            if self.budget <= 0 and k >= min_stmts:
                break
            self.budget -= 1
            if self.stmt(env, indent, lines, last=(k == count - 1)):
                return True
        return False

    def stmt(self, env, indent, lines, last):
        r = self.r
        pad = "    " * indent
        kinds = ["assign_i", "assign_f", "aug", "aug", "temp", "swap"] + ["flag"] * self.flag
        if env.if_depth < 3:
            kinds += ["if", "if", "if"]
        if env.loop_depth < 2 and self.budget > 2:
            kinds += ["for", "for", "while"]
        if env.loop_depth:
            kinds += ["jump", "jump"]
        kinds += ["return"]
        if last and (env.loop_depth or env.if_depth):
            kinds += ["bare_jump"]
        if self.features:
            kinds += fuzz_features.kinds(self, env)
        kind = r.choice(kinds)
        if kind == "assign_i":
            lines.append(f"{pad}{r.choice(self.int_names)} = {self.int_value(env)}")
        elif kind == "assign_f":
            lines.append(f"{pad}{r.choice(self.float_names)} = {self.float_expr(env)}")
        elif kind == "aug":
            if self.chance(0.5):
                op = r.choice(["+=", "-=", "+=", "%="])
                rhs = str(r.choice([3, 5, 7])) if op == "%=" else self.bounded_int(env)
                lines.append(f"{pad}{r.choice(self.int_names)} {op} {rhs}")
            else:
                op = r.choice(["+=", "-=", "*=", "/="])
                rhs = (r.choice(["0.5", "-1.5", "2.0"]) if op in ("*=", "/=")
                       else self.float_expr(env, 1))
                lines.append(f"{pad}{r.choice(self.float_names)} {op} {rhs}")
        elif kind == "temp":
            t = self.fresh("t")
            if self.chance(0.5):
                lines.append(f"{pad}{t} = {self.float_expr(env)}")
                target = r.choice(self.float_names)
                lines.append(f"{pad}{target} = {target} + {t} * 0.5")
                env.fvars.append(t)
            else:
                lines.append(f"{pad}{t} = {self.int_value(env)}")
                target = r.choice(self.int_names)
                lines.append(f"{pad}{target} = ({target} + {t}) % {MOD}")
                env.ivars.append(t)
        elif kind == "flag":
            rhs = self.r.choice([self.compare(env), "not flag", "True", "False",
                                 f"{self.compare(env)} and not flag",
                                 f"flag or {self.compare(env)}"])
            lines.append(f"{pad}flag = {rhs}")
        elif kind == "swap":
            if len(self.int_names) > 1 and self.chance(0.5):
                a, b = r.sample(self.int_names, 2)
            elif len(self.float_names) > 1:
                a, b = r.sample(self.float_names, 2)
            else:
                a, b = self.int_names[0], self.float_names[0]
                lines.append(f"{pad}{a}, {b} = {self.int_value(env, 1)}, {b} + {a}")
                return False
            lines.append(f"{pad}{a}, {b} = {b}, {a}")
        elif kind == "if":
            self.if_stmt(env, indent, lines)
        elif kind == "for":
            self.for_stmt(env, indent, lines)
        elif kind == "while":
            self.while_stmt(env, indent, lines)
        elif kind == "jump":
            lines.append(f"{pad}if {self.cond(env)}:")
            lines.append(f"{pad}    {r.choice(['break', 'continue'])}")
        elif kind == "return":
            lines.append(f"{pad}if {self.cond(env)}:")
            lines.append(f"{pad}    {self.ret_stmt(env)}")
        elif kind == "bare_jump":
            if env.loop_depth and self.chance(0.6):
                lines.append(f"{pad}{r.choice(['break', 'continue'])}")
            else:
                lines.append(f"{pad}{self.ret_stmt(env)}")
            return True
        else:
            return fuzz_features.stmt(self, kind, env, pad, lines)
        return False

    def if_stmt(self, env, indent, lines):
        pad = "    " * indent
        inner = env.child()
        inner.if_depth += 1
        lines.append(f"{pad}if {self.cond(env)}:")
        self.block(inner.child(), indent + 1, lines)
        n_elif = self.r.choice([0, 0, 0, 1, 2])
        for _ in range(n_elif):
            lines.append(f"{pad}elif {self.cond(env)}:")
            self.block(inner.child(), indent + 1, lines)
        if self.chance(0.55):
            lines.append(f"{pad}else:")
            self.block(inner.child(), indent + 1, lines)

    def for_stmt(self, env, indent, lines):
        r = self.r
        pad = "    " * indent
        inner = env.child()
        inner.loop_depth += 1
        form = r.choice(["range_n", "range_k", "range_c", "range_len", "range2",
                         "array", "array", "enumerate", "pylist"])
        i = self.fresh("i")
        if form == "range_n":
            head = f"for {i} in range(n):"
            inner.bounded.append(i)
            inner.index4.append(i)
        elif form == "range_k":
            head = f"for {i} in range(k):"
            inner.bounded.append(i)
        elif form == "range_c":
            head = f"for {i} in range({r.randint(1, 4)}):"
            inner.bounded.append(i)
            inner.index4.append(i)
        elif form == "range_len":
            head = f"for {i} in range(len(xs)):"
            inner.bounded.append(i)
            inner.index4.append(i)
        elif form == "range2":
            head = f"for {i} in range({r.choice(['n', 'k', '1', '-1'])}, {r.choice(['n', 'k', '4'])}):"
            inner.bounded.append(i)
        elif form == "array":
            e = self.fresh("e")
            head = f"for {e} in xs:"
            inner.fvars.append(e)
        elif form == "enumerate":
            e = self.fresh("e")
            head = f"for {i}, {e} in enumerate(xs):"
            inner.bounded.append(i)
            inner.index4.append(i)
            inner.fvars.append(e)
        else:
            head = f"for {i} in {r.choice(['[1, 2, 3]', '[2, -1]', '(0, 3)'])}:"
            inner.bounded.append(i)
        lines.append(pad + head)
        self.block(inner, indent + 1, lines, max_stmts=4)
        self.loop_else(env, indent, lines)

    def loop_else(self, env, indent, lines):
        if self.chance(0.15):
            lines.append("    " * indent + "else:")
            self.block(env.child(), indent + 1, lines, max_stmts=2)

    def while_stmt(self, env, indent, lines):
        r = self.r
        pad = "    " * indent
        w = self.fresh("w")
        lines.append(f"{pad}{w} = 0")
        inner = env.child()
        inner.loop_depth += 1
        limit = r.choice(["n", "k", "3", "2", "4"])
        if self.chance(0.25):
            lines.append(f"{pad}while True:")
            lines.append(f"{pad}    {w} += 1")
            lines.append(f"{pad}    if {w} > {limit}:")
            lines.append(f"{pad}        break")
        else:
            c = f"{w} < {limit}"
            if self.chance(0.6):
                extra = self.cond(env, 1)
                c = f"{c} and {extra}" if self.chance(0.5) else f"{extra} and {c}"
            lines.append(f"{pad}while {c}:")
            lines.append(f"{pad}    {w} += 1")
        inner.bounded.append(w)
        self.block(inner, indent + 1, lines, max_stmts=4)
        self.loop_else(env, indent, lines)

    def function(self) -> list:
        """The lines of `def fuzz_<seed>(n, k, x, y, xs)` and its body."""
        env = _Env()
        lines = [f"def fuzz_{self.seed}(n, k, x, y, xs):"]
        for name in self.int_names:
            lines.append(f"    {name} = {self.r.choice(['0', '1', 'k', 'n', '-2'])}")
            env.ivars.append(name)
        if self.flag:
            lines.append(f"    flag = {self.r.choice(['False', 'True', 'x > y'])}")
        for name in self.float_names:
            if name == "x":
                continue
            lines.append(f"    {name} = {self.r.choice(['0.0', '1.5', 'x', 'y', 'xs[0]'])}")
            env.fvars.append(name)
        lines += ["    " + line for line in fuzz_features.setup(self)]
        body: list = []
        ended = self.block(env, 1, body, min_stmts=2, max_stmts=8)
        lines += body
        if not ended:
            lines.append("    " + self.ret_stmt(env))
        return lines

    def program(self) -> str:
        lines = self.function()
        helpers = fuzz_features.HELPERS + "\n\n" if {"linked", "state", "try"} & self.features \
            else ""
        if "graph_try" in self.features:
            helpers = fuzz_features.fuzz_try.helpers(self.features) + helpers
        if self.features & fuzz_objects.ALL:
            second = _Gen(self.seed + 1_000_003, self.features).function
            return helpers + fuzz_objects.module(self, lines, second)
        return helpers + "\n".join(lines) + "\n"


def _worst(a, b):
    order = {"b": 0, "lin": 1, "u": 2}
    return a if order[a] >= order[b] else b


def generate(seed: int, features=frozenset()) -> str:
    """The source text of `fuzz_<seed>(n, k, x, y, xs)` (with the optional statement
    kinds of `fuzz_features` named in `features`)."""
    return _Gen(seed, features).program()


def arg_sets(seed: int, count: int = 4) -> list:
    """NumPy argument sets (n, k: int64; x, y: float64; xs: float64[4]); same dtypes."""
    r = random.Random(seed * 7919 + 1)

    def half():
        return r.randint(-6, 6) / 2

    return [(np.int64(r.randint(0, 4)), np.int64(r.randint(-3, 5)),
             np.float64(half()), np.float64(half()),
             np.array([half() for _ in range(XS_LEN)], np.float64))
            for _ in range(count)]


# -- running --------------------------------------------------------------------------
_LOADED = [0]


def load(source: str, directory: Path):
    """Writes `source` to a new file in `directory`, imports it, returns its function."""
    _LOADED[0] += 1
    stem = f"_ag_fuzz_{_LOADED[0]}_{abs(hash(str(directory)))}"
    path = Path(directory) / f"{stem}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    spec.loader.exec_module(module)
    if hasattr(module, "entries"):  # fuzz_objects' programs: the function is made per run
        return module.entries
    return next(v for k, v in vars(module).items() if k.startswith("fuzz_"))


def _python_value(a):
    return a.item() if isinstance(a, np.generic) else a


def _same_exact(a, b) -> bool:
    for kind in (tuple, list):
        if isinstance(a, kind) or isinstance(b, kind):
            return (type(a) is type(b) and len(a) == len(b)
                    and all(_same_exact(x, y) for x, y in zip(a, b)))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if type(a) is not type(b):
        return False
    return bool(a == b) or (a != a and b != b)


def _same_numeric(expected, actual) -> bool:
    if isinstance(expected, (tuple, list)):
        return (isinstance(actual, (tuple, list)) and len(actual) == len(expected)
                and all(_same_numeric(e, a) for e, a in zip(expected, actual)))
    if isinstance(expected, str):
        return expected == actual
    if isinstance(actual, tuple) or np.shape(actual) != ():
        return False
    return bool(np.isclose(np.float64(actual), np.float64(expected), rtol=1e-9, atol=0,
                           equal_nan=True))


def _run(fn, args, may_raise: bool):
    """(outcome, the arguments after the call) of fn on copies of `args`; the outcome
    of a call that raises (where the program may raise) is ('raised', type, message)."""
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        return fn(*args), args
    except (ValueError, ArithmeticError, LookupError, UnboundLocalError,
            AssertionError) as e:  # ("try": the ops that raise; try_raises: a variable a
        # handler left unbound, read after; try_chain: an assertion)
        if not may_raise:
            raise
        return ("raised", type(e).__name__, str(e)), args


def check(seed: int, directory: Path, source: str | None = None, graph: bool | None = None,
          features=frozenset(), jit: bool = False):
    """None if the three runs agree, else a description of the mismatch. The graph run
    is made with `graph=True`, skipped with False; by default it is made unless
    `features` (see fuzz_features.py) has one outside `fuzz_features.SYMBOLIC_OK`.
    `jit`: the graph run is repeated with `jit_compile=True`, which must give exactly
    the default executor's results (types, dtypes, values)."""
    import autograph as ag

    fn = load(generate(seed, features) if source is None else source, directory)
    sets = arg_sets(seed)
    py_sets = [tuple(_python_value(a) for a in args) for args in sets]
    if "entries" in fn.__globals__:
        graph = graph or (graph is None and set(features) <= fuzz_features.SYMBOLIC_OK)
        return fuzz_objects.check(fn.__globals__, seed, sets, py_sets, graph, features, jit,
                                  _same_exact, _scalars, _fmt)
    may_raise = bool({"raise", "try", "graph_try", "partly_bound"} & set(features))
    # "state" carries over from call to call: each run starts from the same state and
    # the state after every call is compared
    scope = fn.__globals__
    reset = scope.get("reset_state") if "state" in features else None
    states: list = []

    def state_after(fn_result):
        if reset is not None:
            states.append(scope["snap"](scope["STATE"]))
        return fn_result

    def state_differs(i, what) -> str | None:
        if reset is None:
            return None
        now = scope["snap"](scope["STATE"])
        if not _same_numeric(states[i], now):
            return f"{what}: state after call {i} {now!r} != python {states[i]!r}"
        return None

    try:
        if reset is not None:
            reset()
        expected = [state_after(_run(fn, args, may_raise)) for args in py_sets]
    except Exception:
        return f"python raised (a generator bug):\n{traceback.format_exc()}"
    try:
        converted = ag.to_graph(fn)
        if reset is not None:
            reset()
        for i, (args, e) in enumerate(zip(py_sets, expected)):
            got = _run(converted, args, may_raise)
            problem = state_differs(i, "to_graph")
            if problem:
                return problem
            if not _same_exact(e[0], got[0]):
                return f"to_graph{_fmt(args)}: {got[0]!r} != python {e[0]!r}"
            if not _same_exact(e[1], got[1]):
                return f"to_graph{_fmt(args)}: arguments after the call {got[1]!r} != " \
                       f"python {e[1]!r}"
    except Exception:
        return f"to_graph raised:\n{traceback.format_exc()}"
    if graph is False or (graph is None and not set(features) <= fuzz_features.SYMBOLIC_OK):
        return None
    if "graph_try" in features:  # (compared with eager NumPy, errors included)
        return fuzz_features.fuzz_try.check_graph(fn, sets, _same_numeric, _fmt, jit)
    expected = [e[0] for e in expected]
    try:
        f = ag.function(fn)
        results = []
        if reset is not None:
            reset()
        for i, (args, e) in enumerate(zip(sets, expected)):
            results.append(_run(f, args, True)[0] if may_raise else f(*args))
            if not _same_numeric(e, results[-1]):
                return f"function{_fmt(args)}: {results[-1]!r} != python {e!r}"
            problem = state_differs(i, "function")
            if problem:
                return problem
            if reset is None:  # the same NumPy arguments eagerly: the same kinds of value
                eager = _run(fn, args, may_raise)[0]
                raised = type(eager) is tuple and len(eager) == 3 and eager[0] == "raised"
                if not raised and not _same_exact(eager, results[-1]):
                    return f"function{_fmt(args)}: {results[-1]!r} != eager {eager!r} " \
                           "(type, dtype or value)"
        # state that changes from call to call is read as inputs after one retrace; a
        # place whose type changes (a Python int that becomes np.int64, as in NumPy) once more
        if f.tracing_count > (5 if reset is not None else 1):
            return f"traced {f.tracing_count} times"
    except Exception:
        return f"function raised:\n{traceback.format_exc()}"
    return _check_jit(fn, sets, results, may_raise) if jit else None


def _scalars(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_scalars(v) for v in x)
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _check_jit(fn, sets, results, may_raise: bool = False) -> str | None:
    import warnings

    import autograph as ag
    from runtime.jit import JitFallbackWarning

    try:
        f = ag.function(fn, jit_compile=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JitFallbackWarning)
            for args, want in zip(sets, results):
                got = _run(f, args, True)[0] if may_raise else f(*args)
                # a 0-d array where the other gives a NumPy scalar of its dtype: the
                # documented result-type gap of symbolic if/loops, not a value difference
                if not _same_exact(_scalars(want), _scalars(got)):
                    return f"jit_compile{_fmt(args)}: {got!r} != default executor {want!r}"
    except Exception:
        return f"jit_compile raised:\n{traceback.format_exc()}"
    return None


def _signature(problem: str) -> str:
    """The kind of a failure, for reduction: its last line without paths and names."""
    import re

    last = [line for line in problem.strip().splitlines() if line.strip()][-1]
    if not problem.startswith(("to_graph raised", "function raised")):
        return problem.split("(")[0]
    return re.sub(r"'[^']*'|/\S+|\d+", "_", last)[:80]


def reduce(seed: int, directory: Path, source: str | None = None, features=frozenset(),
           graph: bool | None = None) -> str:
    """A smaller program that fails the same way (greedy statement and expression cuts)."""
    import ast

    source = generate(seed, features) if source is None else source
    problem = check(seed, directory, source, graph, features)
    assert problem, "seed passes"
    want = _signature(problem)

    import signal

    def timeout(*_):
        raise TimeoutError("the reduced program does not terminate")

    def fails(text):
        signal.signal(signal.SIGALRM, timeout)
        signal.alarm(2)
        try:
            p = check(seed, directory, text, graph, features)
        except TimeoutError:
            return False
        finally:
            signal.alarm(0)
        return bool(p) and not p.startswith("python raised") and _signature(p) == want

    def candidates(tree):
        for node in ast.walk(tree):
            for field in ("body", "orelse"):
                body = getattr(node, field, None)
                if not isinstance(body, list) or isinstance(node, ast.Module):
                    continue
                for k, stmt in enumerate(body):
                    yield body, k, []
                    if isinstance(stmt, (ast.If, ast.For, ast.While)):
                        yield body, k, stmt.body
                        if stmt.orelse:
                            yield body, k, stmt.orelse
        for node in ast.walk(tree):
            for field, value in ast.iter_fields(node):
                if isinstance(value, ast.expr) and not isinstance(value, (ast.Name, ast.Constant)):
                    for sub in ("left", "right", "body", "orelse", "operand", "test"):
                        part = getattr(value, sub, None)
                        if isinstance(part, ast.expr):
                            yield node, field, part
                    if isinstance(value, (ast.BoolOp, ast.Call)):
                        for part in getattr(value, "values", None) or value.args:
                            yield node, field, part

    changed = True
    while changed:
        changed = False
        for index in range(10_000):
            tree = ast.parse(source)
            cands = list(candidates(tree))
            if index >= len(cands):
                break
            target, key, repl = cands[index]
            if isinstance(key, int):
                target[key:key + 1] = repl
                if not target:
                    target.append(ast.Pass())
            else:
                setattr(target, key, repl)
            try:
                text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
                compile(text, "<reduce>", "exec")
            except Exception:
                continue
            if text != source and fails(text):
                source, changed = text, True
    return source


def _fmt(args) -> str:
    return "(" + ", ".join(repr(_python_value(a)) if not isinstance(a, np.ndarray)
                           else repr(a.tolist()) for a in args) + ")"


def main(argv=None):
    import tempfile

    argv = sys.argv[1:] if argv is None else argv
    options = [a for a in argv if a.startswith("--")]
    argv = [a for a in argv if not a.startswith("--")]
    start = int(argv[0]) if argv else 0
    count = int(argv[1]) if len(argv) > 1 else 200
    features: frozenset = frozenset()
    graph = None  # --graph: also on the symbolic path; --python-only: never
    for o in options:
        if o.startswith("--features="):
            value = o.split("=", 1)[1]
            features = fuzz_features.ALL if value == "all" else frozenset(value.split(","))
        elif o in ("--graph", "--python-only"):
            graph = o == "--graph"
    jit = "--jit" in options  # the graph run again with jit_compile=True
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for seed in range(start, start + count):
            problem = check(seed, Path(d), graph=graph, features=features, jit=jit)
            if problem:
                failures += 1
                print(f"=== seed {seed}\n{generate(seed, features)}{problem}\n", flush=True)
    print(f"{failures} failures in {count} seeds ({start}..{start + count - 1})")
    if fuzz_objects.REFUSED:
        print(f"refused clearly (not failures): {fuzz_objects.REFUSED}")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
