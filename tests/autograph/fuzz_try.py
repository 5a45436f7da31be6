"""The fuzzer's "graph_try" feature (fuzz.py): `try` / `except` / `else` / `finally`,
`with np.errstate(...)` regions and raising operations, checked on the graph path.

Generated statements (besides the plain ones, jumps and early returns included, which
land inside the blocks too):
- `a = (a + 60 // (n - k)) % 1009` and `a = (a + int(np.array([3, 5, 7])[i])) % 1009`: on NumPy
  integers a division by zero raises `FloatingPointError` under the runner's
  `np.errstate(divide="raise")` (on Python ints, `ZeroDivisionError`), an index out of
  range `IndexError`, both when the graph runs;
- `raise ValueError('...')` inside a branch (symbolic conditions: a graph-side raise);
- `try` blocks whose handlers, `else` and `finally` record their passage in the number
  `tlog` (returned with the results), with random statements in them;
- `with np.errstate(divide=...)` blocks around random statements (a run-time region).
The feature sets "try_writes", "try_labels", "try_raises" and "try_chain" (their
modules fuzz_try_*.py) add more, each drawing random numbers only when asked for.

`check_graph` runs the function eagerly on the NumPy arguments (the reference: what
NumPy does) and through `ag.function` (also `jit_compile=True` when asked) and
`ag.to_graph`, under the same errstate, and compares each outcome: the returned values,
or the raised exception's type and message. A documented refusal (`REFUSALS`) is
counted, not a failure.
"""
from __future__ import annotations

import warnings

import numpy as np

from tests.autograph import (fuzz_objects, fuzz_try_chain, fuzz_try_labels, fuzz_try_raises,
                              fuzz_try_writes)

HELPERS = "import numpy as np\n\n"
HANDLERS = ["ZeroDivisionError", "FloatingPointError", "IndexError", "ArithmeticError",
            "(ValueError, LookupError)", "Exception", "ValueError"]
_RAISED = (ValueError, ArithmeticError, LookupError, UnboundLocalError, AssertionError)


def setup(features) -> list:
    return ["tlog = 0"] + fuzz_try_writes.setup(features) + fuzz_try_labels.setup(features) \
        + fuzz_try_raises.setup(features) if "graph_try" in features else []


def observed(features) -> list:
    return ["tlog"] + fuzz_try_writes.observed(features) + \
        fuzz_try_labels.observed(features) + fuzz_try_raises.observed(features) \
        if "graph_try" in features else []


def helpers(features) -> str:
    return HELPERS + (fuzz_try_writes.HELPERS if fuzz_try_writes.FEATURE in features else "") \
        + (fuzz_try_raises.HELPERS if fuzz_try_raises.FEATURE in features else "") \
        + (fuzz_try_chain.HELPERS if fuzz_try_chain.FEATURE in features else "")


def kinds(gen, env) -> list:
    if "graph_try" not in gen.features:
        return []
    out = ["graph_may_raise", "graph_may_raise"]
    if env.if_depth:
        out.append("raise_const")
    if gen.budget > 2 and env.if_depth < 3:
        out += ["graph_try", "graph_try", "errstate"]
    return out + fuzz_try_writes.kinds(gen, env) + fuzz_try_labels.kinds(gen, env) + \
        fuzz_try_raises.kinds(gen, env) + fuzz_try_chain.kinds(gen, env)


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    """Append one statement of `kind`; True if it always jumps (raise)."""
    r = gen.r
    if kind in fuzz_try_writes.KINDS:
        return fuzz_try_writes.stmt(gen, kind, env, pad, lines)
    if kind in fuzz_try_labels.KINDS:
        return fuzz_try_labels.stmt(gen, kind, env, pad, lines)
    if kind in fuzz_try_raises.KINDS:
        return fuzz_try_raises.stmt(gen, kind, env, pad, lines)
    if kind in fuzz_try_chain.KINDS:
        return fuzz_try_chain.stmt(gen, kind, env, pad, lines)
    if kind == "graph_may_raise":
        target = r.choice(gen.int_names)
        if gen.chance(0.5):
            rhs = f"60 // ({gen.bounded_int(env)} - {gen.bounded_int(env)})"
        else:  # (an array: a Python list cannot take a symbolic index)
            rhs = f"int(np.array([3, 5, 7])[{gen.bounded_int(env)}])"
        lines.append(f"{pad}{target} = ({target} + {rhs}) % 1009")
        # (used by the result: an operation nothing uses does not run in a graph)
        lines.append(f"{pad}tlog = (tlog + {target}) % 1000003")
        return False
    if kind == "raise_const":
        lines.append(f"{pad}raise ValueError('bad {gen.fresh('r')}')")
        return True
    if kind == "errstate":
        mode = r.choice(["ignore", "raise", "warn"])
        lines.append(f"{pad}with np.errstate(divide='{mode}'):")
        inner = env.child()
        inner.if_depth += 1
        gen.block(inner, len(pad) // 4 + 1, lines)
        return False
    _try(gen, env, pad, lines)
    return False


def _note(gen, pad: str) -> str:
    line = f"{pad}tlog = (tlog * 7 + {gen.r.randint(1, 6)}) % 1000003"
    labelled: list = []
    fuzz_try_labels.in_handler(gen, pad, labelled)
    return "\n".join(labelled + [line])


def _try(gen, env, pad: str, lines: list) -> None:
    r = gen.r
    indent = len(pad) // 4 + 1
    inner = env.child()
    inner.if_depth += 1
    lines.append(f"{pad}try:")
    late = fuzz_try_raises.bound_late(gen, inner, pad + "    ", lines)
    gen.block(inner.child(), indent, lines)
    handlers = r.sample(HANDLERS + fuzz_try_raises.handlers(gen.features) +
                        fuzz_try_chain.handlers(gen.features), r.randint(0, 2))
    if not handlers and gen.chance(0.5):
        handlers = ["ArithmeticError"]
    message = fuzz_try_labels.path_message(gen, env) if handlers else None
    for i, h in enumerate(handlers):
        named = not gen.chance(0.6)
        lines.append(f"{pad}except {h} as e:" if named else f"{pad}except {h}:")
        lines.append(_note(gen, pad + "    "))
        if message:
            lines.append(f"{pad}    {message} = 'handler {i}'")
        if gen.chance(0.5):
            gen.block(inner.child(), indent, lines, max_stmts=2)
        fuzz_try_chain.end_handler(gen, pad + "    ", lines, named)
    if handlers and (gen.chance(0.3) or message):
        lines.append(f"{pad}else:")
        lines.append(_note(gen, pad + "    "))
        if message:
            lines.append(f"{pad}    {message} = 'else'")
        if gen.chance(0.5):
            gen.block(inner.child(), indent, lines, max_stmts=2)
    if not handlers or gen.chance(0.5):
        lines.append(f"{pad}finally:")
        lines.append(_note(gen, pad + "    "))
        fuzz_try_writes.finally_extra(gen, env, pad + "    ", lines)
    if message:
        lines.append(f"{pad}label = {message}")
    if late:  # (read after the `try`: unbound there where a handler went on)
        lines.append(f"{pad}{late[0]} = {late[0]} + {late[1]}")


# Documented refusals (ConversionError at the `try`, naming the variable): a handler or
# the state after the `try` needs a variable the body assigns between operations that
# may fail (which value it holds depends on which one failed); a variable whose
# structure changes inside the `try`. Counted in fuzz_objects.REFUSED.
# (an error Python code raises while a symbolic branch the inputs do not take is traced:
# documented, the error carries a note naming the `if`)
_TRACED_BRANCH = "raised while tracing the"
REFUSALS = ("which the `try` body assigns around operations that may fail",
            "holds a value of another structure inside the `try`",
            "its `finally` has a side effect that uses a variable",
            "its `finally` has an operation that may raise",
            "is read after this `try`, which binds it on some paths only",
            # (a context manager of the program's own around graph operations: README)
            "__exit__ run once while the function is traced",
            "in a way the graph cannot carry to each path",
            # (a string or other object bound on one path only, read after: docs/errors.md
            # Diagnostic; the graph cannot carry it with whether it is bound)
            "branch of this `if` but not in the") + \
    fuzz_try_labels.REFUSALS  # (try_arrays.py; the labels' strings)


# (docs/sharp_bits.md: a TypeError naming the line and the array form to write instead)
_LIST_ITEM = "An item of a Python list is written inside a symbolic loop"


def _outcome(fn, args):
    """(kind, the value or error, the array arguments after the call)."""
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    try:
        return "value", fn(*args), arrays
    except _RAISED as e:
        if any(_TRACED_BRANCH in n for n in getattr(e, "__notes__", ())):
            return "refused", _TRACED_BRANCH, arrays
        documented = REFUSALS if type(e).__name__ == "Diagnostic" else \
            fuzz_try_labels.REFUSALS
        refusal = next((r for r in documented if r in str(e)), None)
        if refusal is not None:  # (a documented error the graph gives, never eager)
            return "refused", refusal, arrays
        return "raised", f"{type(e).__name__}: {e}", arrays


def check_graph(fn, sets, same_numeric, fmt, jit: bool = False) -> str | None:
    """None when `ag.function` (and jit) and `ag.to_graph` give eager NumPy's outcome on
    every argument set, else a description of the first difference."""
    import autograph as ag

    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = [_outcome(fn, args) for args in sets]
        except Exception as e:  # noqa: BLE001 - reported
            return f"eager NumPy raised (a generator bug): {type(e).__name__}: {e}"
        runs = [("to_graph", ag.to_graph(fn)), ("function", ag.function(fn))]
        if jit:
            runs.append(("jit_compile", ag.function(fn, jit_compile=True)))
        for name, run in runs:
            for args, want in zip(sets, expected):
                try:
                    got = _outcome(run, args)
                except Exception as e:  # noqa: BLE001 - reported
                    documented = isinstance(e, (ag.ConversionError, TypeError)) and \
                        any(r in str(e) for r in REFUSALS) or \
                        isinstance(e, TypeError) and _LIST_ITEM in str(e) and "(at " in str(e)
                    if documented:
                        kind = next((r for r in REFUSALS if r in str(e)), _LIST_ITEM)
                        fuzz_objects.REFUSED[kind] = fuzz_objects.REFUSED.get(kind, 0) + 1
                        return None
                    return f"{name}{fmt(args)} raised {type(e).__name__}: {e}"
                if got[0] == "refused":
                    fuzz_objects.REFUSED[got[1]] = fuzz_objects.REFUSED.get(got[1], 0) + 1
                    return None
                if got[0] != want[0] or (want[0] == "raised" and got[1] != want[1]) or \
                        want[0] == "value" and not same_numeric(want[1], got[1]):
                    return f"{name}{fmt(args)}: {got[:2]!r} != eager NumPy {want[:2]!r}"
                if not all(np.allclose(a, b, rtol=1e-9, atol=0, equal_nan=True)
                           for a, b in zip(got[2], want[2])):
                    return f"{name}{fmt(args)}: arguments after the call {got[2]!r} != " \
                           f"eager NumPy {want[2]!r}"
    return None
