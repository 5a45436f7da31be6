"""Fuzzer features for Python objects around the generated function (fuzz.py), checked on
the symbolic path too:

- "methods": the function is a method of a generated class `Model` whose instance holds
  state on `self`: numbers, arrays rebound and written in place, a dict of arrays and a
  list of arrays appended to; the class holds data attributes too, read through `self`
  and written through `type(self)` and `Model`. `ag.function` wraps either the bound method of one instance
  or the plain function set as the method of a subclass (a decorator in the class body);
- "decorators": the function and a second generated one are wrapped by one
  `functools.wraps` decorator factory whose wrapper counts calls, records arguments,
  changes them or scales the result; both go through `ag.function`;
- "closures_state": the function is made by a factory and keeps state in its closure
  cells: a counter, a number and an array rebound through `nonlocal`, a dict and a list
  of the enclosing scope mutated;
- "raise_mid": writes into the argument `xs`, then a `raise` under a symbolic condition
  or an `assert` on a symbolic value (outside loops: a raise inside a symbolic loop is
  another item's work); the runner compares the exception's type and first message line
  and the arguments and state after it;
- "views": arrays created in the function (`np.zeros/ones/full/arange/array/full_like`,
  `xs.copy()`, copies of a module constant `CONST.copy()`, `np.array(CONST)`,
  `CONST.astype(...)`, and arrays NumPy makes of it, `CONST * 1.0`) written through
  slices, rows, aliases and lists holding them (`r = c[1:3]; r[:] = v`,
  `al = c; al[i] += v`, `box = [c]; box[0][i] = v`), read back and returned; with
  "methods"/"closures_state", also names aliasing the state's arrays (`al = self.g;
  al[i] = v`, `al = buf; al[i] = v`).

A program with any of these features defines `entries(wrap)`: it resets all state and
returns the callables to run, each made with `wrap` (the identity, `ag.to_graph` or
`ag.function`) from a fresh object; and `observe()`: the state (objects, closure cells,
decorator records, the "state" feature's `STATE`) as plain Python values.
`check(...)` runs every argument set through every entry in turn and compares the
outcomes, the arguments and the state after every call.
"""
from __future__ import annotations

import traceback

import numpy as np

WRAPPERS = frozenset({"methods", "decorators", "closures_state"})
ALL = WRAPPERS | {"raise_mid", "views"}

HEADER = '''np = __import__('numpy')


def snap_value(v):
    if type(v) is dict:
        return sorted((key, snap_value(item)) for key, item in v.items())
    if type(v) in (list, tuple):
        return [snap_value(item) for item in v]
    if getattr(v, 'ndim', 0):
        return v.tolist()
    return v


CONST = np.array([0.5, 1.5, -2.0, 3.0])
'''


# -- generation ------------------------------------------------------------------------
def setup(gen) -> list:
    features = gen.features
    out = []
    if "methods" in features:
        out += ["self.seen.append(xs * x)", "self.calls += 1"]
    if "closures_state" in features:
        out += ["nonlocal cnt, tot, buf", "seen.append(x - y)"]
    if "views" in features:
        creator = gen.r.choice([
            "np.zeros(4)", "np.ones(4)", "np.full(4, 0.5)", "np.arange(4.0)",
            "np.array([1.0, 2.0, 0.5, -1.0])", "xs.copy()", "np.full_like(xs, 0.0)",
            "np.asarray(xs) * 1.0", "CONST.copy()", "np.array(CONST)",
            "CONST.astype(np.float64)", "CONST * 1.0", "np.copy(CONST)"])
        out += [f"c1 = {creator}", "c2 = np.zeros((2, 4))"]
    return out


def observed(features) -> list:
    if "views" not in features:
        return []
    return ["(c1 * np.array([1.0, 3.0, 9.0, 27.0])).sum()",
            "(c2 * np.arange(1.0, 9.0).reshape(2, 4)).sum()"]


def kinds(gen, env) -> list:
    out = []
    if "methods" in gen.features:
        out += ["self", "self"]
    if "closures_state" in gen.features:
        out += ["cell", "cell"]
    if "raise_mid" in gen.features and not env.loop_depth:
        out += ["raise_mid"]
        if not env.if_depth and not getattr(gen, "returned", False):
            # a write into an argument inside a symbolic `if` that also raises after an
            # earlier write: refused (the raise reads the argument from outside the
            # branch), another item's work
            out += ["arg_write", "arg_write"]
    if "views" in gen.features:
        out += ["view", "view"]
    return out


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    r = gen.r
    e = gen.float_expr(env, 1)
    if kind == "self":
        i = r.randrange(2)
        _add(lines, pad, r.choice([
            f"self.v{i} = {e}", f"self.v{i} = self.v{i} * 0.5 + {e}",
            f"self.n0 = (self.n0 + {gen.bounded_int(env)}) % 1009",
            f"{r.choice(gen.float_names)} = {r.choice(gen.float_names)} + self.v{i}",
            f"self.w = self.w * 0.5 + {e}", f"self.g += {e}",
            f"self.g[{gen.index(env)}] = {e}",
            f"self.cache['m'] = self.cache['m'] * 0.5 + xs * {e}",
            f"self.cache['m'][{gen.index(env)}] = {e}",
            f"{r.choice(gen.float_names)} = self.cache['m'][{gen.index(env)}] + {e}",
            # class attributes: read through self, written through the class
            f"{r.choice(gen.float_names)} = {r.choice(gen.float_names)} + self.rate",
            f"type(self).total = (type(self).total + {gen.bounded_int(env)}) % 1009",
            f"Model.rate = Model.rate * 0.5 + {e}",
        ] + ([("al = self.g", f"al[{gen.index(env)}] = {e}"),
              ("al = self.cache['m']", f"al[{gen.index(env)}] += {e}")]
             if "views" in gen.features else [])))
    elif kind == "cell":
        forms = [f"cnt = (cnt + {gen.bounded_int(env)}) % 1009", f"tot = tot * 0.5 + {e}",
                 f"{r.choice(gen.float_names)} = {r.choice(gen.float_names)} + tot",
                 f"buf = buf * 0.5 + {e}", f"buf[{gen.index(env)}] = {e}",
                 f"box['a'] = box['a'] * 0.25 + {e}"]
        if "views" in gen.features:
            forms.append(("al = buf", f"al[{gen.index(env)}] = {e}"))
        if not env.if_depth and not env.loop_depth and not getattr(gen, "returned", False):
            # an array in a closure's dict written in place in a symbolic block: refused
            forms.append(f"box['arr'] += {e}")
        _add(lines, pad, r.choice(forms))
    elif kind == "arg_write":
        lines.append(pad + r.choice([f"xs[{gen.index(env)}] = {e}", "xs *= 0.5",
                                     f"xs[1:3] = {e}"]))
    elif kind == "raise_mid":
        gen.uid += 1
        # `... or n < 0` (n is in [0, 4] and never assigned) keeps the meaning and makes
        # the condition symbolic: one that is a Python value raises while tracing, before
        # the graph's earlier raises and writes (not handled yet). `not` makes both
        # operands bools (`3 or False` has no single dtype in a graph: refused)
        if gen.chance(0.5):
            lines += [f"{pad}if not (not ({gen.cond(env)}) or n < 0):",
                      f"{pad}    raise ValueError('stop {gen.uid}')"]
        else:
            lines.append(f"{pad}assert not (not ({gen.cond(env)}) and n >= 0), "
                         f"'check {gen.uid}'")
    elif kind == "view":
        gen.uid += 1
        v = f"r{gen.uid}"
        a = r.randrange(3)
        b = r.randint(a + 1, 4)
        forms = ["direct", "read", "cell2"]
        if not env.if_depth and not env.loop_depth and not getattr(gen, "returned", False):
            # a view or alias made in a symbolic branch or loop (or after an early return)
            # and written there is refused (a clear error); at the top level it is exact
            forms += ["slice", "slice", "alias", "row", "listed", "path_alias"]
        form = r.choice(forms)
        if form == "slice":
            lines += [f"{pad}{v} = c1[{a}:{b}]",
                      pad + r.choice([f"{v}[:] = {e}", f"{v} += {e}", f"{v}[0] = {e}",
                                      f"{v} *= 0.5"])]
        elif form == "alias":
            lines += [f"{pad}{v} = c1", f"{pad}{v}[{gen.index(env)}] += {e}"]
        elif form == "path_alias":  # which array `v` is depends on the path: refused
            lines += [f"{pad}{v} = c2[1]", f"{pad}if {gen.cond(env)}:", f"{pad}    {v} = c1",
                      f"{pad}{v}[{gen.index(env)}] += {e}"]
        elif form == "listed":
            lines += [f"{pad}{v} = [c1, c2]", f"{pad}{v}[0][{gen.index(env)}] = {e}",
                      f"{pad}{v}[1][{r.randrange(2)}] += {v}[0]"]
        elif form == "direct":
            lines.append(f"{pad}c1[{gen.index(env)}] = {e}")
        elif form == "read":
            t = r.choice(gen.float_names)
            lines.append(f"{pad}{t} = {t} + c1[{gen.index(env)}] * 0.5")
        elif form == "row":
            lines += [f"{pad}{v} = c2[{r.randrange(2)}]",
                      pad + r.choice([f"{v}[:] = xs * {e}", f"{v}[{gen.index(env)}] = {e}",
                                      f"{v} += c1"])]
        else:
            lines.append(f"{pad}c2[{r.randrange(2)}, {gen.index(env)}] = {e}")
    return False


def _add(lines: list, pad: str, form) -> None:
    """One statement, or a tuple of consecutive ones, at indentation `pad`."""
    lines.extend(pad + line for line in (form if isinstance(form, tuple) else (form,)))


def _indent(lines: list) -> list:
    return ["    " + line if line else line for line in lines]


def module(gen, function: list, second=None) -> str:
    """The module text around `function` (its def line and body); `second()` gives
    another generated function's lines (for "decorators")."""
    f = gen.features
    name = f"fuzz_{gen.seed}"
    reset = ["    reset_state()"] if "state" in f else []
    watched = " + [snap(STATE)]" if "state" in f else ""
    out = [HEADER]
    if "methods" in f:
        function = [function[0].replace("(n, k,", "(self, n, k,")] + function[1:]
        out += ["class Model:", "    rate, total = 0.25, 0", "", "    def __init__(self):",
                "        self.v0, self.v1, self.n0, self.calls = 0.0, 1.5, 0, 0",
                "        self.w = np.zeros(4)", "        self.g = np.ones(4)",
                "        self.cache = {'m': np.zeros(4)}", "        self.seen = []", ""]
        out += _indent(function) + ["", ""]
        via_class = gen.chance(0.5)
        out += ["def entries(wrap):", "    global OBJ"] + reset + [
            "    Model.rate, Model.total = 0.25, 0"]
        if via_class:   # the Function is the method of the class (as `@ag.function` in it)
            # (with its own `total`: a symbolic branch's `type(self).total = v` would
            # otherwise give the subclass an attribute on one path only, a clear refusal)
            out += [f"    cls = type('Wrapped', (Model,), {{'{name}': wrap(Model.{name}), "
                    "'total': 0})",
                    "    OBJ = cls()", f"    return [OBJ.{name}]"]
        else:
            out += ["    OBJ = Model()", f"    return [wrap(OBJ.{name})]"]
        out += ["", "", "def observe():",
                "    return [sorted((k, snap_value(v)) for k, v in vars(OBJ).items()),",
                "            [snap_value(Model.rate), Model.total, type(OBJ).total]]"
                f"{watched}"]
    elif "closures_state" in f:
        out += ["def make():", "    cnt, tot = 0, 0.0", "    buf = np.zeros(4)",
                "    box = {'a': 0.0, 'arr': np.ones(4)}", "    seen = []", ""]
        out += _indent(function)
        out += ["", "    def look():",
                "        return [cnt, tot, snap_value(buf), snap_value(box), snap_value(seen)]",
                "", f"    return {name}, look", "", "",
                "def entries(wrap):", "    global LOOK"] + reset + [
                "    fn, LOOK = make()", "    return [wrap(fn)]", "", "",
                "def observe():", f"    return [LOOK()]{watched}"]
    elif "decorators" in f:
        r = gen.r
        before = r.choice(["RECORD.append(tag)", "RECORD.append((tag, n + k))",
                           "x = x * scale", "RECORD.append((tag, x * scale))"])
        after = r.choice(["out", "(out[0] * scale,) + out[1:] if isinstance(out, tuple) "
                                 "else out * scale"])
        out += ["functools = __import__('functools')", "RECORD = []", "", "",
                "def deco(tag, scale):", "    def decorate(f):", "        @functools.wraps(f)",
                "        def wrapper(n, k, x, y, xs):", f"            {before}",
                "            out = f(n, k, x, y, xs)", f"            return {after}",
                "        return wrapper", "    return decorate", "", "",
                "@deco('a', 2)"] + function + ["", "", "@deco('b', 3)"]
        other = second()
        other[0] = f"def {name}_b(" + other[0].split("(", 1)[1]
        out += other + ["", "", "def entries(wrap):"] + reset + [
            "    RECORD.clear()", f"    return [wrap({name}), wrap({name}_b)]", "", "",
            "def observe():", f"    return [snap_value(RECORD)]{watched}"]
    else:
        out += function + ["", "", "def entries(wrap):"] + reset + [
            f"    return [wrap({name})]", "", "", "def observe():", f"    return []{watched}"]
    return "\n".join(out) + "\n"


# -- running ---------------------------------------------------------------------------
# Documented refusals (clear errors at the user's line) the generator cannot always avoid:
# a view or alias written inside a symbolic block (also the rest of a function after an
# early return) of an array from outside it; an array of state written in place in one
# branch and rebound in the other, or written in place in a loop body that then rebinds
# it (which array the old holders see is known only at run time). Counted in REFUSED.
REFUSALS = ("through a view or alias of it that is not a variable of that",
            "that another name, view, container or object also holds",
            "one NumPy made from constants",
            "depends on the path a symbolic", "an alias of another array on some paths",
            "made of a NumPy array the graph did not make",
            "and replaced by another array in the other",
            "through a name that is not used after it")
REFUSED: dict = {}


def _close(e, a) -> bool:
    """Numeric equality of Python's results and the graph's (NumPy scalars for numbers)."""
    # a 0-d array where Python gives a number: the documented result-type gap of
    # symbolic if/loops, not a value difference
    e, a = (v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in (e, a))
    if isinstance(e, (tuple, list)):
        return (isinstance(a, (tuple, list)) and len(a) == len(e)
                and all(_close(x, y) for x, y in zip(e, a)))
    if isinstance(e, str) or isinstance(a, str):
        return e == a
    if isinstance(e, np.ndarray) or isinstance(a, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(e, np.ndarray) and e.shape == a.shape
                and np.allclose(e, a, rtol=1e-9, atol=0, equal_nan=True))
    if not isinstance(a, (int, float, np.generic)) or isinstance(a, np.ndarray):
        return False
    return bool(np.isclose(np.float64(a), np.float64(e), rtol=1e-9, atol=0, equal_nan=True))


def _refused(message: str) -> None:
    kind = message.split(" (at ")[0][:60]
    REFUSED[kind] = REFUSED.get(kind, 0) + 1


def _run_all(mod, wrap, sets, may_raise: bool) -> list:
    catch = (ValueError, AssertionError, ArithmeticError, LookupError) if may_raise else ()
    calls = mod["entries"](wrap)
    out = []
    for args in sets:
        for c in calls:
            args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
            try:
                result = c(*args)
            except catch as e:
                result = ("raised", type(e).__name__, str(e).split("\n")[0])
            out.append((result, list(args), mod["observe"]()))
    return out


def _diff(what, got, want, same, fmt) -> str | None:
    for i, (g, w) in enumerate(zip(got, want)):
        for part, label in ((0, "result"), (1, "arguments after"), (2, "state after")):
            if not same(w[part], g[part]):
                return f"{what}, call {i}: {label} {g[part]!r} != python {w[part]!r}"
    return None


def check(mod, seed, sets, py_sets, graph: bool, features, jit: bool, same_exact, scalars,
          fmt) -> str | None:
    import autograph as ag

    may_raise = bool({"raise", "try", "raise_mid"} & set(features))
    try:
        expected = _run_all(mod, lambda fn: fn, py_sets, may_raise)
    except Exception:
        return f"python raised (a generator bug):\n{traceback.format_exc()}"
    try:
        problem = _diff("to_graph", _run_all(mod, ag.to_graph, py_sets, may_raise), expected,
                        same_exact, fmt)
    except Exception:
        return f"to_graph raised:\n{traceback.format_exc()}"
    if problem or not graph:
        return problem
    made: list = []

    def function(fn, **options):
        made.append(ag.function(fn, **options))
        return made[-1]

    try:
        results = _run_all(mod, function, sets, may_raise)
    except (ValueError, TypeError) as e:
        if not any(text in str(e) for text in REFUSALS):
            return f"function raised:\n{traceback.format_exc()}"
        return _refused(str(e))
    except Exception:
        return f"function raised:\n{traceback.format_exc()}"
    for outcome, _, _ in results:  # a refusal caught as the program's own ValueError
        if type(outcome) is tuple and outcome[:2] == ("raised", "ValueError") and \
                any(text in outcome[2] for text in REFUSALS):
            return _refused(outcome[2])
    try:
        problem = _diff("function", results, expected, _close, fmt)
        if problem:
            return problem
        worst = max(f.tracing_count for f in made)
        if worst > 6:
            return f"traced {worst} times"
    except Exception:
        return f"function raised:\n{traceback.format_exc()}"
    if not jit:
        return None
    import warnings

    from runtime.jit import JitFallbackWarning
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JitFallbackWarning)
            compiled = _run_all(mod, lambda fn: ag.function(fn, jit_compile=True), sets,
                                may_raise)
        return _diff("jit_compile", compiled, results,
                     lambda w, g: same_exact(scalars(w), scalars(g)), fmt)
    except Exception:
        return f"jit_compile raised:\n{traceback.format_exc()}"
