"""The fuzzer's "try_raises" feature (with "graph_try", fuzz_try.py): the raising
operations and `with` statements "graph_try" alone does not make.

Generated statements (anywhere, so inside `try` bodies, handlers, `finally`, branches
and loops too):
- `u = u + float(np.linalg.inv(np.array([[p, q], [q, p]]))[0, 0])`: `LinAlgError` when
  p == ±q (the arguments are halves of small integers, so often);
- `a = (a + 60 // (i - 2)) % 1009` with `i` a loop index: a Python int on Python paths
  (`ZeroDivisionError`), a NumPy one on symbolic ones (`FloatingPointError` under the
  runner's errstate);
- `raise FuzzError('...')` under a condition: a class of the program's own (a
  `ValueError`), which handlers name too (`except FuzzError`);
- `with track:` around random statements: a context manager of the program's own whose
  `__enter__` / `__exit__` count into `track.n` (returned with the results); its
  `__exit__` sees the error passing through and does not swallow it (around graph
  operations: the documented ConversionError at the `with`, counted as a refusal).
- around some `try`s, a variable bound in the body after an operation that may raise
  and read after the `try` (`u = u + p3`): unbound there where a handler went on, so
  Python raises UnboundLocalError (the graph: the documented ConversionError).
Each raising operation's value is used by the result (`tlog`): an operation nothing uses
does not run in a graph.

A separate feature so that the programs of the other sets (and their regression seeds)
stay the same.
"""
from __future__ import annotations

FEATURE = "try_raises"
KINDS = ("linalg", "py_zero_div", "user_raise", "user_with")
HANDLERS = ["FuzzError", "np.linalg.LinAlgError"]
HELPERS = '''class FuzzError(ValueError):
    pass


class Track:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n = self.n + 1
        return self

    def __exit__(self, kind, value, tb):
        self.n = self.n + (100 if kind is not None else 10)
        return False


'''


def setup(features) -> list:
    return ["track = Track()"] if FEATURE in features else []


def observed(features) -> list:
    return ["track.n"] if FEATURE in features else []


def handlers(features) -> list:
    return HANDLERS if FEATURE in features else []


def kinds(gen, env) -> list:
    if FEATURE not in gen.features:
        return []
    out = ["linalg"]
    if [b for b in env.bounded if b not in ("n", "k")]:
        out.append("py_zero_div")
    if env.if_depth:
        out.append("user_raise")
    if gen.budget > 2 and env.if_depth < 3 and gen.chance(0.3):
        out.append("user_with")
    return out


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    """Append one statement of `kind`; True if it always jumps (raise)."""
    r = gen.r
    if kind == "linalg":
        target = r.choice(gen.float_names)
        p, q = gen.float_atom(env), gen.float_atom(env)
        lines.append(f"{pad}{target} = {target} + "
                     f"float(np.linalg.inv(np.array([[{p}, {q}], [{q}, {p}]]))[0, 0])")
        lines.append(f"{pad}tlog = (tlog + int({target} * 4) % 7) % 1000003")
        return False
    if kind == "py_zero_div":
        index = r.choice([b for b in env.bounded if b not in ("n", "k")])
        target = r.choice(gen.int_names)
        lines.append(f"{pad}{target} = ({target} + 60 // ({index} - {r.randint(0, 2)})) % 1009")
        lines.append(f"{pad}tlog = (tlog + {target}) % 1000003")
        return False
    if kind == "user_raise":
        lines.append(f"{pad}raise FuzzError('fuzz {gen.fresh('r')}')")
        return True
    lines.append(f"{pad}with track:")
    inner = env.child()
    inner.if_depth += 1
    gen.block(inner, len(pad) // 4 + 1, lines, max_stmts=3)
    return False


def bound_late(gen, env, pad: str, lines: list):
    """Maybe start a `try` body with an operation that may raise, then bind a new
    variable: (a float variable, the new one) to add after the `try`, or None."""
    if FEATURE not in gen.features or env.loop_depth or not gen.chance(0.3):
        return None
    from tests.autograph import fuzz_try  # (the may-raise statement: fuzz_try.py's)

    fuzz_try.stmt(gen, "graph_may_raise", env, pad, lines)
    name = gen.fresh("p")
    lines.append(f"{pad}{name} = {gen.float_expr(env, 1)}")
    return gen.r.choice(gen.float_names), name
